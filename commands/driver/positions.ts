import { tooMany } from '../../domain/errors.js';
import { assertPlausibleMove, type Fix } from '../../domain/driver/position.js';
import type { LatLng } from '../../domain/geo.js';
import type { CommandDeps } from '../deps.js';
import { rateLimit } from '../identity/rateLimit.js';

type Deps = Pick<CommandDeps, 'clock' | 'config' | 'db' | 'pool'>;

/**
 * A driver's reported positions (`/driver/location`, `/driver/online`, an order's live location): each is
 * counted against the driver's rate limit and judged against the last accepted fix before anything records
 * it; only an accepted one becomes the driver's position (driver_locations, state-stored: too frequent for
 * the driver stream), the one the feed and the offer view measure from.
 */
export const driverPositions = (ctx: Deps) => {
  // Positions one driver may report per minute, over every route that takes one.
  const limit = ctx.config.DRIVER_POSITIONS_PER_MINUTE;
  const perMinute = rateLimit(ctx.pool, 'driver-positions', limit, 60_000);
  const lastFixOf = async (driverId: number): Promise<Fix | null> => {
    const row = await ctx.db
      .selectFrom('driver_locations')
      .select(['latitude', 'longitude', 'at'])
      .where('driver_id', '=', driverId)
      .executeTakeFirst();
    return row ? { latitude: Number(row.latitude), longitude: Number(row.longitude), at: new Date(row.at) } : null;
  };
  return {
    /** 429 Cooldown past the rate, 422 ValidationError for a position no truck could have reached. */
    async check(driverId: number, next: LatLng): Promise<void> {
      const verdict = await perMinute.hit(String(driverId));
      if (!verdict.allowed)
        throw tooMany('Cooldown', `At most ${limit} positions a minute; try again later.`, {
          retryAfterSeconds: verdict.retryAfterSeconds,
        });
      assertPlausibleMove(await lastFixOf(driverId), next, ctx.clock.now(), ctx.config.DRIVER_MAX_SPEED_KMH);
    },
    /** The driver's position from now on (a checked one). */
    async record(driverId: number, { latitude, longitude }: LatLng): Promise<void> {
      const at = ctx.clock.now();
      await ctx.db
        .insertInto('driver_locations')
        .values({ driver_id: driverId, latitude, longitude, at })
        .onConflict((oc) => oc.column('driver_id').doUpdateSet({ latitude, longitude, at }))
        .execute();
    },
  };
};
