import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDb } from './database.js';
import { migrateToLatest } from './migrate.js';
import { testDatabase } from '../../tests/support/testDatabases.js';

describe('migrateToLatest', () => {
  it('names the migration that failed', async () => {
    const db = createDb(await testDatabase('empty'));
    try {
      await expect(
        migrateToLatest(db, {
          '0400_ok': { up: async (d) => void (await sql`CREATE TABLE ok_table (id int)`.execute(d)) },
          '0401_broken': { up: async (d) => void (await sql`CREATE TABLE ok_table (id int)`.execute(d)) },
        }),
      ).rejects.toThrow(/^Migration 0401_broken failed: .*ok_table/);
    } finally {
      await db.destroy();
    }
  });

  it('says the migrations could not run when none failed by itself, instead of an empty name', async () => {
    const db = createDb(await testDatabase('empty'));
    // Kysely fails before running any migration (here: reading the list), so no result names one.
    await expect(
      migrateToLatest(
        db,
        new Proxy(
          {},
          {
            ownKeys: () => {
              throw new Error('provider failed');
            },
          },
        ),
      ),
    ).rejects.toThrow(/^Migrations could not run: provider failed$/);
    await db.destroy();
  });
});
