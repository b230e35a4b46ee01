import type { RequestHandler } from 'express';
import { notFound } from '../../domain/errors.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * The development doors (a token for any user, users by phone, every message sent) answer only a request
 * made directly from the loopback interface: the socket's own peer, whatever TRUST_PROXY says, and no
 * forwarding header, since a reverse proxy on the same host connects from loopback on behalf of anyone.
 * Anything else gets the 404 RouteNotFound of a path that does not exist
 * (docs/decisions/0046-money-risk-limits.md).
 */
export const isDirectLoopback = (req: Parameters<RequestHandler>[0]): boolean =>
  LOOPBACK.has(req.socket.remoteAddress ?? '') &&
  req.headers.forwarded === undefined &&
  req.headers['x-forwarded-for'] === undefined;

export const directLoopbackOnly: RequestHandler = (req, _res, next) => {
  if (isDirectLoopback(req)) next();
  else next(notFound('RouteNotFound', 'No route matches this method and path.'));
};
