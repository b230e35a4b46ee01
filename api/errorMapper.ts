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
 * The one place where errors become HTTP answers. Anything that is not a known error is a bug: it is
 * logged with its stack and answered with a bare 500, never with the stack or SQL text.
 */
export const errorMapper: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) return;
  if (err instanceof DomainError) {
    // ValidationError keeps its fieldErrors under details (the spec's shape); other errors carry their
    // few extra fields (remaining_liters, distanceKm …) beside error and message.
    const extra = err.code === 'ValidationError' ? { details: err.details } : err.details;
    res.status(statusOf[err.kind]).json({ error: err.code, message: err.message, ...extra });
    return;
  }
  if (err instanceof ZodError) {
    res.status(422).json({ error: 'ValidationError', message: 'The given data was invalid.', details: { fieldErrors: fieldErrorsOf(err) } });
    return;
  }
  const e = err as { type?: string; status?: number; statusCode?: number };
  if (e?.type === 'entity.parse.failed') {
    res.status(422).json({ error: 'ValidationError', message: 'The body is not valid JSON.', details: { fieldErrors: { _body: ['Malformed JSON'] } } });
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
  req.log?.error({ err }, 'unhandled error');
  res.status(500).json({ error: 'InternalError', message: 'Something went wrong on our side.' });
};
