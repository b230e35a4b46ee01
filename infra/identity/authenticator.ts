import type { Request, Response } from 'express';
import type { Actor } from '../../domain/actor.js';
import type { Authenticator } from './port.js';
import { sha256 } from './secrets.js';
import type { Bus } from '../bus/port.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { AdminClaims, AdminJwt } from './adminJwt.js';
import { SESSION_CHANGES, type SessionChange } from './sessionChanges.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The presented app token's hash (logout and refresh revoke it). */
    appTokenHash?: string;
    /** The presented admin JWT's claims (logout and refresh blacklist it). */
    adminJwtClaims?: AdminClaims;
    /** The presented admin JWT was logged out: usable through its grace, never refreshed. */
    adminJwtLoggedOut?: boolean;
  }
}

/** Puts a fresh admin JWT in the response's Authorization header (docs/domain-rules.md, who is who). */
export const sendRenewedJwt = (res: Response, token: string): void => {
  res.setHeader('Authorization', `Bearer ${token}`);
  res.setHeader('Access-Control-Expose-Headers', 'Authorization');
};

/**
 * Blacklists a JWT after its grace period. The first invalidation wins: a later logout cannot extend
 * the grace of a token that a refresh already invalidated, but it does mark it logged out, so that it
 * can no longer be refreshed either.
 */
export const invalidateJwt = async (
  db: Db,
  config: Config,
  claims: AdminClaims,
  graceEndsAt: Date,
  endedBy: 'logout' | 'replaced',
): Promise<void> => {
  // Kept while the token could still be used or renewed; the cleanup job drops it afterwards.
  const renewableUntil = (claims.oat + config.ADMIN_JWT_REFRESH_TTL_MINUTES * 60) * 1000;
  await db
    .insertInto('jwt_blacklist')
    .values({
      jti: claims.jti,
      admin_id: claims.adminId,
      usable_until: graceEndsAt,
      expires_at: new Date(Math.max(claims.exp * 1000, graceEndsAt.getTime(), renewableUntil)),
      ended_by: endedBy,
    })
    .onConflict((oc) =>
      endedBy === 'logout' ? oc.column('jti').doUpdateSet({ ended_by: 'logout' }) : oc.column('jti').doNothing(),
    )
    .execute();
};

/** How often an app session's last use is written: once an hour at most, so that reads stay reads. */
const TOUCH_EVERY_MS = 3_600_000;

/**
 * How long an instance answers an app token from its cache without asking the database: the bound on how
 * late another instance honours a revocation whose bus message was lost (docs/decisions/0045-caches-and-invalidation.md).
 */
export const SESSION_CACHE_MS = 10_000;
/** Sessions kept at most; the oldest goes first. */
const SESSION_CACHE_SIZE = 50_000;

interface CachedSession {
  actor: Actor;
  lastUsedAt: number;
  until: number;
}

/**
 * Admin JWTs (three dot-separated parts) and opaque app tokens, resolved to an actor. `authenticate`
 * serves HTTP requests (an expired admin JWT is renewed in the answer's Authorization header);
 * `stillValid` serves open websockets and writes nothing: a logged-out token ends them at once, the
 * grace period being for requests already on their way.
 */
export const createAuthenticator = (deps: {
  db: Db;
  clock: Clock;
  config: Config;
  jwt: AdminJwt;
  /** Where other instances say a principal's sessions changed; without it nothing is cached. */
  bus?: Bus;
}): Authenticator => {
  const { db, clock, config, jwt, bus } = deps;
  const graceMs = config.ADMIN_JWT_GRACE_SECONDS * 1000;
  const idleMs = config.APP_TOKEN_IDLE_DAYS * 86_400_000;
  let allCityIds: number[] | null = null;
  const cityIds = async () =>
    (allCityIds ??= (await db.selectFrom('cities').select('id').orderBy('sort_order').execute()).map((c) => c.id));

  const adminActor = async (token: string, use: { req: Request; res: Response } | 'socket'): Promise<Actor | null> => {
    const verified = await jwt.verify(token);
    if (!verified) return null;
    const { claims } = verified;
    const now = clock.now();
    // The admin and the token's entry on the blacklist, if any, in one statement: every admin request pays it.
    const admin = await db
      .selectFrom('admins as a')
      .leftJoin('jwt_blacklist as b', (join) => join.on('b.jti', '=', claims.jti))
      .select([
        'a.id',
        'a.name',
        'a.super_admin',
        'a.auditor',
        'a.all_cities',
        'a.city_ids',
        'a.is_active',
        'a.confirmed_at',
        'a.tokens_valid_after',
        'b.usable_until',
        'b.ended_by',
      ])
      .where('a.id', '=', claims.adminId)
      .executeTakeFirst();
    if (!admin || !admin.is_active || !admin.confirmed_at) return null;
    if (admin.tokens_valid_after && claims.iatMs < new Date(admin.tokens_valid_after).getTime()) return null;
    // On the blacklist (its columns are null otherwise), a token is refused once its grace has run out.
    if (admin.usable_until !== null && now.getTime() > new Date(admin.usable_until).getTime()) return null;
    const loggedOut = admin.ended_by === 'logout';
    if (use === 'socket' && loggedOut) return null;
    if (verified.state === 'expired') {
      if (now.getTime() / 1000 - claims.oat > config.ADMIN_JWT_REFRESH_TTL_MINUTES * 60) return null;
      // A socket outlives its token's hour as long as the chain could still be renewed; a request renews it.
      if (use !== 'socket') {
        if (loggedOut) return null;
        await invalidateJwt(db, config, claims, new Date(now.getTime() + graceMs), 'replaced');
        const fresh = await jwt.issue(admin.id, claims.oat, admin.auditor);
        sendRenewedJwt(use.res, fresh.token);
      }
    }
    if (use !== 'socket') {
      use.req.adminJwtClaims = claims;
      use.req.adminJwtLoggedOut = loggedOut;
    }
    return {
      id: admin.id,
      role: 'ADMIN',
      name: admin.name,
      superAdmin: admin.super_admin,
      ...(admin.auditor ? { auditor: true } : {}),
      cityIds: admin.all_cities ? await cityIds() : admin.city_ids.map(Number),
    } satisfies Actor;
  };

  // App sessions by token hash, for requests only (a socket's check always reads the database). Every
  // instance drops a user's entries when told on the bus that their sessions changed.
  const sessions = new Map<string, CachedSession>();
  // Moves at every forget: a lookup under way then may have read a session since revoked, and is not kept.
  let generation = 0;
  const forget = (change: SessionChange) => {
    if (change.role !== 'USER') return;
    generation += 1;
    for (const [hash, s] of sessions) if (s.actor.id === change.id) sessions.delete(hash);
  };
  bus?.subscribe(SESSION_CHANGES, (m) => forget(m.data as SessionChange));

  /** A request's app session from the cache, while its entry lives and the session is not idle. */
  const cachedApp = (hash: string, req: Request): Actor | null => {
    const s = sessions.get(hash);
    if (!s) return null;
    const now = clock.now().getTime();
    if (now >= s.until || now - s.lastUsedAt > TOUCH_EVERY_MS) {
      sessions.delete(hash);
      return null;
    }
    req.appTokenHash = hash;
    return s.actor;
  };

  const appActor = async (token: string, req: Request | null): Promise<Actor | null> => {
    if (token.length > 200) return null;
    const hash = sha256(token);
    if (req && bus) {
      const cached = cachedApp(hash, req);
      if (cached) return cached;
    }
    const loading = generation;
    const row = await db
      .selectFrom('app_sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select(['u.id', 'u.role', 'u.name', 'u.driver_id', 'u.is_active', 's.revoked_at', 's.last_used_at'])
      .where('s.token_hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.revoked_at || !row.is_active) return null;
    const now = clock.now();
    const idle = now.getTime() - new Date(row.last_used_at).getTime();
    if (idle > idleMs) return null;
    if (req) {
      if (idle > TOUCH_EVERY_MS)
        await db.updateTable('app_sessions').set({ last_used_at: now }).where('token_hash', '=', hash).execute();
      req.appTokenHash = hash;
    }
    const actor: Actor = { id: row.id, role: row.role, name: row.name, driverId: row.driver_id };
    if (req && bus && loading === generation) {
      if (sessions.size >= SESSION_CACHE_SIZE) sessions.delete(sessions.keys().next().value!);
      const lastUsedAt = idle > TOUCH_EVERY_MS ? now.getTime() : new Date(row.last_used_at).getTime();
      sessions.set(hash, { actor, lastUsedAt, until: now.getTime() + SESSION_CACHE_MS });
    }
    return actor;
  };

  const isJwt = (token: string) => token.split('.').length === 3;
  return {
    authenticate: (token, req, res) => (isJwt(token) ? adminActor(token, { req, res }) : appActor(token, req)),
    stillValid: (token) => (isJwt(token) ? adminActor(token, 'socket') : appActor(token, null)),
    forget,
  };
};
