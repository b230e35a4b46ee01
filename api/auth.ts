import type { Request, RequestHandler, Response } from 'express';
import type { Actor, Role } from '../domain/actor.js';
import { forbidden, unauthorized } from '../domain/errors.js';
import type { Authenticator } from '../infra/identity/port.js';

export type { Actor, Role };

declare module 'express-serve-static-core' {
  interface Request {
    actor?: Actor;
  }
}

export const bearerOf = (req: Request): string | null => {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1].trim() : null;
};

export const authenticate =
  (auth: Authenticator): RequestHandler =>
  async (req, res, next) => {
    // An answer for one caller (or a renewed token in its header) must never be kept by a cache on the way.
    res.setHeader('Cache-Control', 'no-store');
    try {
      const token = bearerOf(req);
      const actor = token ? await auth.authenticate(token, req, res) : null;
      if (!actor) throw unauthorized('Unauthorized', 'Missing, invalid or expired token.');
      req.actor = actor;
      next();
    } catch (err) {
      next(err);
    }
  };

type GuardRoles = readonly (Role | 'SUPER_ADMIN')[];

/**
 * The roles a route's guards admit, if one of them checks roles: the check carries its roles, so that the
 * OpenAPI document says which token a route takes, however the guards are listed (`[...admin, upload]`).
 */
export const rolesOf = (guards: RequestHandler[] | undefined): GuardRoles | undefined =>
  guards?.map((g) => (g as RequestHandler & { roles?: GuardRoles }).roles).find(Boolean);

/** Role guard: 401 without a valid token, 403 for a valid token of another role. */
export const requireRole = (auth: Authenticator, ...roles: (Role | 'SUPER_ADMIN')[]): RequestHandler[] => {
  const check = (req: Request, _res: Response, next: (err?: unknown) => void) => {
    const a = req.actor!;
    const ok = roles.some((r) => (r === 'SUPER_ADMIN' ? a.role === 'ADMIN' && a.superAdmin === true : a.role === r));
    next(ok ? undefined : forbidden('Forbidden', 'This route is not for your role.'));
  };
  return [authenticate(auth), Object.assign(check, { roles })];
};

/** An authenticator that knows no token: the start state until identity is wired. */
export const noAuthenticator: Authenticator = {
  authenticate: async () => null,
  stillValid: async () => null,
  forget: () => undefined,
};
