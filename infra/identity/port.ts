import type { Request, Response } from 'express';
import type { Actor } from '../../domain/actor.js';

/**
 * Resolves a bearer token to an actor, or null when it is unknown, revoked or expired. It may set
 * response headers (an expired admin JWT is answered with a fresh one in Authorization).
 */
export interface Authenticator {
  authenticate(token: string, req: Request, res: Response): Promise<Actor | null>;
  /**
   * Whether the token of an open websocket still stands (revoked,
   * logged out, idle, user deactivated: null); writes nothing.
   */
  stillValid(token: string): Promise<Actor | null>;
  /**
   * Drops what this instance remembers of a principal's sessions (its cache of app sessions), at once: said
   * by the instance that changed them, before it tells the others over the bus (infra/identity/sessionChanges.ts).
   */
  forget(change: { role: 'ADMIN' | 'USER'; id: number }): void;
}
