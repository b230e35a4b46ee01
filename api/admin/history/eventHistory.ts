import { z } from 'zod';
import type { RecordedEvent } from '../../../infra/eventStore/port.js';

/** One recorded event (the actor's name is filled by withActorNames) as the auditor's replay shows it (docs/domain-rules.md, routes beyond the contract). */
export const HistoryItem = z.object({
  global_position: z.number().int(),
  revision: z.number().int(),
  type: z.string(),
  recorded_at: z.string(),
  actor: z
    .object({
      id: z.union([z.number(), z.string()]).nullable(),
      role: z.string(),
      name: z.string().nullable().openapi({ description: 'The admin, client or driver by name; null when unknown' }),
    })
    .nullable(),
  correlation_id: z.string().nullable(),
  causation_id: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).openapi({
    description: "The event's own fields as recorded (after upcasting); their shape is that of the event `type`",
  }),
});

/**
 * Fields an event records that no history answer shows: the delivery PIN of a live order would let any
 * admin (or anyone reading over one's shoulder) close a delivery that never happened.
 */
const SECRET_FIELDS = new Set(['deliveryPin']);

const shown = (data: unknown): Record<string, unknown> =>
  Object.fromEntries(Object.entries(data as Record<string, unknown>).filter(([k]) => !SECRET_FIELDS.has(k)));

export const toHistoryItem = (e: RecordedEvent): z.infer<typeof HistoryItem> => ({
  global_position: e.globalPosition,
  revision: e.streamPosition,
  type: e.type,
  recorded_at: e.recordedAt.toISOString(),
  actor: e.metadata?.actor ? { id: e.metadata.actor.id ?? null, role: e.metadata.actor.role, name: null } : null,
  correlation_id: e.metadata?.correlationId || null,
  causation_id: e.metadata?.causationId || null,
  data: shown(e.data),
});
