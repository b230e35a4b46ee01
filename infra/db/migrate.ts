import { Migrator, type Migration } from 'kysely';
import type { Db } from './database.js';

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
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`Migration ${failed ?? ''} failed: ${(error as Error).message ?? String(error)}`);
  }
};
