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

/** A guard that signs the caller in: the auditor's rule (withAuditorRule) is checked right after it. */
type SignsIn = RequestHandler & { signsIn: true };

export const authenticate = (auth: Authenticator): SignsIn =>
  Object.assign<RequestHandler, { signsIn: true }>(
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
    },
    { signsIn: true },
  );

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

const isAuditor = (req: Request) => req.actor?.role === 'ADMIN' && req.actor.auditor === true;
const auditorRefused = () => forbidden('Forbidden', 'An auditor reads what an audit needs and changes nothing.');

/**
 * A route's guards with the auditor's rule in force (docs/decisions/0085-auditors-read-and-are-recorded.md): on
 * a route of the auditor's read list (`reads`) an auditor passes the role check, a super admin's included; on
 * every other route that signs its caller in, an auditor is refused 403 Forbidden before anything else runs.
 * A public route has no caller to refuse.
 */
export const withAuditorRule = (guards: RequestHandler[] | undefined, reads: boolean): RequestHandler[] | undefined => {
  if (!guards) return guards;
  const at = guards.findIndex((g) => rolesOf([g]));
  if (at >= 0) {
    const check = guards[at];
    const roles = rolesOf([check])!;
    const admitsAdmins = roles.some((r) => r === 'ADMIN' || r === 'SUPER_ADMIN');
    const gate: RequestHandler = (req, res, next) =>
      isAuditor(req) ? next(reads && admitsAdmins ? undefined : auditorRefused()) : check(req, res, next);
    return [...guards.slice(0, at), Object.assign(gate, { roles }), ...guards.slice(at + 1)];
  }
  const signIn = guards.findIndex((g) => (g as Partial<SignsIn>).signsIn);
  if (signIn < 0 || reads) return guards;
  const gate: RequestHandler = (req, _res, next) => next(isAuditor(req) ? auditorRefused() : undefined);
  return [...guards.slice(0, signIn + 1), gate, ...guards.slice(signIn + 1)];
};

/** Whether a signed-in auditor can be refused by these guards (the OpenAPI document then lists 403). */
export const refusesAuditor = (guards: RequestHandler[] | undefined, reads: boolean): boolean =>
  !reads && Boolean(guards?.some((g) => (g as Partial<SignsIn>).signsIn));

/** An authenticator that knows no token: the start state until identity is wired. */
export const noAuthenticator: Authenticator = {
  authenticate: async () => null,
  stillValid: async () => null,
  forget: () => undefined,
};
