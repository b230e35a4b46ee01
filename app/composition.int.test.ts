import { appendToStream } from '../infra/eventStore/port.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../infra/config.js';
import { createDb } from '../infra/db/database.js';
import { migrateToLatest } from '../infra/db/migrate.js';
import type { SqlPool } from '../infra/db/sqlPool.js';
import { eventStoreMigrations } from '../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../infra/eventStore/functions.js';
import type { EventStore } from '../infra/eventStore/port.js';
import { createPostgresEventStore } from '../infra/eventStore/postgresEventStore.js';
import { EventSchemaError } from '../infra/eventStore/versioning.js';
import { backends } from '../tests/support/backends.js';
import { openStore, type StoreAdapters } from './composition.js';

/**
 * The composition opens every backend's store behind the event versioning. Each adapter is injected here as a
 * PostgreSQL store on a database of the test's own, so the EventStoreDB path is walked without its server:
 * what is checked is what the composition wraps around whichever adapter it picked.
 */
for (const backend of backends) {
  describe(`openStore on ${backend.name}`, () => {
    let pool: SqlPool;
    let drop: (() => Promise<void>) | undefined;
    const opened: string[] = [];
    const adapters: StoreAdapters = {
      postgres(p, options) {
        opened.push('postgres');
        return createPostgresEventStore(p, options);
      },
      async esdb() {
        opened.push('esdb');
        return createPostgresEventStore(pool, { pollMs: 20 });
      },
    };

    beforeAll(async () => {
      ({ pool, drop } = await backend.open());
      await migrateToLatest(createDb(pool), eventStoreMigrations, eventStoreFunctions);
    });
    afterAll(async () => {
      await pool.end();
      await drop?.();
    });

    const cases = [
      { adapter: 'postgres', env: {} },
      { adapter: 'esdb', env: { ESDB_URL: 'esdb://127.0.0.1:1?tls=false' } },
    ];
    for (const { adapter, env } of cases) {
      describe(`the ${adapter} adapter`, () => {
        let store: EventStore;
        beforeAll(async () => {
          opened.length = 0;
          store = await openStore(loadConfig({ APP_ENV: 'test', ...env }), pool, undefined, adapters);
          expect(opened).toEqual([adapter]);
        });

        it('refuses an event whose data does not match its schema, and writes nothing of its batch', async () => {
          const stream = `composition-${randomUUID()}`;
          await expect(
            appendToStream(
              store,
              stream,
              [{ eventId: randomUUID(), type: 'DriverRenamed', data: { driverId: 'not a number' } }],
              { expectedRevision: 'no_stream' },
            ),
          ).rejects.toBeInstanceOf(EventSchemaError);
          expect(await store.readStream(stream)).toEqual([]);
        });

        it('stamps each appended event with its schema version', async () => {
          const stream = `composition-${randomUUID()}`;
          const data = { driverId: 7, name: 'Ana Pérez', at: '2026-03-01T10:00:00.000Z' };
          await appendToStream(store, stream, [{ eventId: randomUUID(), type: 'DriverRenamed', data }], {
            expectedRevision: 'no_stream',
          });
          const [stored] = await store.readStream(stream);
          expect(stored.metadata.schemaVersion).toBe(1);
        });
      });
    }
  });
}
