import { randomUUID } from 'node:crypto';
import { derivedEventId } from './origin.js';

/** How long a client's Idempotency-Key answers the first result of its request. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60_000;

/**
 * The id under which a request books, and whether it was booked already. Without a key every request is
 * new (a random id). With one, the id derives from the request's scope (the route and its target), the
 * admin and the key, so a repeat (a double click, a retry after a lost answer, two at once) books under
 * the same id: the first booking is answered, and a racing twin appends nothing (the event id is taken).
 * A key used again after the window books anew, under the next id of the same chain.
 */
export const idempotentId = async (
  request: { scope: string; adminId: number; key: string | undefined; now: Date },
  bookedAt: (id: string) => Promise<Date | null>,
): Promise<{ id: string; booked: boolean }> => {
  if (request.key === undefined) return { id: randomUUID(), booked: false };
  let id = derivedEventId(`idempotency/${request.scope}/${request.adminId}`, request.key);
  for (;;) {
    const at = await bookedAt(id);
    if (at === null) return { id, booked: false };
    if (request.now.getTime() - at.getTime() < IDEMPOTENCY_WINDOW_MS) return { id, booked: true };
    id = derivedEventId(id, 'next');
  }
};
