import type { BusMessage } from '../infra/bus/port.js';
import type { RowChange } from '../infra/eventStore/postgresEventStore.js';
import type { NewEvent, RecordedEvent } from '../infra/eventStore/port.js';
import type { Projector } from './projector.js';
import { NotRecordable, PositionOnAppend, recordWrites } from './recordedRows.js';
import { applyEvents } from './runner.js';

/**
 * The inline read models' row changes for events not yet appended, as statements the append function
 * runs in the append's own statement (`es_append_with`, docs/decisions/0044-one-round-trip-per-command.md).
 * The projectors' handlers run as they always do, on a recording connection (recordedRows.ts); a handler
 * that reads, computes with an event's log position, or needs its stream position or recorded time (which
 * exist only once the events are appended), gives up the recording, and the event store then takes the
 * transaction of one statement per row. A log position written as it stands travels as a placeholder.
 */

/**
 * An event as a handler meets it before it is appended: its log position is a placeholder the append function
 * fills (recordedRows.ts), and the rest of what only the append knows throws.
 */
const beforeAppend = (streamId: string, e: NewEvent): RecordedEvent => {
  const event = {
    eventId: e.eventId,
    type: e.type,
    data: e.data,
    metadata: e.metadata ?? {},
    streamId,
    globalPosition: new PositionOnAppend(e.eventId),
  };
  for (const key of ['streamPosition', 'recordedAt'])
    Object.defineProperty(event, key, {
      get() {
        throw new NotRecordable(`${key} is known once appended`);
      },
    });
  return event as unknown as RecordedEvent;
};

/** The row changes and the messages the projectors' handlers make of `events`; null when one gives up. */
export const recordRows = async (
  projectors: Projector[],
  streamId: string,
  events: NewEvent[],
): Promise<{ rows: RowChange[]; emitted: BusMessage[][] } | null> => {
  const pending = events.map((e) => beforeAppend(streamId, e));
  const emitted = projectors.map(() => [] as BusMessage[]);
  const rows = await recordWrites(async (trx) => {
    for (const [i, p] of projectors.entries()) await applyEvents(trx, p, pending, (m) => emitted[i].push(m));
  });
  return rows && { rows, emitted };
};
