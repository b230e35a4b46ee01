import { tooMany } from '../../domain/errors.js';
import { driverDecider } from '../../domain/driver/driver.js';
import { driverStream } from '../../domain/driver/events.js';
import { assertFirstFixInCity, spendOnMove, type Fix } from '../../domain/driver/position.js';
import type { LatLng } from '../../domain/geo.js';
import { createDb } from '../../infra/db/database.js';
import { inTransaction, onOneConnection, type SqlClient } from '../../infra/db/sqlPool.js';
import type { AlongsideWrite } from '../../infra/eventStore/port.js';
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
 * each is judged against the driver's rate limit and against the last accepted fix (its distance budget) or,
 * for a first fix, against the driver's city, before anything records it; only an accepted one becomes the
 * driver's position (driver_locations, state-stored: too frequent for the driver stream), the one the feed
 * and the offer view measure from. The judging only reads; the write that counts the position and stores the
 * fix is one, and a command that carries the position (the arrival) writes it in its own append's
 * transaction (docs/decisions/0101-one-transaction-per-command.md). Two positions racing may both pass the
 * rate: each is counted, and the next one is judged on both.
 */
export const driverPositions = (ctx: Deps) => {
  // Positions one driver may report per minute, over every route that takes one.
  const limit = ctx.config.DRIVER_POSITIONS_PER_MINUTE;
  const perMinute = (on: Pick<SqlClient, 'query'>) => rateLimit(on, 'driver-positions', limit, 60_000);
  // Judged on the pool; counted on the connection of the transaction the position is written in.
  const judged = perMinute(ctx.pool);
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
  /** The position counted and stored, on the connection of the transaction it joins. */
  const write =
    (driverId: number, { latitude, longitude, budgetKm }: CheckedPosition): AlongsideWrite =>
    async (client) => {
      await perMinute(client).count(String(driverId));
      const row = { latitude, longitude, at: ctx.clock.now(), budget_km: budgetKm };
      await createDb(onOneConnection(client, ctx.pool.kind))
        .insertInto('driver_locations')
        .values({ driver_id: driverId, ...row })
        .onConflict((oc) => oc.column('driver_id').doUpdateSet(row))
        .execute();
    };
  return {
    /** 429 Cooldown past the rate, 422 ValidationError for a position no truck could have reached. */
    async check(driverId: number, next: LatLng): Promise<CheckedPosition> {
      const verdict = await judged.peek(String(driverId));
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
    /** What a command appends with: the checked position, written in its append's transaction. */
    alongside: write,
    /** The driver's position from now on (a checked one, with no command to carry it), in one transaction. */
    record: (driverId: number, checked: CheckedPosition): Promise<void> =>
      inTransaction(ctx.pool, write(driverId, checked)),
  };
};

/** A driver's positions as the routes and the trip's commands use them. */
export type DriverPositions = ReturnType<typeof driverPositions>;
