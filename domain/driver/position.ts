import type { CityCentre } from '../city.js';
import { nearestCityId } from '../city.js';
import { validationError } from '../errors.js';
import { distanceKm, type LatLng } from '../geo.js';

/**
 * Driver positions are believed only when they could have been driven (docs/decisions/0046-money-risk-limits.md,
 * docs/decisions/0088-a-distance-budget-for-driver-positions.md), so a driver cannot appear at once in another
 * city and read the open orders there. Phones report coarse fixes that jump a kilometre or more at once, so the
 * rule is a distance budget, not a speed between two fixes: the budget holds at most `slackKm`, refills at
 * `maxSpeedKmh` of elapsed time, and each accepted fix spends its distance from the last one.
 */

export interface PositionLimits {
  maxSpeedKmh: number;
  slackKm: number;
}

/** The last accepted fix, with what was left of the budget once it was accepted (null: a full budget). */
export interface Fix extends LatLng {
  at: Date;
  budgetKm: number | null;
}

/**
 * Judges a fix that follows an accepted one. What it may spend is what the last fix left of the budget plus
 * the refill since (`maxSpeedKmh` of the time between them): a fix whose distance would overdraw that is refused
 * (422 ValidationError, on latitude). Otherwise the budget left is kept with it, capped at `slackKm`: time
 * spent standing still banks no more than one coarse fix's worth, so over any run of fixes the distance adds
 * up to at most `slackKm` plus what the speed allows.
 */
export const spendOnMove = (last: Fix, next: LatLng, now: Date, limits: PositionLimits): number => {
  const hours = Math.max(0, now.getTime() - last.at.getTime()) / 3_600_000;
  const available = (last.budgetKm ?? limits.slackKm) + hours * limits.maxSpeedKmh;
  const km = distanceKm(last, next);
  if (km > available)
    throw validationError({
      latitude: [
        `This position is ${km.toFixed(1)} km from your last one: more than ${limits.maxSpeedKmh} km/h ` +
          `since then allows (with ${limits.slackKm} km for a coarse fix).`,
      ],
    });
  return Math.min(limits.slackKm, available - km);
};

/**
 * Judges a driver's first position: it must lie in the driver's city, the city whose centre is nearest (as an
 * order's city is decided). A driver without a city has nowhere to be yet; where no city has a centre there is
 * nothing to judge by.
 */
export const assertFirstFixInCity = (centres: readonly CityCentre[], cityId: number | null, next: LatLng): void => {
  if (centres.length === 0) return;
  if (cityId === null)
    throw validationError({ latitude: ['Set your city in your profile before sending a position.'] });
  if (!centres.some((c) => c.id === cityId)) return;
  if (nearestCityId(centres, next) !== cityId)
    throw validationError({ latitude: ['Your first position must lie in your city.'] });
};
