import { appendToStream } from '../../infra/eventStore/port.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fold } from '../../domain/decider.js';
import { driverDecider } from '../../domain/driver/driver.js';
import { EVENT_SCHEMAS } from '../../domain/events.js';
import type { Upcaster } from '../../domain/upcasters.js';
import { createDb } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import { openEsdbEventStore } from '../../infra/eventStore/esdbEventStore.js';
import { eventStoreMigrations } from '../../infra/eventStore/migrations.js';
import { eventStoreFunctions } from '../../infra/eventStore/functions.js';
import type { EventStore, NewEvent, RecordedEvent } from '../../infra/eventStore/port.js';
import { createPostgresEventStore } from '../../infra/eventStore/postgresEventStore.js';
import { EventSchemaError, withEventVersioning } from '../../infra/eventStore/versioning.js';
import { backends } from '../support/backends.js';

/**
 * Event schemas and versions over each adapter: the versioning layer sits above the store's port, so the
 * raw adapter underneath plays the part of the stored past (rows written before a change of shape).
 */

// A change of shape as a later release would make it: DriverRenamed once stored the name as `fullName`.
const renamedFullName: Upcaster = {
  type: 'DriverRenamed',
  from: 1,
  up: (old: { driverId: number; fullName: string; at: string }) => ({
    driverId: old.driverId,
    name: old.fullName,
    at: old.at,
  }),
};

const event = (type: string, data: unknown): NewEvent => ({ eventId: randomUUID(), type, data });
const AT = '2026-03-01T10:00:00.000Z';

const versioningContract = (open: () => Promise<{ raw: EventStore; teardown(): Promise<void> }>) => {
  let raw: EventStore;
  let teardown: () => Promise<void>;
  let store: EventStore;
  const run = randomUUID().slice(0, 8);
  let n = 0;
  const driverId = () => Number(`${Date.now() % 1_000_000}${++n}`);

  beforeAll(async () => {
    ({ raw, teardown } = await open());
    store = withEventVersioning(raw, { schemas: EVENT_SCHEMAS, upcasters: [renamedFullName], checkAppends: true });
  });
  afterAll(async () => {
    await teardown?.();
  });

  it('an event stored before its shape changed reaches the decider and $all readers in today’s shape', async () => {
    const id = driverId();
    const stream = `vt${run}-driver-${id}`;
    const head = await raw.headPosition();
    // Written as the release before the change wrote it: the old field, no schemaVersion.
    await appendToStream(
      raw,
      stream,
      [
        event('DriverRegistered', { driverId: id, userId: id, phone: '+584120000000', name: null, registeredAt: AT }),
        event('DriverRenamed', { driverId: id, fullName: 'Ana Pérez', at: AT }),
      ],
      { expectedRevision: 'no_stream' },
    );

    const read = await store.readStream(stream);
    expect(read[1].data).toEqual({ driverId: id, name: 'Ana Pérez', at: AT });
    const state = fold(
      driverDecider.evolve,
      driverDecider.initialState,
      read.map((e) => ({ type: e.type, data: e.data }) as Parameters<typeof driverDecider.evolve>[1]),
    );
    expect(state.name).toBe('Ana Pérez');

    // What projectors consume: a page of $all and a subscription.
    const page = (await store.readAll(head, 1000)).filter((e) => e.streamId === stream);
    expect(page.map((e) => e.data)).toEqual(read.map((e) => e.data));
    const sub = store.subscribeToAll(head);
    const seen: RecordedEvent[] = [];
    for await (const e of sub) {
      if (e.streamId !== stream) continue;
      seen.push(e);
      if (seen.length === 2) break;
    }
    await sub.close();
    expect(seen[1].data).toEqual({ driverId: id, name: 'Ana Pérez', at: AT });
  });

  it('an event appended today carries its version and is read as written', async () => {
    const id = driverId();
    const stream = `vt${run}-driver-${id}`;
    await appendToStream(store, stream, [event('DriverRenamed', { driverId: id, name: 'Luis', at: AT })], {
      expectedRevision: 'no_stream',
    });
    const [stored] = await raw.readStream(stream);
    expect(stored.metadata.schemaVersion).toBe(2);
    expect(stored.data).toEqual({ driverId: id, name: 'Luis', at: AT });
    expect((await store.readStream(stream))[0].data).toEqual(stored.data);
  });

  it('refuses a batch holding a malformed event, and writes none of it', async () => {
    const id = driverId();
    const stream = `vt${run}-driver-${id}`;
    const refused = appendToStream(
      store,
      stream,
      [
        event('DriverRenamed', { driverId: id, name: 'Luis', at: AT }),
        event('DriverTankUpdated', { driverId: id, availableLiters: '900', at: AT }),
      ],
      { expectedRevision: 'no_stream' },
    );
    await expect(refused).rejects.toThrow(EventSchemaError);
    await expect(refused).rejects.toThrow(/DriverTankUpdated: availableLiters/);
    expect(await raw.readStream(stream)).toEqual([]);
  });

  it('an upcaster whose result today’s schema refuses fails the read as a fault of ours, not as bad input', async () => {
    const id = driverId();
    const stream = `vt${run}-driver-${id}`;
    await appendToStream(raw, stream, [event('DriverRenamed', { driverId: id, fullName: 'Ana Pérez', at: AT })], {
      expectedRevision: 'no_stream',
    });
    // Forgets the name: the error mapper answers a ZodError as the caller's 422, an EventSchemaError as a 500.
    const faulty: Upcaster = { ...renamedFullName, up: (old: { driverId: number }) => ({ driverId: old.driverId }) };
    const read = withEventVersioning(raw, { schemas: EVENT_SCHEMAS, upcasters: [faulty], checkAppends: true });
    await expect(read.readStream(stream)).rejects.toThrow(EventSchemaError);
    await expect(read.readStream(stream)).rejects.toThrow(/DriverRenamed: name/);
  });

  it('refuses at start a list of upcasters that does not lead from version 1 up, one each', () => {
    const lifted = (from: number): Upcaster => ({ ...renamedFullName, from });
    const open = (upcasters: Upcaster[]) => () =>
      withEventVersioning(raw, { schemas: EVENT_SCHEMAS, upcasters, checkAppends: true });
    expect(open([lifted(2)])).toThrow(/must lead from version 1 up/);
    expect(open([lifted(1), lifted(3)])).toThrow(/must lead from version 1 up/);
    expect(open([lifted(1), lifted(1)])).toThrow(/must lead from version 1 up/);
    expect(open([{ ...renamedFullName, type: 'NoSuchEvent' }])).toThrow(/has no schema/);
    // Given out of order, a whole chain is accepted.
    expect(open([lifted(2), lifted(1)])).not.toThrow();
  });

  it('refuses an event type that has no schema', async () => {
    const stream = `vt${run}-nothing-${driverId()}`;
    await expect(
      appendToStream(store, stream, [event('DriverTeleported', { driverId: 1 })], { expectedRevision: 'any' }),
    ).rejects.toThrow(/DriverTeleported: no schema/);
    expect(await raw.readStream(stream)).toEqual([]);
  });
};

for (const backend of backends) {
  describe(`Event versioning: ${backend.name}`, () => {
    versioningContract(async () => {
      const { pool, drop } = await backend.open();
      const db = createDb(pool);
      await migrateToLatest(db, eventStoreMigrations, eventStoreFunctions);
      const raw = createPostgresEventStore(pool, { pollMs: 20 });
      return {
        raw,
        async teardown() {
          await raw.close();
          await db.destroy();
          await drop?.();
        },
      };
    });
  });
}

const esdbUrl = process.env.ESDB_URL;
if (!esdbUrl) console.log('Event versioning on EventStoreDB skipped: no ESDB_URL');
describe.skipIf(!esdbUrl)('Event versioning: EventStoreDB', () => {
  versioningContract(async () => {
    const raw = await openEsdbEventStore(esdbUrl!);
    return { raw, teardown: () => raw.close() };
  });
});
