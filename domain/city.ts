import { distanceMeters, type LatLng } from './geo.js';

/** A city as orders see it: its centre decides which orders belong to it (docs/domain-rules.md, the order's city). */
export interface CityCentre extends LatLng {
  id: number;
}

/**
 * The city whose centre is nearest to the point, null only when no city has a centre. Ties go to the
 * first city given (the seeded order, Caracas first), so the answer never depends on row order.
 */
export const nearestCityId = (centres: readonly CityCentre[], point: LatLng): number | null => {
  let best: { id: number; meters: number } | null = null;
  for (const c of centres) {
    const meters = distanceMeters(c, point);
    if (best === null || meters < best.meters) best = { id: c.id, meters };
  }
  return best?.id ?? null;
};
