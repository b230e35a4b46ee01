/**
 * Who asks for a command: the domain decides access on it (an order's party, the assigned driver), so it
 * lives here; the API only authenticates it (api/auth.ts).
 */
export type Role = 'CLIENT' | 'DRIVER' | 'ADMIN';

/** Who is calling: an app user (CLIENT or DRIVER, opaque token) or an admin (JWT). */
export interface Actor {
  id: number;
  role: Role;
  name?: string | null;
  /** Admins only. */
  superAdmin?: boolean;
  /** Admins only: reads what an audit needs in every city and changes nothing (docs/decisions/0085). */
  auditor?: boolean;
  cityIds?: number[];
  /** Driver profile id for DRIVER actors that have one. */
  driverId?: number | null;
}
