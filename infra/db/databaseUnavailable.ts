import { DomainError } from '../../domain/errors.js';

/** How long a client should wait before retrying a request refused while the database is away. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * The database cannot be reached (refused, restarting, or our session was terminated). Not a bug and
 * not the caller's fault: the API answers 503 ServiceUnavailable with Retry-After, and the caller retries.
 */
export class DatabaseUnavailable extends DomainError {
  constructor(cause: unknown) {
    super('unavailable', 'ServiceUnavailable', 'The service is temporarily unavailable; retry shortly.', {
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });
    this.cause = cause;
  }
}

// Socket-level failures reaching or talking to the server.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);
// SQLSTATEs of a server that is going away or not there yet: admin/crash shutdown, cannot connect now,
// too many connections; class 08 is "connection exception".
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
// node-postgres reports a lost or unusable connection with these messages and no code.
const LOST_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
  'Connection ended unexpectedly',
];

/** True when `err` says the connection to the database is gone, as opposed to a bad statement. */
export const isConnectionLoss = (err: unknown): boolean => {
  if (err instanceof DatabaseUnavailable) return true;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || SERVER_CODES.has(e.code) || e.code.startsWith('08')))
    return true;
  // A refused connection to a host with several addresses (localhost: ::1 and 127.0.0.1) is an AggregateError.
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every(isConnectionLoss)) return true;
  return typeof e.message === 'string' && LOST_MESSAGES.some((m) => (e.message as string).startsWith(m));
};

/** Rethrows a connection loss as DatabaseUnavailable; every other error unchanged. */
export const asUnavailable = (err: unknown): unknown =>
  isConnectionLoss(err) && !(err instanceof DatabaseUnavailable) ? new DatabaseUnavailable(err) : err;
