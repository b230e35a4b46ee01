import { randomUUID } from 'node:crypto';
import { creditDecider, type AdjustCredit } from '../../domain/credit/credit.js';
import { creditStream } from '../../domain/credit/events.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';

type Deps = Pick<CommandDeps, 'clock' | 'handle'>;

/**
 * Back office: POST /admin/customers/{id}/credit/adjust. Returns the id of the event it appended: the
 * request's own id when it has one (commands/idempotency.ts), so a repeat is the store's no-op.
 */
export const adjustCredit = async (
  ctx: Deps,
  input: Omit<AdjustCredit, 'type' | 'now'>,
  metadata?: EventMetadata,
  eventId: string = randomUUID(),
) => {
  const { position } = await ctx.handle(
    creditDecider,
    creditStream(input.clientId),
    { type: 'AdjustCredit', ...input, now: ctx.clock.now() },
    { metadata, eventIds: () => eventId },
  );
  return { eventId, position };
};
