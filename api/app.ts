import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type Request, type RequestHandler, type Router } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import { pinoHttp } from 'pino-http';
import { inRequestScope, queryWithoutCredentials, withoutCredentials } from '../infra/logger.js';
import type { ApiContext } from './apiContext.js';
import { asyncApiDocument } from './asyncapi.js';
import { consoleRoutes } from './consoleStatic.js';
import { errorMapper } from './errorMapper.js';
import { healthRoutes } from './health.js';
import { httpMetrics } from './httpMetrics.js';
import { httpTraces } from './httpTraces.js';
import { tracingStarted } from '../infra/tracing/tracing.js';
import { buildOpenApiDocument } from './openapi.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The exact bytes received, for signature checks (provider webhooks). */
    rawBody?: Buffer;
  }
}

/**
 * Bodies are read before authentication, so anyone may send one: this bounds what a stranger makes us
 * buffer and parse. No JSON body of the API comes near it; the station import, a file, has its own
 * limit on its own route.
 */
const BODY_LIMIT = '100kb';

/**
 * Helmet's headers for an API that serves no pages: nothing may load or frame an answer (CSP
 * `default-src 'none'`, `frame-ancestors 'none'`, X-Frame-Options DENY), no MIME sniffing, no referrer,
 * HTTPS only (HSTS). A page served by this app would need a policy of its own.
 */
const API_HEADERS: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
};

const requestIdOf = (req: Request): string => {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,100}$/.test(given) ? given : randomUUID();
};

const requestIdOnResponse = (req: IncomingMessage, res: ServerResponse): string => {
  const id = requestIdOf(req as Request);
  res.setHeader('X-Request-Id', id);
  return id;
};

const correlationOf = (
  req: IncomingMessage & { id?: unknown },
  res: ServerResponse & { locals?: Record<string, unknown> },
) => ({
  reqId: req.id,
  ...(typeof res.locals?.traceId === 'string' ? { traceId: res.locals.traceId } : {}),
});

/** Probes and scrapes come every few seconds and say nothing new: they are not logged per request. */
const PROBES = new Set(['/health', '/ready', '/api/v1/health', '/api/v1/ready']);

/**
 * One log line per answered request, at info whatever its status, with its id and trace id and never an
 * error object: a refused request (4xx) is the caller's business, and a failure (5xx) was logged once, at
 * error with its stack, where it happened (the error mapper). When the logger writes nothing at info
 * (warn, error, silent), pino-http would still make a child logger, run its serializers and time every
 * request for lines never written: then a request only gets its id, and the app's logger as req.log.
 * Either way the rest of the request runs in its scope, so the service's own logger tags its lines too.
 */
const requestLog = (ctx: ApiContext): RequestHandler => {
  const scoped: RequestHandler = (req, _res, next) => inRequestScope(String(req.id), next);
  if (!ctx.logger.isLevelEnabled('info'))
    return (req, res, next) => {
      req.id = requestIdOnResponse(req, res);
      req.log = ctx.logger;
      scoped(req, res, next);
    };
  const logged = pinoHttp({
    logger: ctx.logger,
    genReqId: requestIdOnResponse,
    autoLogging: { ignore: (req) => PROBES.has((req.url ?? '').split('?')[0]) },
    customLogLevel: () => 'info',
    // The answer is out: the request's scope and span may no longer be the active ones.
    customSuccessObject: (req, res, value: object) => ({ ...value, ...correlationOf(req, res) }),
    customErrorObject: (req, res, _err, value: { res: unknown; responseTime: number }) => ({
      res: value.res,
      responseTime: value.responseTime,
      ...correlationOf(req, res),
    }),
    customErrorMessage: (_req, res) => `request answered ${res.statusCode}`,
    // The payout webhook's token travels in its query string (the provider's contract), and a browser's
    // websocket may send its bearer token there too: neither is written to a log.
    serializers: {
      req: (req: { url: string; query: unknown }) =>
        Object.assign(req, { url: withoutCredentials(req.url), query: queryWithoutCredentials(req.query) }),
    },
  });
  return (req, res, next) => logged(req, res, () => scoped(req, res, next));
};

/**
 * The Express app: request id and logs, JSON bodies, the areas' routes (which `mountRoutes` adds) under
 * /api/v1, one error mapper.
 */
export const createHttpApp = (ctx: ApiContext, mountRoutes: (v1: Router) => void): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.use(helmet(API_HEADERS));
  app.set('query parser', 'extended');
  // The client IP (per-IP OTP limits) comes from X-Forwarded-For only through proxies this trusts.
  if (ctx.config.TRUST_PROXY !== undefined)
    app.set(
      'trust proxy',
      /^\d+$/.test(ctx.config.TRUST_PROXY) ? Number(ctx.config.TRUST_PROXY) : ctx.config.TRUST_PROXY,
    );
  app.use(httpMetrics(ctx.metrics));
  if (tracingStarted()) app.use(httpTraces);
  app.use(requestLog(ctx));
  // Provider webhooks are verified over the exact bytes and parsed by their handler (a malformed body is
  // the webhook's own 400), whatever content type the provider sends.
  app.use('/api/v1/payments/webhook', express.raw({ type: () => true, limit: BODY_LIMIT }), (req, _res, next) => {
    req.rawBody = Buffer.isBuffer(req.body) ? req.body : undefined;
    next();
  });
  app.use(
    express.json({
      limit: BODY_LIMIT,
      type: ['application/json', 'application/*+json'],
      verify: (req, _res, buf) => {
        (req as Request).rawBody = Buffer.from(buf);
      },
    }),
  );
  const root = express.Router();
  healthRoutes(ctx, root);
  app.use(root);
  const v1 = express.Router();
  v1.get('/openapi.json', (_req, res) => {
    res.json(buildOpenApiDocument(ctx.openapi));
  });
  v1.get('/asyncapi.json', (_req, res) => {
    res.json(asyncApiDocument);
  });
  healthRoutes(ctx, v1);
  mountRoutes(v1);
  app.use('/api/v1', v1);
  app.use('/console', consoleRoutes());
  app.use((_req, res) => {
    res.status(404).json({ error: 'RouteNotFound', message: 'No route matches this method and path.' });
  });
  app.use(errorMapper);
  return app;
};
