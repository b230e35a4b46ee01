import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';

export interface AdminClaims {
  adminId: number;
  jti: string;
  /** Seconds since the epoch. */
  iat: number;
  exp: number;
  /** When the chain of refreshed tokens began (bounds renewal of expired tokens). */
  oat: number;
  /** Issue instant in milliseconds: a password change refuses every token issued before it. */
  iatMs: number;
}

export interface IssuedJwt {
  token: string;
  claims: AdminClaims;
}

export type VerifiedJwt = { state: 'valid' | 'expired'; claims: AdminClaims } | null;

export const adminJwt = (config: Config, clock: Clock) => {
  const key = new TextEncoder().encode(config.JWT_SECRET);
  const ttlSeconds = config.ADMIN_JWT_TTL_MINUTES * 60;

  const claimsOf = (p: Record<string, unknown>): AdminClaims | null => {
    const adminId = Number(p.sub);
    if (
      !Number.isInteger(adminId) ||
      typeof p.jti !== 'string' ||
      typeof p.iat !== 'number' ||
      typeof p.exp !== 'number'
    )
      return null;
    return {
      adminId,
      jti: p.jti,
      iat: p.iat,
      exp: p.exp,
      oat: typeof p.oat === 'number' ? p.oat : p.iat,
      iatMs: typeof p.iat_ms === 'number' ? p.iat_ms : p.iat * 1000,
    };
  };

  return {
    ttlSeconds,
    /**
     * An auditor's token says so (`auditor: true`) for the console to read; the service decides on the account
     * as stored, so a change of rights takes effect before the token expires.
     */
    async issue(adminId: number, oat?: number, auditor = false): Promise<IssuedJwt> {
      const iatMs = clock.now().getTime();
      const iat = Math.floor(iatMs / 1000);
      const claims: AdminClaims = { adminId, jti: randomUUID(), iat, exp: iat + ttlSeconds, oat: oat ?? iat, iatMs };
      const token = await new SignJWT({ oat: claims.oat, iat_ms: iatMs, typ: 'admin', ...(auditor ? { auditor } : {}) })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(adminId))
        .setJti(claims.jti)
        .setIssuedAt(iat)
        .setExpirationTime(claims.exp)
        .sign(key);
      return { token, claims };
    },
    /** Signature first: an expired token is told apart only when it is authentic. */
    async verify(token: string): Promise<VerifiedJwt> {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          currentDate: clock.now(),
          clockTolerance: 0,
        });
        if (payload.typ !== 'admin') return null;
        const claims = claimsOf(payload as Record<string, unknown>);
        return claims && { state: 'valid', claims };
      } catch (err) {
        if (err instanceof errors.JWTExpired && err.payload.typ === 'admin') {
          const claims = claimsOf(err.payload as Record<string, unknown>);
          return claims && { state: 'expired', claims };
        }
        return null;
      }
    },
  };
};

export type AdminJwt = ReturnType<typeof adminJwt>;
