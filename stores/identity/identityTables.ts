import { sql, type Generated, type Kysely, type Migration } from 'kysely';

/**
 * State-stored identity data (users and sessions are not event-sourced, docs/architecture.md): app users, their
 * sessions and one-time codes, rate-limit windows, admins with their one-time mail tokens, the JWT
 * blacklist, cities, and drivers' idle positions (too frequent to be events).
 */
/**
 * The largest city id: `cities.id` (and every `city_id` that refers to it) is a 4-byte `integer`, so no
 * city has an id beyond 2^31 − 1 and a request naming one is refused before it reaches a query.
 */
export const MAX_CITY_ID = 2_147_483_647;

declare module '../../infra/db/database.js' {
  interface Database {
    users: {
      id: Generated<number>;
      phone: string;
      name: string | null;
      email: string | null;
      role: 'CLIENT' | 'DRIVER';
      driver_id: number | null;
      is_active: Generated<boolean>;
      created_at: Generated<Date>;
      updated_at: Generated<Date>;
    };
    app_sessions: {
      token_hash: string;
      user_id: number;
      created_at: Date;
      revoked_at: Date | null;
      /** Refreshed at most hourly; a token unused for APP_TOKEN_IDLE_DAYS is refused. */
      last_used_at: Date;
    };
    otp_codes: {
      phone: string;
      code_hash: string;
      expires_at: Date;
      attempts: Generated<number>;
      created_at: Date;
    };
    /** rate-limiter-flexible's PostgreSQL store (commands/identity/rateLimit.ts); expire is epoch ms. */
    rate_limits: {
      key: string;
      points: number;
      expire: number | null;
    };
    admins: {
      id: Generated<number>;
      email: string;
      name: string;
      password_hash: string;
      super_admin: boolean;
      /** Reads what an audit needs in every city, writes nothing (never a super admin; always all cities). */
      auditor: Generated<boolean>;
      all_cities: boolean;
      city_ids: number[];
      confirmed_at: Date | null;
      is_active: Generated<boolean>;
      pending_email: string | null;
      /** JWTs issued before this instant are refused (password changed). */
      tokens_valid_after: Date | null;
      created_at: Date;
    };
    admin_tokens: {
      token_hash: string;
      admin_id: number;
      purpose: 'confirm_account' | 'recover_password' | 'confirm_email';
      email: string;
      expires_at: Date;
      used_at: Date | null;
      created_at: Date;
    };
    jwt_blacklist: {
      jti: string;
      admin_id: number;
      /** End of the grace period: after it the token is refused. */
      usable_until: Date;
      expires_at: Date;
      /** A logged-out token never mints another; one replaced by a refresh may, within its grace. */
      ended_by: 'logout' | 'replaced';
    };
    cities: { id: number; name: string; sort_order: number };
    driver_locations: {
      driver_id: number;
      latitude: number;
      longitude: number;
      at: Date;
      /** The distance budget left once this fix was accepted, km (domain/driver/position.ts); null: full. */
      budget_km: number | null;
    };
  }
}

/** Venezuelan cities, Caracas first; ids are stable so that seeds and tests can name them. */
export const SEEDED_CITIES: { id: number; name: string }[] = [
  { id: 1, name: 'Caracas' },
  { id: 2, name: 'Maracaibo' },
  { id: 3, name: 'Valencia' },
  { id: 4, name: 'Barquisimeto' },
  { id: 5, name: 'Maracay' },
  { id: 6, name: 'Ciudad Guayana' },
  { id: 7, name: 'Barcelona' },
  { id: 8, name: 'Maturín' },
  { id: 9, name: 'Puerto La Cruz' },
  { id: 10, name: 'Mérida' },
  { id: 11, name: 'San Cristóbal' },
  { id: 12, name: 'Cumaná' },
  { id: 13, name: 'Barinas' },
  { id: 14, name: 'Los Teques' },
  { id: 15, name: 'Punto Fijo' },
];

export const identityMigrations: Record<string, Migration> = {
  '0100_identity_users_sessions': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE SEQUENCE driver_id_seq`.execute(db);
      await sql`CREATE TABLE users (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        phone text NOT NULL UNIQUE,
        name text,
        email text UNIQUE,
        role text NOT NULL CHECK (role IN ('CLIENT', 'DRIVER')),
        driver_id bigint UNIQUE,
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
      await sql`CREATE TABLE app_sessions (
        token_hash text PRIMARY KEY,
        user_id bigint NOT NULL REFERENCES users (id),
        created_at timestamptz NOT NULL,
        revoked_at timestamptz
      )`.execute(db);
      await sql`CREATE INDEX app_sessions_user ON app_sessions (user_id)`.execute(db);
      await sql`CREATE TABLE otp_codes (
        phone text PRIMARY KEY,
        code_hash text NOT NULL,
        expires_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE TABLE rate_limit_hits (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        key text NOT NULL,
        at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX rate_limit_hits_key ON rate_limit_hits (key, at)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE rate_limit_hits, otp_codes, app_sessions, users`.execute(db);
      await sql`DROP SEQUENCE driver_id_seq`.execute(db);
    },
  },
  '0101_identity_admins': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE admins (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        email text NOT NULL UNIQUE,
        name text NOT NULL,
        password_hash text NOT NULL,
        super_admin boolean NOT NULL,
        all_cities boolean NOT NULL,
        city_ids integer[] NOT NULL DEFAULT '{}',
        confirmed_at timestamptz,
        is_active boolean NOT NULL DEFAULT true,
        pending_email text,
        tokens_valid_after timestamptz,
        created_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE TABLE admin_tokens (
        token_hash text PRIMARY KEY,
        admin_id bigint NOT NULL REFERENCES admins (id),
        purpose text NOT NULL,
        email text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE TABLE jwt_blacklist (
        jti text PRIMARY KEY,
        admin_id bigint NOT NULL,
        usable_until timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE jwt_blacklist, admin_tokens, admins`.execute(db);
    },
  },
  '0102_cities_driver_locations': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE cities (id integer PRIMARY KEY, name text NOT NULL UNIQUE,
        sort_order integer NOT NULL)`.execute(db);
      for (const [i, c] of SEEDED_CITIES.entries()) {
        await sql`INSERT INTO cities (id, name, sort_order) VALUES (${c.id}, ${c.name}, ${i})`.execute(db);
      }
      await sql`CREATE TABLE driver_locations (
        driver_id bigint PRIMARY KEY,
        latitude double precision NOT NULL,
        longitude double precision NOT NULL,
        at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX driver_locations_lat_lng ON driver_locations (latitude, longitude)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE driver_locations, cities`.execute(db);
    },
  },
  /** The limits moved to rate-limiter-flexible: its table, in its layout, replaces the hand-written window's. */
  '0103_identity_rate_limits': {
    async up(db: Kysely<unknown>) {
      await sql`DROP TABLE rate_limit_hits`.execute(db);
      await sql`CREATE TABLE rate_limits (
        key text PRIMARY KEY,
        points integer NOT NULL DEFAULT 0,
        expire bigint
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE rate_limits`.execute(db);
      await sql`CREATE TABLE rate_limit_hits (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        key text NOT NULL,
        at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX rate_limit_hits_key ON rate_limit_hits (key, at)`.execute(db);
    },
  },
  /** Sessions end for good: logout is told apart from replacement, and app tokens idle out. */
  '0104_identity_session_ends': {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE jwt_blacklist ADD COLUMN ended_by text NOT NULL DEFAULT 'replaced'`.execute(db);
      await sql`ALTER TABLE app_sessions ADD COLUMN last_used_at timestamptz`.execute(db);
      await sql`UPDATE app_sessions SET last_used_at = created_at`.execute(db);
      await sql`ALTER TABLE app_sessions ALTER COLUMN last_used_at SET NOT NULL`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`ALTER TABLE app_sessions DROP COLUMN last_used_at`.execute(db);
      await sql`ALTER TABLE jwt_blacklist DROP COLUMN ended_by`.execute(db);
    },
  },
  /** Driver positions spend a distance budget: what the last accepted fix left of it is kept with the fix. */
  '0105_driver_position_budget': {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE driver_locations ADD COLUMN budget_km double precision`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`ALTER TABLE driver_locations DROP COLUMN budget_km`.execute(db);
    },
  },
  /** Auditors (docs/decisions/0085): an admin that reads only; never a super admin, always every city. */
  '0106_identity_admin_auditors': {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE admins ADD COLUMN auditor boolean NOT NULL DEFAULT false`.execute(db);
      await sql`ALTER TABLE admins ADD CONSTRAINT admins_auditor_reads_only
        CHECK (NOT auditor OR (NOT super_admin AND all_cities))`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`ALTER TABLE admins DROP COLUMN auditor`.execute(db);
    },
  },
};
