import { z } from 'zod';
import type { DomainEvent } from './decider.js';

/**
 * A module's events as one map, event type → zod schema of its data: the one home of each event's shape.
 * The TypeScript types are inferred from it (`EventsOf`), so an event type cannot exist without a schema and
 * the two cannot drift; the event store checks appended data against it outside production.
 */
export type EventSchemas = Record<string, z.ZodType>;

/** The union of events a schema map describes, as deciders and projectors see them. */
export type EventsOf<M extends EventSchemas> = { [K in keyof M & string]: DomainEvent<K, z.infer<M[K]>> }[keyof M &
  string];

/** A moment as `Date.toISOString` writes it, the form of every time an event records. */
export const instant = z.iso.datetime({ offset: true });
