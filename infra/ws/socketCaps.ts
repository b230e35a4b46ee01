import type { IncomingMessage } from 'node:http';
import type { Actor } from '../../domain/actor.js';

/** Close code (private range, after HTTP 429) for a socket over the per-user or per-IP cap. */
export const TOO_MANY_SOCKETS_CLOSE = 4429;

export interface SocketCapLimits {
  perUser: number;
  perIp: number;
}

/** Express's compiled 'trust proxy' test: may the hop at `i` (0 = the socket's peer) be trusted to forward? */
export type TrustProxy = (address: string, i: number) => boolean;

/**
 * The client address of an upgrade request as Express's `req.ip` reads it for HTTP requests: the socket's peer,
 * then through X-Forwarded-For only as far as the hops are trusted proxies (TRUST_PROXY). Without a trusted
 * proxy it is the peer, so a forged header counts nothing.
 */
export const clientAddressOf = (req: IncomingMessage, trust: TrustProxy): string => {
  const forwarded = String(req.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
    .reverse();
  const hops = [req.socket.remoteAddress ?? 'unknown', ...forwarded];
  for (let i = 0; i < hops.length - 1; i++) if (!trust(hops[i], i)) return hops[i];
  return hops[hops.length - 1];
};

/**
 * Open sockets per user and per client address on this gateway. Counted when a socket opens (synchronously,
 * after its handshake), so sockets opening together cannot all slip under the cap; released when it closes.
 * Each instance counts its own sockets.
 */
export class SocketCaps {
  private readonly byUser = new Map<string, number>();
  private readonly byIp = new Map<string, number>();

  constructor(private readonly limits: SocketCapLimits) {}

  /** Takes a place for the socket, or says why there is none (the close reason). */
  take(actor: Actor, ip: string): { ok: true; release: () => void } | { ok: false; reason: string } {
    const user = `${actor.role === 'ADMIN' ? 'admin' : 'user'}:${actor.id}`;
    if ((this.byUser.get(user) ?? 0) >= this.limits.perUser)
      return { ok: false, reason: `Too many open websockets for this user (at most ${this.limits.perUser})` };
    if ((this.byIp.get(ip) ?? 0) >= this.limits.perIp)
      return { ok: false, reason: `Too many open websockets from this address (at most ${this.limits.perIp})` };
    bump(this.byUser, user, 1);
    bump(this.byIp, ip, 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        bump(this.byUser, user, -1);
        bump(this.byIp, ip, -1);
      },
    };
  }
}

const bump = (counts: Map<string, number>, key: string, by: number) => {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
};
