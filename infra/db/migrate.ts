import { createHash } from 'node:crypto';
import { Migrator, sql, type Migration } from 'kysely';
import type { Db } from './database.js';
import { isConnectionLoss } from './databaseUnavailable.js';

/** An SQL function defined in one source and created or replaced whenever that source changes. */
export interface StoredFunction {
  name: string;
  /** A `CREATE OR REPLACE FUNCTION` statement. */
  source: string;
}

/** Serialises the stored-function step of concurrent start-ups (two instances, one database). */
const FUNCTIONS_LOCK_KEY = 7340010;

const digestOf = (source: string) => createHash('sha256').update(source).digest('hex');

/**
 * Runs every module's Kysely migrations (tables and data; names are prefixed by number so the order is
 * stable), then creates or replaces each stored function whose source differs from the one last applied,
 * recording its digest in `stored_functions` (a table the event store's migrations create): the repeatable
 * migrations of Flyway and its kin, so a function has one definition.
 */
export const migrateToLatest = async (
  db: Db,
  migrations: Record<string, Migration>,
  functions: StoredFunction[] = [],
): Promise<void> => {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    // Areas are developed side by side; a migration merged later with a lower number still runs.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    // Kysely names a migration only when one of them failed; an error before any ran (the database went
    // away, the migration lock) has no name, and a connection loss stays what it is (start-up waits it out).
    if (isConnectionLoss(error)) throw error;
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(failed ? `Migration ${failed} failed: ${reason}` : `Migrations could not run: ${reason}`);
  }
  if (functions.length > 0) await applyStoredFunctions(db, functions);
};

const applyStoredFunctions = async (db: Db, functions: StoredFunction[]): Promise<void> => {
  try {
    await db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${FUNCTIONS_LOCK_KEY})`.execute(trx);
      const { rows } = await sql<{ name: string; digest: string }>`SELECT name, digest FROM stored_functions`.execute(
        trx,
      );
      const applied = new Map(rows.map((r) => [r.name, r.digest]));
      for (const f of functions) {
        const digest = digestOf(f.source);
        if (applied.get(f.name) === digest) continue;
        await sql.raw(f.source).execute(trx);
        await sql`INSERT INTO stored_functions (name, digest) VALUES (${f.name}, ${digest})
          ON CONFLICT (name) DO UPDATE SET digest = EXCLUDED.digest, applied_at = now()`.execute(trx);
      }
    });
  } catch (err) {
    if (isConnectionLoss(err)) throw err;
    throw new Error(`Stored functions could not be applied: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
};
