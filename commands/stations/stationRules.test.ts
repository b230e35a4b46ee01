import { describe, expect, it } from 'vitest';
import { inVenezuela, nameKey } from './stationRules.js';

describe('station rules', () => {
  it('names compare without case, accents or repeated spaces', () => {
    expect(nameKey('  Estación   PETARE ')).toBe(nameKey('estacion petare'));
    expect(nameKey('Estación Petare')).not.toBe(nameKey('Estación Petare 2'));
  });

  it('Venezuelan cities are inside; swapped coordinates and other countries are not', () => {
    for (const [lat, lng] of [
      [10.4806, -66.9036],
      [10.6427, -71.6125],
      [8.3536, -62.6413],
      [11.0, -63.9],
      [1.0, -66.8],
    ])
      expect(inVenezuela({ latitude: lat, longitude: lng })).toBe(true);
    for (const [lat, lng] of [
      [-66.9, 10.48],
      [4.711, -74.0721],
      [40.4168, -3.7038],
      [18.47, -66.1],
    ])
      expect(inVenezuela({ latitude: lat, longitude: lng })).toBe(false);
  });
});
