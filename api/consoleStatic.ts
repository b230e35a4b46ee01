import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type Router } from 'express';

/**
 * Where the console's production build (console/dist, written by `npm run build -w console`, which
 * `npm ci` runs through the root `prepare` script) lies: beside the sources (tsx) or one level above
 * the compiled dist/ (node dist/app/main.js).
 */
export const consoleDistDir = (): string | undefined =>
  ['../console/dist', '../../console/dist']
    .map((rel) => fileURLToPath(new URL(rel, import.meta.url)))
    .find((dir) => existsSync(`${dir}/index.html`));

/**
 * A strict policy: scripts, styles and fonts only from this origin (the build has no inline script or
 * style), no plugin, no framing, and connections only to this origin, its websocket included (CSP 3's
 * 'self' covers ws: and wss: of the same host; older engines need them spelled out).
 */
const policyFor = (req: Request): string => {
  const host = req.headers.host && /^[A-Za-z0-9.:[\]-]{1,255}$/.test(req.headers.host) ? req.headers.host : undefined;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${host ? ` ws://${host} wss://${host}` : ''}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
};

/**
 * The back-office console at /console: hashed assets cached for a year (immutable), index.html never
 * cached, and every client route (/console/reports/orders …) answered with index.html so that a reload
 * or a shared link opens the right screen.
 */
export const consoleRoutes = (dir: string | undefined = consoleDistDir()): Router => {
  const router = express.Router();
  router.use((req, res, next) => {
    res.setHeader('Content-Security-Policy', policyFor(req));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    // /console → /console/, so that the page's relative base holds.
    const [path, query] = req.originalUrl.split(/\?(.*)/s);
    if (path === req.baseUrl) return res.redirect(301, `${path}/${query ? `?${query}` : ''}`);
    next();
  });
  if (!dir) {
    router.use((_req, res) => {
      res
        .status(503)
        .type('text/plain')
        .send('The console is not built: run `npm run build -w console` (npm ci does it).');
    });
    return router;
  }
  router.use('/assets', (req, res, next) => {
    res.setHeader('Vary', 'Accept-Encoding');
    const name = req.path;
    if (!/^\/[\w.-]+\.(js|css)$/.test(name)) return next();
    const accepted = String(req.headers['accept-encoding'] ?? '');
    // The build's Brotli and gzip copies (console/build.mjs), for browsers that take them.
    for (const [encoding, suffix] of [
      ['br', '.br'],
      ['gzip', '.gz'],
    ] as const) {
      const file = `${dir}/assets${name}${suffix}`;
      if (new RegExp(`\\b${encoding}\\b`).test(accepted) && existsSync(file)) {
        res.setHeader('Content-Encoding', encoding);
        res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        res.type(extname(name));
        return res.sendFile(file);
      }
    }
    next();
  });
  router.use(
    '/assets',
    express.static(`${dir}/assets`, { immutable: true, maxAge: '365d', index: false }),
    (_req, res) => {
      res.status(404).type('text/plain').send('No such asset.');
    },
  );
  router.use(
    express.static(dir, { index: false, maxAge: 0, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') }),
  );
  const sendIndex = (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(`${dir}/index.html`);
  };
  router.get(/.*/, sendIndex);
  return router;
};
