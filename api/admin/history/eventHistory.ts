import { z } from 'zod';
import type { RecordedEvent } from '../../../infra/eventStore/port.js';

/** One recorded event as the auditor's replay shows it (docs/domain-rules.md, routes beyond the contract). */
export const HistoryItem = z.object({
  global_position: z.number().int(),
  revision: z.number().int(),
  type: z.string(),
  recorded_at: z.string(),
  actor: z.object({ id: z.union([z.number(), z.string()]).nullable(), role: z.string() }).nullable(),
  correlation_id: z.string().nullable(),
  causation_id: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).openapi({
    description: "The event's own fields as recorded (after upcasting); their shape is that of the event `type`",
  }),
});

export const toHistoryItem = (e: RecordedEvent): z.infer<typeof HistoryItem> => ({
  global_position: e.globalPosition,
  revision: e.streamPosition,
  type: e.type,
  recorded_at: e.recordedAt.toISOString(),
  actor: e.metadata?.actor ? { id: e.metadata.actor.id ?? null, role: e.metadata.actor.role } : null,
  correlation_id: e.metadata?.correlationId || null,
  causation_id: e.metadata?.causationId || null,
  data: e.data as Record<string, unknown>,
});
