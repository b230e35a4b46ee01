import { sql, type Generated, type Kysely, type Migration, type Selectable } from 'kysely';
import type { Database, Db, Trx } from '../../infra/db/database.js';

/**
 * A client's billing profiles (state-stored): who the invoice of an order is made out to. A client with
 * profiles has exactly one default; orders copy a snapshot of one at creation.
 */
export const ENTITY_TYPES = ['V', 'E', 'J', 'G', 'P', 'C'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export interface BillingProfile {
  id: number;
  clientId: number;
  entityType: EntityType;
  idNumber: string;
  name: string;
  address: string;
  phone: string;
  isDefault: boolean;
  createdAt: Date;
  updatedAt: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    billing_profiles: {
      id: Generated<number>;
      client_id: number;
      entity_type: string;
      id_number: string;
      name: string;
      address: string;
      phone: string;
      is_default: boolean;
      created_at: Date;
      updated_at: Date;
    };
  }
}

export const billingProfileMigrations: Record<string, Migration> = {
  '0230_billing_profiles': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE billing_profiles (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        client_id bigint NOT NULL,
        entity_type text NOT NULL,
        id_number text NOT NULL,
        name text NOT NULL,
        address text NOT NULL,
        phone text NOT NULL,
        is_default boolean NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX billing_profiles_client ON billing_profiles (client_id, id)`.execute(db);
      // The database itself refuses a second default, whatever the application does.
      await sql`CREATE UNIQUE INDEX billing_profiles_one_default ON billing_profiles (client_id)
        WHERE is_default`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE billing_profiles`.execute(db);
    },
  },
};

export const profileFromRow = (r: Selectable<Database['billing_profiles']>): BillingProfile => ({
  id: Number(r.id),
  clientId: Number(r.client_id),
  entityType: r.entity_type as EntityType,
  idNumber: r.id_number,
  name: r.name,
  address: r.address,
  phone: r.phone,
  isDefault: r.is_default,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

export interface BillingProfileInput {
  entityType: EntityType;
  idNumber: string;
  name: string;
  address: string;
  phone: string;
}

/**
 * Every change to a client's profiles runs in one transaction holding a per-client advisory lock, so
 * concurrent requests of one client see each other's default flag and never leave zero or two defaults.
 */
const forClient = <T>(db: Db, clientId: number, work: (trx: Trx) => Promise<T>): Promise<T> =>
  db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`billing_profiles:${clientId}`}, 0))`.execute(trx);
    return work(trx);
  });

const clearDefault = (trx: Trx, clientId: number) =>
  trx
    .updateTable('billing_profiles')
    .set({ is_default: false })
    .where('client_id', '=', clientId)
    .where('is_default', '=', true)
    .execute();

export const listBillingProfiles = async (db: Db, clientId: number): Promise<BillingProfile[]> =>
  (
    await db
      .selectFrom('billing_profiles')
      .selectAll()
      .where('client_id', '=', clientId)
      .orderBy('is_default', 'desc')
      .orderBy('id')
      .execute()
  ).map(profileFromRow);

/** The client's first profile becomes the default whatever isDefault says; a later one only when asked. */
export const createBillingProfile = (
  db: Db,
  clientId: number,
  input: BillingProfileInput & { isDefault: boolean },
  at: Date,
): Promise<BillingProfile> =>
  forClient(db, clientId, async (trx) => {
    const existing = await trx
      .selectFrom('billing_profiles')
      .select('id')
      .where('client_id', '=', clientId)
      .limit(1)
      .executeTakeFirst();
    const isDefault = !existing || input.isDefault;
    if (isDefault) await clearDefault(trx, clientId);
    const row = await trx
      .insertInto('billing_profiles')
      .values({
        client_id: clientId,
        entity_type: input.entityType,
        id_number: input.idNumber,
        name: input.name,
        address: input.address,
        phone: input.phone,
        is_default: isDefault,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return profileFromRow(row);
  });

/**
 * null when the client has no profile with this id. isDefault true moves the flag here; false on the
 * default is 'keep_default' (the flag only moves by making another profile the default).
 */
export const updateBillingProfile = (
  db: Db,
  clientId: number,
  id: number,
  patch: Partial<BillingProfileInput> & { isDefault?: boolean },
  at: Date,
): Promise<BillingProfile | null | 'keep_default'> =>
  forClient(db, clientId, async (trx) => {
    const current = await trx
      .selectFrom('billing_profiles')
      .select('is_default')
      .where('id', '=', id)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (!current) return null;
    if (patch.isDefault === false && current.is_default) return 'keep_default';
    if (patch.isDefault === true && !current.is_default) await clearDefault(trx, clientId);
    const row = await trx
      .updateTable('billing_profiles')
      .set({
        ...(patch.entityType !== undefined && { entity_type: patch.entityType }),
        ...(patch.idNumber !== undefined && { id_number: patch.idNumber }),
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.address !== undefined && { address: patch.address }),
        ...(patch.phone !== undefined && { phone: patch.phone }),
        ...(patch.isDefault === true && { is_default: true }),
        updated_at: at,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return profileFromRow(row);
  });

/** false when the client has no profile with this id. Deleting the default promotes the oldest remaining profile. */
export const deleteBillingProfile = (db: Db, clientId: number, id: number): Promise<boolean> =>
  forClient(db, clientId, async (trx) => {
    const gone = await trx
      .deleteFrom('billing_profiles')
      .where('id', '=', id)
      .where('client_id', '=', clientId)
      .returning('is_default')
      .executeTakeFirst();
    if (!gone) return false;
    if (gone.is_default) {
      const next = await trx
        .selectFrom('billing_profiles')
        .select('id')
        .where('client_id', '=', clientId)
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      if (next) await trx.updateTable('billing_profiles').set({ is_default: true }).where('id', '=', next.id).execute();
    }
    return true;
  });
