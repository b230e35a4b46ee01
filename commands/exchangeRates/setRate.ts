import { randomUUID } from 'node:crypto';
import { exchangeRateStream, type ExchangeRateSet } from '../../domain/exchangeRate/events.js';
import type { Actor } from '../../domain/actor.js';
import { usdToCents } from '../../domain/money.js';
import type { CommandDeps } from '../deps.js';
import { recordExchangeRate, type ExchangeRate, type RateCurrency } from '../../stores/exchangeRates/exchangeRates.js';
import { metadataOf } from '../origin.js';

type Deps = Pick<CommandDeps, 'clock' | 'db' | 'store'>;

/**
 * An admin's new official rate, in force from now: first the event naming the admin (the record of who
 * changed what every bolivar amount is computed from), then the row that puts it in force. A failure in
 * between leaves a recorded change that never took force, which the admin sees fail and repeats; never a
 * rate in force that nobody is recorded to have set.
 */
export const setExchangeRate = async (
  ctx: Deps,
  input: { currency: RateCurrency; rate: number },
  actor: Actor,
  requestId?: unknown,
): Promise<ExchangeRate> => {
  const effectiveAt = ctx.clock.now();
  const event: ExchangeRateSet = {
    type: 'ExchangeRateSet',
    data: {
      currency: input.currency,
      rate: String(input.rate),
      rateCents: usdToCents(input.rate),
      effectiveAt: effectiveAt.toISOString(),
      adminId: actor.id,
    },
  };
  await ctx.store.appendToStream(
    exchangeRateStream(input.currency),
    [{ eventId: randomUUID(), ...event, metadata: metadataOf(actor, requestId) }],
    { expectedRevision: 'any' },
  );
  return recordExchangeRate(ctx.db, { currency: input.currency, rate: input.rate, effectiveAt, createdBy: actor.id });
};
