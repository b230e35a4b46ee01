import { tooMany } from '../../domain/errors.js';
import { driverDecider } from '../../domain/driver/driver.js';
import { driverStream } from '../../domain/driver/events.js';
import { assertFirstFixInCity, spendOnMove, type Fix } from '../../domain/driver/position.js';
import type { LatLng } from '../../domain/geo.js';
import type { CommandDeps } from '../deps.js';
import { loadState } from '../handle.js';
import { rateLimit } from '../identity/rateLimit.js';

type Deps = Pick<CommandDeps, 'clock' | 'config' | 'db' | 'pool' | 'reference' | 'store'>;

/** A position that passed the checks, with the distance budget it leaves (domain/driver/position.ts). */
export interface CheckedPosition extends LatLng {
  budgetKm: number | null;
}

/**
 * A driver's reported positions (`/driver/location`, `/driver/online`, an order's live location, the arrival):
 * each is counted against the driver's rate limit and judged against the last accepted fix (its distance
 * budget) or, for a first fix, against the driver's city, before anything records it; only an accepted one
 * becomes the driver's position (driver_locations, state-stored: too frequent for the driver stream), the
 * one the feed and the offer view measure from.
 */
export const driverPositions = (ctx: Deps) => {
  // Positions one driver may report per minute, over every route that takes one.
  const limit = ctx.config.DRIVER_POSITIONS_PER_MINUTE;
  const perMinute = rateLimit(ctx.pool, 'driver-positions', limit, 60_000);
  const limits = { maxSpeedKmh: ctx.config.DRIVER_MAX_SPEED_KMH, slackKm: ctx.config.DRIVER_POSITION_SLACK_KM };
  const lastFixOf = async (driverId: number): Promise<Fix | null> => {
    const row = await ctx.db
      .selectFrom('driver_locations')
      .select(['latitude', 'longitude', 'at', 'budget_km'])
      .where('driver_id', '=', driverId)
      .executeTakeFirst();
    if (!row) return null;
    const budgetKm = row.budget_km === null ? null : Number(row.budget_km);
    return { latitude: Number(row.latitude), longitude: Number(row.longitude), at: new Date(row.at), budgetKm };
  };
  const cityOf = async (driverId: number): Promise<number | null> =>
    (await loadState(ctx.store, driverStream(driverId), driverDecider)).state.profile?.cityId ?? null;
  return {
    /** 429 Cooldown past the rate, 422 ValidationError for a position no truck could have reached. */
    async check(driverId: number, next: LatLng): Promise<CheckedPosition> {
      const verdict = await perMinute.hit(String(driverId));
      if (!verdict.allowed)
        throw tooMany('Cooldown', `At most ${limit} positions a minute; try again later.`, {
          retryAfterSeconds: verdict.retryAfterSeconds,
        });
      const fix = { latitude: next.latitude, longitude: next.longitude };
      const last = await lastFixOf(driverId);
      if (last) return { ...fix, budgetKm: spendOnMove(last, fix, ctx.clock.now(), limits) };
      assertFirstFixInCity(await ctx.reference.cityCentres(), await cityOf(driverId), fix);
      return { ...fix, budgetKm: null };
    },
    /** The driver's position from now on (a checked one), with the budget it left. */
    async record(driverId: number, { latitude, longitude, budgetKm }: CheckedPosition): Promise<void> {
      const at = ctx.clock.now();
      const row = { latitude, longitude, at, budget_km: budgetKm };
      await ctx.db
        .insertInto('driver_locations')
        .values({ driver_id: driverId, ...row })
        .onConflict((oc) => oc.column('driver_id').doUpdateSet(row))
        .execute();
    },
  };
};
