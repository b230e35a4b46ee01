import type { ErrorRequestHandler } from 'express';
import { ZodError } from 'zod';
import { DomainError, type ErrorKind } from '../domain/errors.js';

const statusOf: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  too_many: 429,
  upstream: 502,
  unavailable: 503,
  internal: 500,
};

/** When a refused caller may try again, if the error does not say: a minute for a limit, half that for an outage. */
const DEFAULT_RETRY_AFTER_SECONDS: Partial<Record<number, number>> = { 429: 60, 503: 30 };

/**
 * Every 429 and 503 tells the client when to come back, in the Retry-After header and as
 * retryAfterSeconds in the body (from the error's retryAfterSeconds or retryAfterMinutes when it has one).
 */
const retryAfterOf = (status: number, details: Record<string, unknown> | undefined): number | undefined => {
  const fallback = DEFAULT_RETRY_AFTER_SECONDS[status];
  if (fallback === undefined) return undefined;
  if (typeof details?.retryAfterSeconds === 'number') return Math.max(1, Math.ceil(details.retryAfterSeconds));
  if (typeof details?.retryAfterMinutes === 'number') return Math.max(1, Math.ceil(details.retryAfterMinutes * 60));
  return fallback;
};

/** zod issues → details.fieldErrors keyed by the field's path (dot-joined; payment-form values by index). */
export const fieldErrorsOf = (err: ZodError, prefix: (string | number)[] = []): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  for (const issue of err.issues) {
    const path = [...prefix, ...issue.path].map(String).join('.') || '_';
    (out[path] ??= []).push(issue.message);
  }
  return out;
};

/**
 * The one place where errors become HTTP answers, and where a 5xx is logged (once, at error, with its stack).
 * Anything that is not a known error is a bug: answered with a bare 500, never with the stack or SQL text.
 */
export const errorMapper: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) return;
  if (err instanceof DomainError) {
    // ValidationError keeps its fieldErrors under details (the spec's shape); other errors carry their
    // few extra fields (remaining_liters, distanceKm …) beside error and message.
    const extra = err.code === 'ValidationError' ? { details: err.details } : err.details;
    const status = statusOf[err.kind];
    // A refusal (4xx) is the caller's business, logged only as the request's own line; a failure here
    // (a provider or the database away) is logged once, with its stack.
    if (status >= 500) req.log?.error({ err }, 'request failed');
    const retryAfterSeconds = retryAfterOf(status, err.details);
    if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
    res.status(status).json({
      error: err.code,
      message: err.message,
      ...extra,
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    });
    return;
  }
  if (err instanceof ZodError) {
    res.status(422).json({
      error: 'ValidationError',
      message: 'The given data was invalid.',
      details: { fieldErrors: fieldErrorsOf(err) },
    });
    return;
  }
  const e = err as { type?: string; status?: number; statusCode?: number };
  if (e?.type === 'entity.parse.failed') {
    res.status(422).json({
      error: 'ValidationError',
      message: 'The body is not valid JSON.',
      details: { fieldErrors: { _body: ['Malformed JSON'] } },
    });
    return;
  }
  if (e?.type === 'entity.too.large') {
    res.status(413).json({ error: 'PayloadTooLarge', message: 'The body is too large.' });
    return;
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    res.status(415).json({ error: 'UnsupportedMediaType', message: 'Unsupported body encoding.' });
    return;
  }
  // A value Postgres cannot take (SQLSTATE class 22: a number out of range for its column, a NUL byte,
  // a date beyond the calendar…) is bad input that the route's schema let through: the caller gets a
  // 422 without the SQL text, and the log keeps it at warn so the schema gets tightened.
  const db = err as { code?: unknown; severity?: unknown };
  if (typeof db?.code === 'string' && db.code.startsWith('22') && db.severity !== undefined) {
    req.log?.warn({ err }, 'database rejected a value');
    res.status(422).json({
      error: 'ValidationError',
      message: 'A value is out of the accepted range or format.',
      details: { fieldErrors: { _: ['A value is out of the accepted range or format.'] } },
    });
    return;
  }
  // Other client errors raised by Express itself (a path segment that is not valid percent-encoding is
  // a 400 from the router) keep their status, with our error shape.
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    res.status(status).json({
      error: status === 404 ? 'RouteNotFound' : 'BadRequest',
      message: 'The request could not be understood.',
    });
    return;
  }
  req.log?.error({ err }, 'unhandled error');
  res.status(500).json({ error: 'InternalError', message: 'Something went wrong on our side.' });
};
