import { sql, type Kysely } from 'kysely';
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

  it('creates a stored function once, and replaces it only when its source changes', async () => {
    const db = createDb(await testDatabase('empty'));
    const digestTable = {
      '0001_stored_functions': {
        up: async (d: Kysely<unknown>) =>
          void (await sql`CREATE TABLE stored_functions (name text PRIMARY KEY, digest text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now())`.execute(d)),
      },
    };
    const answering = (n: number) => [
      { name: 'answer', source: `CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS 'SELECT ${n}'` },
    ];
    const answer = async () => (await sql<{ a: number }>`SELECT answer() AS a`.execute(db)).rows[0].a;
    const appliedAt = async () =>
      (await sql<{ at: Date }>`SELECT applied_at AS at FROM stored_functions WHERE name = 'answer'`.execute(db)).rows[0]
        .at;
    try {
      await migrateToLatest(db, digestTable, answering(1));
      expect(await answer()).toBe(1);
      const first = await appliedAt();
      await migrateToLatest(db, digestTable, answering(1));
      expect(await appliedAt()).toEqual(first);
      await migrateToLatest(db, digestTable, answering(2));
      expect(await answer()).toBe(2);
      expect((await appliedAt()).getTime()).toBeGreaterThan(first.getTime());
    } finally {
      await db.destroy();
    }
  });
});
