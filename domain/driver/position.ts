import { validationError } from '../errors.js';
import { distanceMeters, type LatLng } from '../geo.js';

/**
 * Driver positions are believed only when they could have been driven (docs/decisions/0046-money-risk-limits.md):
 * a fix that implies more than the maximum speed since the driver's last accepted fix is refused, so a
 * driver cannot appear at once in another city and read the open orders there.
 */

/** The accepted fix a new one is judged against. */
export interface Fix extends LatLng {
  at: Date;
}

/**
 * What a phone's GPS may be off by: two fixes this close are the same place, whatever the time between them
 * (a driver standing still must not be refused for its receiver's noise). It is small enough that even the
 * 30 fixes a minute the rate limit allows creep less than 3 km a minute beyond the speed limit.
 */
export const POSITION_ACCURACY_METERS = 100;

/** The speed a move from `last` to `next` implies, in km/h (beyond the GPS accuracy). */
export const impliedSpeedKmh = (last: Fix, next: LatLng, now: Date): number => {
  const meters = distanceMeters(last, next) - POSITION_ACCURACY_METERS;
  if (meters <= 0) return 0;
  const hours = Math.max(0, now.getTime() - last.at.getTime()) / 3_600_000;
  return hours === 0 ? Infinity : meters / 1000 / hours;
};

/** Refuses (422 ValidationError) a fix that could not have been driven since the last accepted one. */
export const assertPlausibleMove = (last: Fix | null, next: LatLng, now: Date, maxSpeedKmh: number): void => {
  if (!last) return;
  const speed = impliedSpeedKmh(last, next, now);
  if (speed > maxSpeedKmh)
    throw validationError({
      latitude: [
        `This position is ${(distanceMeters(last, next) / 1000).toFixed(1)} km from your last one: ` +
          `more than ${maxSpeedKmh} km/h since then.`,
      ],
    });
};
