import { randomUUID } from 'node:crypto';
import { exchangeRateStream, type ExchangeRateSet } from '../../domain/exchangeRate/events.js';
import type { Actor } from '../../domain/actor.js';
import { usdToCents } from '../../domain/money.js';
import type { CommandDeps } from '../deps.js';
import { ConcurrencyError, appendToStream } from '../../infra/eventStore/port.js';
import {
  hasAnyRate,
  recordExchangeRate,
  seedOfficialRate,
  type ExchangeRate,
  type RateCurrency,
} from '../../stores/exchangeRates/exchangeRates.js';
import { derivedEventId, metadataOf } from '../origin.js';

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
  await appendToStream(
    ctx.store,
    exchangeRateStream(input.currency),
    [{ eventId: randomUUID(), ...event, metadata: metadataOf(actor, requestId) }],
    { expectedRevision: 'any' },
  );
  return recordExchangeRate(ctx.db, { currency: input.currency, rate: input.rate, effectiveAt, createdBy: actor.id });
};

/**
 * The start-up rate (OFFICIAL_RATE_VES, or the development rate) when the series is empty, recorded like an
 * admin's (docs/decisions/0055): the event first, with no admin, then the row. The event has one id and
 * goes only into an empty stream, so instances starting together, or again after a restart, record it once;
 * an admin's rate already recorded takes precedence. The row is put in force from the event the log holds,
 * so a start that crashed between the two is finished by the next one, at the instant first recorded.
 * True for the instance that put it in force.
 */
export const seedExchangeRate = async (ctx: Deps, rate: number): Promise<boolean> => {
  if (await hasAnyRate(ctx.db)) return false;
  const stream = exchangeRateStream('VES');
  const seedId = derivedEventId(stream, 'start-up seed');
  const event: ExchangeRateSet = {
    type: 'ExchangeRateSet',
    data: {
      currency: 'VES',
      rate: String(rate),
      rateCents: usdToCents(rate),
      effectiveAt: ctx.clock.now().toISOString(),
      adminId: null,
    },
  };
  try {
    await appendToStream(
      ctx.store,
      stream,
      [{ eventId: seedId, ...event, metadata: { actor: { id: null, role: 'SYSTEM' } } }],
      { expectedRevision: 'no_stream' },
    );
  } catch (err) {
    // The stream holds another rate (an admin's): no seed.
    if (!(err instanceof ConcurrencyError)) throw err;
  }
  const [first] = await ctx.store.readStream(stream);
  if (first?.eventId !== seedId) return false;
  const recorded = first.data as ExchangeRateSet['data'];
  return seedOfficialRate(ctx.db, { rate: Number(recorded.rate), effectiveAt: new Date(recorded.effectiveAt) });
};
