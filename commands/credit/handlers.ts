import { randomUUID } from 'node:crypto';
import { decide, evolve, initialState, type CreditCommand, type CreditState } from '../../domain/credit/credit.js';
import type { CreditBucket, CreditEvent } from '../../domain/credit/events.js';
import type { AppContext } from '../../infra/context.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { loadState, type Aggregate, type Decided } from '../handle.js';

/** One credit stream per client (domain/credit/events.ts). */
export const creditStream = (clientId: number): string => `credit-${clientId}`;

export const creditAggregate: Aggregate<CreditState, CreditEvent> = { initialState, evolve };

export const loadCredit = async (ctx: AppContext, clientId: number): Promise<CreditState> =>
  (await loadState(ctx.store, creditStream(clientId), creditAggregate)).state;

/**
 * Runs one credit command. `eventIds` names the events it appends (a process manager derives them from
 * the causing event); without it they get fresh ids.
 */
export const runCredit = async (
  ctx: AppContext,
  clientId: number,
  command: CreditCommand,
  options: { eventIds?: (index: number) => string; metadata?: EventMetadata } = {},
) =>
  ctx.handle(
    creditStream(clientId),
    creditAggregate,
    (s): Decided<CreditEvent>[] => decide(command, s).map((e, i) => ({ ...e, eventId: options.eventIds?.(i) ?? randomUUID() })),
    options.metadata,
  );

/** Back office: POST /admin/customers/{id}/credit/adjust. Returns the id of the event it appended. */
export const adjustCredit = async (
  ctx: AppContext,
  input: { clientId: number; adminId: number; direction: 'CREDIT' | 'DEBIT'; scope: CreditBucket; amountCents: number; reason: string },
  metadata?: EventMetadata,
) => {
  const eventId = randomUUID();
  const { position } = await runCredit(ctx, input.clientId, { type: 'AdjustCredit', ...input, now: ctx.clock.now() }, { metadata, eventIds: () => eventId });
  return { eventId, position };
};
