import { randomUUID } from 'node:crypto';
import type { Migration } from 'kysely';
import { createDb, type Db } from '../../infra/db/database.js';
import { migrateToLatest } from '../../infra/db/migrate.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import type { Projector } from '../../projections/projector.js';
import { applyEvents } from '../../projections/runner.js';
import { testDatabase } from './testDatabases.js';

/**
 * Projector tests on a test database of the embedded PostgreSQL: given events (as a stream would record them), the projector
 * applies them in one transaction the way the runner does; then the test reads the rows.
 */
export interface ProjectorUnderTest {
  db: Db;
  given(streamId: string, events: { type: string; data: unknown }[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Events as streams would record them, numbered from `after` in the log: each stream's positions follow on
 * from its earlier events, and every event gets the next log position.
 */
export const eventRecorder = (after = 0) => {
  let globalPosition = after;
  const streamPositions = new Map<string, number>();
  return (streamId: string, events: { type: string; data: unknown }[]): RecordedEvent[] =>
    events.map((e) => {
      const streamPosition = streamPositions.get(streamId) ?? 0;
      streamPositions.set(streamId, streamPosition + 1);
      return {
        eventId: randomUUID(),
        type: e.type,
        data: e.data,
        metadata: {},
        streamId,
        streamPosition,
        globalPosition: ++globalPosition,
        recordedAt: new Date(),
      };
    });
};

export const projectorOnEmbedded = async (
  projector: Projector,
  migrations: Record<string, Migration>,
): Promise<ProjectorUnderTest> => {
  const db = createDb(await testDatabase('empty'));
  await migrateToLatest(db, migrations);
  const record = eventRecorder();
  return {
    db,
    async given(streamId, events) {
      const recorded = record(streamId, events);
      await db.transaction().execute((trx) => applyEvents(trx, projector, recorded));
    },
    close: () => db.destroy(),
  };
};
