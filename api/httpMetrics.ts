import type { Request, RequestHandler } from 'express';
import { secondsSince, type Metrics } from '../infra/metrics/metrics.js';

/**
 * The route's pattern as the router matched it (`/api/v1/orders/:id`), never the raw path: ids stay out
 * of labels. Every API route hangs from the root or from /api/v1 (api/app.ts); the console's static
 * files are one label, and a request no route matched another.
 */
export const routePatternOf = (req: Request): string => {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return req.originalUrl.startsWith('/api/v1/') ? `/api/v1${path}` : path;
  return req.originalUrl.startsWith('/console') ? '/console' : 'unmatched';
};

/** Counts and times every answer by route pattern, method and status class. */
export const httpMetrics =
  (metrics: Metrics): RequestHandler =>
  (req, res, next) => {
    const start = performance.now();
    res.once('finish', () => {
      const route = routePatternOf(req);
      const method = req.method;
      metrics.httpRequests.inc({ route, method, status_class: `${Math.floor(res.statusCode / 100)}xx` });
      metrics.httpDuration.observe({ route, method }, secondsSince(start));
    });
    next();
  };
