import type { Db, Trx } from '../infra/db/database.js';
import type { RecordedEvent } from '../infra/eventStore/port.js';
import type { BusMessage } from '../infra/bus/port.js';

/**
 * An event as a registry of handlers by type meets it: each handler knows its own event's data, the
 * registry cannot say which, and a handler typed for one event must still be assignable to it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: parameter bivariance of a registry
export type AnyRecordedEvent = RecordedEvent<string, any>;

/** `emit` hands a message to the runner, which publishes it once the handler's transaction has committed. */
export type EventHandler = (trx: Trx, event: AnyRecordedEvent, emit: (message: BusMessage) => void) => Promise<unknown>;

/** An event's optional ISO instant as a timestamptz column takes it. */
export const dateOrNull = (iso: string | null): Date | null => (iso === null ? null : new Date(iso));

/**
 * A projector maps events to read-model rows and nothing else. The runner owns transactions,
 * checkpoints, batching and publishing. Read-model tables must not use serial columns (a rebuild
 * recreates them with LIKE … INCLUDING ALL): ids come from events, or from identity columns.
 */
export interface Projector {
  name: string;
  /** The tables this projector alone writes; a rebuild recreates exactly these. */
  tables: string[];
  handlers: Record<string, EventHandler>;
  /**
   * Optional faster path: all handled events of one batch at once (bulk writes). `memory` (the runner's, when
   * it keeps one) holds what earlier batches of the same runner looked up or wrote, to be read instead of the
   * tables: the runner hands it over only while its batches follow one another, and drops it when one fails
   * or the checkpoint moves.
   */
  applyBatch?: (
    trx: Trx,
    events: RecordedEvent[],
    emit: (message: BusMessage) => void,
    memory?: BatchMemory,
  ) => Promise<void>;
  /**
   * Asynchronous: the runner keeps it, writes never wait for it, and its readers wait for it to reach the
   * head of the log when they read (ctx.caughtUp). For the fan-out and the expensive read models that no
   * write's answer reads (reports, the inbox). Every other read model is applied inline, in the append's
   * transaction (projections/inline.ts), wherever the event store allows it.
   */
  settledOnRead?: boolean;
  /** Messages that follow from the event alone, fanned out after the batch that holds it has committed. */
  publish?: (event: AnyRecordedEvent, db: Db) => Promise<BusMessage[]> | BusMessage[];
}

/** What a projector's batches keep for the next (projections/runner.ts): rows it owns, by a key of its own. */
export type BatchMemory = Map<string, unknown>;

export const projector = (name: string, spec: Omit<Projector, 'name'>): Projector => ({ name, ...spec });

export const handles = (p: Projector, e: RecordedEvent): boolean => Object.hasOwn(p.handlers, e.type);
