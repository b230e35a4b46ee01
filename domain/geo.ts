export interface LatLng {
  latitude: number;
  longitude: number;
}

/** Mean Earth radius (IUGG); straight-line distance is all the spec asks for (tracking, arrival, nearby drivers). */
const EARTH_RADIUS_METERS = 6_371_008.8;

export const ARRIVAL_RADIUS_METERS = 500;
export const TRACKING_SPEED_KMH = 25;

const rad = (deg: number): number => (deg * Math.PI) / 180;

export const isValidCoordinate = ({ latitude, longitude }: LatLng): boolean =>
  Number.isFinite(latitude) &&
  Number.isFinite(longitude) &&
  latitude >= -90 &&
  latitude <= 90 &&
  longitude >= -180 &&
  longitude <= 180;

export const distanceMeters = (a: LatLng, b: LatLng): number => {
  const dLat = rad(b.latitude - a.latitude);
  const dLng = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_METERS * Math.asin(Math.min(1, Math.sqrt(h)));
};

export const distanceKm = (a: LatLng, b: LatLng): number => distanceMeters(a, b) / 1000;

/** Whole minutes, rounded up: an ETA that says 0 while the truck is still 100 m away would be wrong. */
export const etaMinutes = (km: number, speedKmh: number = TRACKING_SPEED_KMH): number =>
  Math.ceil((km / speedKmh) * 60);

export interface BoundingBox {
  minLatitude: number;
  maxLatitude: number;
  minLongitude: number;
  maxLongitude: number;
}

/**
 * A box that contains every point within `km` of the centre, for an index-friendly SQL pre-filter before the
 * exact distance (J. Matuschek's method). When it would reach a pole or cross the antimeridian it widens to
 * all longitudes rather than wrap (Venezuela is far from both; correctness over tightness).
 */
export const boundingBox = (centre: LatLng, km: number): BoundingBox => {
  const angular = (km * 1000) / EARTH_RADIUS_METERS;
  const deg = (r: number): number => (r * 180) / Math.PI;
  const minLatitude = centre.latitude - deg(angular);
  const maxLatitude = centre.latitude + deg(angular);
  const all = { minLongitude: -180, maxLongitude: 180 };
  if (minLatitude <= -90 || maxLatitude >= 90)
    return { minLatitude: Math.max(-90, minLatitude), maxLatitude: Math.min(90, maxLatitude), ...all };
  const dLng = deg(Math.asin(Math.min(1, Math.sin(angular) / Math.cos(rad(centre.latitude)))));
  const minLongitude = centre.longitude - dLng;
  const maxLongitude = centre.longitude + dLng;
  if (minLongitude < -180 || maxLongitude > 180) return { minLatitude, maxLatitude, ...all };
  return { minLatitude, maxLatitude, minLongitude, maxLongitude };
};
