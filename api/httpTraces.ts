import type { RequestHandler } from 'express';
import { serveInSpan } from '../infra/tracing/tracing.js';
import { routePatternOf } from './httpMetrics.js';

/** Every request in a server span (infra/tracing/tracing.ts); its trace id goes on the request's log line. */
export const httpTraces: RequestHandler = (req, res, next) => {
  res.locals.traceId = serveInSpan(req.method, req.headers, (finish) => {
    res.once('finish', () => finish(routePatternOf(req), res.statusCode));
    next();
  });
};
