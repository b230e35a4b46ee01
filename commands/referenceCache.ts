import type { Bus } from '../infra/bus/port.js';
import type { Clock } from '../infra/clock.js';
import type { Logger } from '../infra/logger.js';
import type { ReferenceData } from './referenceData.js';

/**
 * Reference data kept in each instance's memory (docs/decisions/0045-caches-and-invalidation.md): payment
 * methods, the rate in force, clients' billing snapshots, the city centres and the campaigns switched on
 * (which deliveries may earn a milestone grant), the records every order reads
 * and almost nothing writes. Whoever writes one says so with `announceReferenceChange`: its own instance
 * forgets at once, the others when the bus tells them; an entry lives REFERENCE_CACHE_MS at most, the bound
 * on staleness if a message is lost. Drivers and orders are read models that every flow changes: never kept.
 */
export const REFERENCE_CHANGES = 'reference.changed';
export const REFERENCE_CACHE_MS = 10_000;

export type ReferenceChange =
  | { kind: 'paymentMethods' }
  | { kind: 'rates' }
  | { kind: 'billing'; clientId: number }
  | { kind: 'cities' }
  | { kind: 'promotions' };

/** Reference data that can be told a record changed. */
export interface CachedReferenceData extends ReferenceData {
  forget(change: ReferenceChange): void;
}

interface Entry<T> {
  value: T;
  until: number;
}

/**
 * Entries by key, each living `ttlMs`; the oldest go first past `size`. A load that was under way when entries
 * were forgotten may have read the old record: its answer is returned but not kept (the generation moved).
 */
const cacheOf = <T>(clock: Clock, ttlMs: number, size = 10_000) => {
  const entries = new Map<string, Entry<T>>();
  let generation = 0;
  return {
    /** Forgets the entries whose key matches (all by default). */
    forget(matches: (key: string) => boolean = () => true): void {
      generation += 1;
      for (const key of entries.keys()) if (matches(key)) entries.delete(key);
    },
    async get(key: string, load: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
      const hit = entries.get(key);
      const now = clock.now().getTime();
      if (hit && now < hit.until) return hit.value;
      const loading = generation;
      const value = await load();
      if (keep(value) && loading === generation) {
        if (entries.size >= size) entries.delete(entries.keys().next().value!);
        entries.set(key, { value, until: now + ttlMs });
      }
      return value;
    },
  };
};

export const cachedReferenceData = (inner: ReferenceData, clock: Clock, bus: Bus): CachedReferenceData => {
  const methods = cacheOf<Awaited<ReturnType<ReferenceData['paymentMethod']>>>(clock, REFERENCE_CACHE_MS);
  const billing = cacheOf<Awaited<ReturnType<ReferenceData['billingSnapshot']>>>(clock, REFERENCE_CACHE_MS);
  const cities = cacheOf<Awaited<ReturnType<ReferenceData['cityCentres']>>>(clock, REFERENCE_CACHE_MS);
  const campaigns = cacheOf<Awaited<ReturnType<ReferenceData['switchedOnCampaigns']>>>(clock, REFERENCE_CACHE_MS);
  // The rate last found in force. A rate is recorded in force from the moment it is written (never ahead),
  // and every write is announced, so until the next announcement it is the rate in force at any later time.
  let rate: { value: NonNullable<Awaited<ReturnType<ReferenceData['officialRate']>>>; until: number } | null = null;
  // Moves when rates are forgotten: a lookup under way then may have read the old rate, and is not kept.
  let rateGeneration = 0;

  const forget = (change: ReferenceChange) => {
    if (change.kind === 'paymentMethods') methods.forget();
    if (change.kind === 'rates') {
      rate = null;
      rateGeneration += 1;
    }
    if (change.kind === 'cities') cities.forget();
    if (change.kind === 'promotions') campaigns.forget();
    if (change.kind === 'billing') billing.forget((key) => key.startsWith(`${change.clientId}:`));
  };
  bus.subscribe(REFERENCE_CHANGES, (m) => forget(m.data as ReferenceChange));

  return {
    ...inner,
    forget,
    paymentMethod: (code) => methods.get(code, () => inner.paymentMethod(code)),
    async officialRate(at) {
      const now = clock.now().getTime();
      const kept = rate;
      if (kept && now < kept.until && at.getTime() >= kept.value.effectiveAt.getTime()) return kept.value;
      const loading = rateGeneration;
      const found = await inner.officialRate(at);
      // Only the rate in force now is kept: a past instant's answer is read each time.
      if (found && at.getTime() >= now && loading === rateGeneration)
        rate = { value: found, until: now + REFERENCE_CACHE_MS };
      return found;
    },
    billingSnapshot: (clientId, profileId, options) =>
      billing.get(`${clientId}:${profileId === undefined ? 'default' : String(profileId)}:${options.required}`, () =>
        inner.billingSnapshot(clientId, profileId, options),
      ),
    cityCentres: () => cities.get('all', () => inner.cityCentres()),
    switchedOnCampaigns: () => campaigns.get('all', () => inner.switchedOnCampaigns()),
  };
};

/**
 * Says that a reference record changed, after the write committed: this instance forgets at once, the others
 * over the bus (best effort: a lost message costs REFERENCE_CACHE_MS of staleness at most).
 */
export const announceReferenceChange = async (
  ctx: { bus: Bus; logger: Logger; reference: ReferenceData | CachedReferenceData },
  change: ReferenceChange,
): Promise<void> => {
  if ('forget' in ctx.reference) ctx.reference.forget(change);
  await ctx.bus
    .publish(REFERENCE_CHANGES, change)
    .catch((err) => ctx.logger.warn({ err, change }, 'could not announce a reference data change'));
};
