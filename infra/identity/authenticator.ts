import type { Response } from 'express';
import type { Actor, Authenticator } from '../../api/auth.js';
import { sha256 } from '../../commands/identity/secrets.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { AdminClaims, AdminJwt } from './adminJwt.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The presented app token's hash (logout and refresh revoke it). */
    appTokenHash?: string;
    /** The presented admin JWT's claims (logout and refresh blacklist it). */
    adminJwtClaims?: AdminClaims;
  }
}

/** Puts a fresh admin JWT in the response's Authorization header (spec §5.2 rule 3). */
export const sendRenewedJwt = (res: Response, token: string): void => {
  res.setHeader('Authorization', `Bearer ${token}`);
  res.setHeader('Access-Control-Expose-Headers', 'Authorization');
};

/**
 * Blacklists a JWT after its grace period. The first invalidation wins: a later logout cannot extend
 * the grace of a token that a refresh already invalidated.
 */
export const invalidateJwt = async (db: Db, config: Config, claims: AdminClaims, graceEndsAt: Date): Promise<void> => {
  // Kept while the token could still be used or renewed; the cleanup job drops it afterwards.
  const renewableUntil = (claims.oat + config.ADMIN_JWT_REFRESH_TTL_MINUTES * 60) * 1000;
  await db
    .insertInto('jwt_blacklist')
    .values({ jti: claims.jti, admin_id: claims.adminId, usable_until: graceEndsAt, expires_at: new Date(Math.max(claims.exp * 1000, graceEndsAt.getTime(), renewableUntil)) })
    .onConflict((oc) => oc.column('jti').doNothing())
    .execute();
};

/** Admin JWTs (three dot-separated parts) and opaque app tokens, resolved to an actor. */
export const createAuthenticator = (deps: { db: Db; clock: Clock; config: Config; jwt: AdminJwt }): Authenticator => {
  const { db, clock, config, jwt } = deps;
  const graceMs = config.ADMIN_JWT_GRACE_SECONDS * 1000;
  let allCityIds: number[] | null = null;
  const cityIds = async () => (allCityIds ??= (await db.selectFrom('cities').select('id').orderBy('sort_order').execute()).map((c) => c.id));

  const adminActor: Authenticator['authenticate'] = async (token, req, res) => {
    const verified = await jwt.verify(token);
    if (!verified) return null;
    const { claims } = verified;
    const now = clock.now();
    const admin = await db
      .selectFrom('admins')
      .select(['id', 'name', 'super_admin', 'all_cities', 'city_ids', 'is_active', 'confirmed_at', 'tokens_valid_after'])
      .where('id', '=', claims.adminId)
      .executeTakeFirst();
    if (!admin || !admin.is_active || !admin.confirmed_at) return null;
    if (admin.tokens_valid_after && claims.iatMs < new Date(admin.tokens_valid_after).getTime()) return null;
    const listed = await db.selectFrom('jwt_blacklist').select('usable_until').where('jti', '=', claims.jti).executeTakeFirst();
    if (listed && now.getTime() > new Date(listed.usable_until).getTime()) return null;
    if (verified.state === 'expired') {
      if (now.getTime() / 1000 - claims.oat > config.ADMIN_JWT_REFRESH_TTL_MINUTES * 60) return null;
      await invalidateJwt(db, config, claims, new Date(now.getTime() + graceMs));
      const fresh = await jwt.issue(admin.id, claims.oat);
      sendRenewedJwt(res, fresh.token);
    }
    req.adminJwtClaims = claims;
    return {
      id: admin.id,
      role: 'ADMIN',
      name: admin.name,
      superAdmin: admin.super_admin,
      cityIds: admin.all_cities ? await cityIds() : admin.city_ids.map(Number),
    } satisfies Actor;
  };

  const appActor: Authenticator['authenticate'] = async (token, req) => {
    if (token.length > 200) return null;
    const hash = sha256(token);
    const row = await db
      .selectFrom('app_sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select(['u.id', 'u.role', 'u.name', 'u.driver_id', 'u.is_active', 's.revoked_at'])
      .where('s.token_hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.revoked_at || !row.is_active) return null;
    req.appTokenHash = hash;
    return { id: row.id, role: row.role, name: row.name, driverId: row.driver_id };
  };

  return {
    authenticate: (token, req, res) => (token.split('.').length === 3 ? adminActor(token, req, res) : appActor(token, req, res)),
  };
};
