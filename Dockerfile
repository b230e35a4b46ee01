# syntax=docker/dockerfile:1
# Production image: compiled JavaScript under plain node, as a non-root user, node as PID 1 behind
# tini (`init: true` in compose, or `docker run --init`) so that SIGTERM reaches the service directly.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The back-office console is an npm workspace; npm ci's prepare script builds it into console/dist. The
# script's other half (app/start.mjs, npm start's bundle) finds no sources yet and skips: the image runs tsc's build.
COPY console console
COPY app/start.mjs app/start.mjs
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY domain domain
COPY commands commands
COPY stores stores
COPY projections projections
COPY api api
COPY infra infra
COPY app app
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production APP_ENV=production PORT=3000 EMBEDDED_DB_DIR=/data/postgres
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/console/dist console/dist
# The embedded PostgreSQL (used when DATABASE_URL is unset; npm prune keeps its optional platform package) and
# its lock file live under /data.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000 9464
STOPSIGNAL SIGTERM
# exec form: node is the process that receives the signal (PID 1 without --init, tini's child with it).
CMD ["node", "dist/app/main.js"]
