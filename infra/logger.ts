import { AsyncLocalStorage } from 'node:async_hooks';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import type { DestinationStream } from 'pino';
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Credentials that reach a log line through an HTTP exchange: bearer tokens both ways (a renewed admin
 * JWT goes out in the response's Authorization header), cookies, and webhook signatures. Query strings
 * are cleaned by `withoutCredentials`, which the request serializer applies.
 */
const redact = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'req.headers["x-signature"]',
    'res.headers.authorization',
    'res.headers["set-cookie"]',
  ],
  censor: '[Redacted]',
};

/** Query parameters that carry a credential (the payout webhook's and the websocket's `token`, API keys, codes). */
const CREDENTIAL_PARAM = /token|secret|password|signature|otp|^code$|key$/i;

/** A URL (or path with a query string) with the value of every credential parameter replaced. */
export const withoutCredentials = (url: string): string => {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // A malformed name is judged as written.
      }
      return eq >= 0 && CREDENTIAL_PARAM.test(decoded) ? `${name}=[Redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
};

/** The parsed query with the same parameters' values replaced. */
export const queryWithoutCredentials = (query: unknown): unknown =>
  query && typeof query === 'object'
    ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, CREDENTIAL_PARAM.test(k) ? '[Redacted]' : v]))
    : query;

const requestScope = new AsyncLocalStorage<{ reqId: string }>();

/** Runs the rest of a request's handling with its id, which every line logged meanwhile carries. */
export const inRequestScope = (reqId: string, rest: () => void): void => requestScope.run({ reqId }, rest);

/**
 * What every line carries besides its own fields: the id of the request it was logged for and the trace it
 * belongs to, whichever logger wrote it (a handler's req.log or the service's own).
 */
const correlation = (): Record<string, string> => {
  const reqId = requestScope.getStore()?.reqId;
  const span = trace.getActiveSpan()?.spanContext();
  return { ...(reqId ? { reqId } : {}), ...(span && isSpanContextValid(span) ? { traceId: span.traceId } : {}) };
};

/**
 * JSON lines for machines; on a terminal (a developer running `npm start`) the same lines pretty-printed
 * by pino-pretty in its worker thread. A silent logger never starts that thread. `destination` (tests)
 * receives the JSON lines instead of stdout.
 */
export const createLogger = (level: string, destination?: DestinationStream): Logger => {
  const options: LoggerOptions = { level, redact, mixin: correlation };
  if (destination) return pino(options, destination);
  return process.stdout.isTTY && level !== 'silent'
    ? pino({
        ...options,
        transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } },
      })
    : pino(options);
};
