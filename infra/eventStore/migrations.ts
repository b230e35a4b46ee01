import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The event store's tables. Its SQL functions (the append, the reader of $all) are defined once in
 * `functions.ts` and created or replaced after the migrations whenever their text changes, so a migration
 * here holds tables and data only. Migrations that once created functions keep their names (a database
 * records what it ran) with nothing left to do; 0012 drops the functions and table no longer used.
 *
 * Events carry the id of the transaction that wrote them (docs/decisions/0001-event-store-appends.md,
 * 0002-all-reader-visibility.md): a reader of $all stops below the oldest append still in flight.
 */
const nothingLeft: Migration = {
  async up() {
    // Its function moved to infra/eventStore/functions.ts.
  },
};

export const eventStoreMigrations: Record<string, Migration> = {
  '0001_event_store': {
    async up(db: Kysely<unknown>) {
      await sql`
        CREATE TABLE events (
          global_position bigserial PRIMARY KEY,
          transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
          event_id uuid NOT NULL UNIQUE,
          stream_id text NOT NULL,
          stream_position bigint NOT NULL,
          type text NOT NULL,
          data jsonb NOT NULL,
          metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
          recorded_at timestamptz NOT NULL DEFAULT now(),
          UNIQUE (stream_id, stream_position)
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE events`.execute(db);
    },
  },
  '0005_event_store_visibility': nothingLeft,
  '0007_event_store_fewer_plans': nothingLeft,
  '0008_event_store_append_with_rows': nothingLeft,
  '0009_event_store_apply_rows': nothingLeft,
  '0010_event_store_append_positions': nothingLeft,
  '0011_event_store_row_statements': nothingLeft,
  /**
   * One append for any number of streams (`es_append_streams`) replaced the single-stream append and the
   * statement-rewriting path that carried inline rows in its statement (record 0101).
   */
  '0012_event_store_one_append': {
    async up(db: Kysely<unknown>) {
      await sql`DROP FUNCTION IF EXISTS es_append_with(text, bigint, jsonb, jsonb)`.execute(db);
      await sql`DROP FUNCTION IF EXISTS es_apply_rows(jsonb)`.execute(db);
      await sql`DROP FUNCTION IF EXISTS es_append(text, bigint, jsonb)`.execute(db);
      await sql`DROP TABLE IF EXISTS es_row_statements`.execute(db);
    },
  },
  /** The digest of each stored function as last applied (infra/db/migrate.ts). */
  '0013_stored_functions': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE stored_functions (name text PRIMARY KEY, digest text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now())`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE stored_functions`.execute(db);
    },
  },
};
