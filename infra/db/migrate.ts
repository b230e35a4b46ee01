import { Migrator, type Migration } from 'kysely';
import type { Db } from './database.js';
import { isConnectionLoss } from './databaseUnavailable.js';

/** Runs every module's Kysely migrations; names are prefixed by number so the order is stable. */
export const migrateToLatest = async (db: Db, migrations: Record<string, Migration>): Promise<void> => {
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
};
