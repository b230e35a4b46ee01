import { describe, expect, it } from 'vitest';
import { nearestCityId } from './city.js';

const caracas = { id: 1, latitude: 10.4806, longitude: -66.9036 };
const losTeques = { id: 14, latitude: 10.3447, longitude: -67.0433 };
const valencia = { id: 3, latitude: 10.162, longitude: -68.0077 };

describe('nearestCityId', () => {
  it('picks the city whose centre is nearest to the delivery point', () => {
    const centres = [caracas, valencia, losTeques];
    expect(nearestCityId(centres, { latitude: 10.49, longitude: -66.9 })).toBe(1);
    expect(nearestCityId(centres, { latitude: 10.36, longitude: -67.03 })).toBe(14);
    expect(nearestCityId(centres, { latitude: 10.2, longitude: -68.1 })).toBe(3);
  });

  it('gives a tie to the first city listed and null when there is none', () => {
    expect(nearestCityId([caracas, { ...caracas, id: 99 }], caracas)).toBe(1);
    expect(nearestCityId([], caracas)).toBeNull();
  });
});
