import { distanceMeters, type LatLng } from '../../domain/geo.js';

export const STATION_TYPES = ['WATER', 'FUEL'] as const;
export type StationType = (typeof STATION_TYPES)[number];

/** Two stations of the same name this close (metres, inclusive) are one station (docs/domain-rules.md, stations). */
export const DUPLICATE_RADIUS_METERS = 50;

/**
 * Venezuela's extent (mainland, Margarita and the near islands; Isla de Aves left out), as a box. A box is
 * coarse at the land borders (it takes in bits of Colombia, Brazil and Guyana) but it catches what the check
 * is for: swapped latitude and longitude, a sign dropped, a point in another country far away.
 */
export const VENEZUELA = { minLatitude: 0.6, maxLatitude: 12.3, minLongitude: -73.4, maxLongitude: -59.7 };

export const inVenezuela = ({ latitude, longitude }: LatLng): boolean =>
  latitude >= VENEZUELA.minLatitude &&
  latitude <= VENEZUELA.maxLatitude &&
  longitude >= VENEZUELA.minLongitude &&
  longitude <= VENEZUELA.maxLongitude;

/** "Same name": case, accents and runs of spaces do not count ("Estación  Petare" = "estacion petare"). */
export const nameKey = (name: string): string =>
  name
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();

export const isDuplicateOf = (a: LatLng, b: LatLng): boolean => distanceMeters(a, b) <= DUPLICATE_RADIUS_METERS;
