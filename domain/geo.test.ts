import { describe, expect, it } from 'vitest';
import { boundingBox, distanceKm, distanceMeters, etaMinutes, isValidCoordinate } from './geo.js';

const caracas = { latitude: 10.4806, longitude: -66.9036 };
const valencia = { latitude: 10.1579, longitude: -67.9972 };

describe('distance', () => {
  it('is zero to itself and symmetric', () => {
    expect(distanceMeters(caracas, caracas)).toBe(0);
    expect(distanceMeters(caracas, valencia)).toBeCloseTo(distanceMeters(valencia, caracas), 6);
  });

  it('matches known distances', () => {
    expect(distanceKm(caracas, valencia)).toBeGreaterThan(124);
    expect(distanceKm(caracas, valencia)).toBeLessThan(126);
    // One degree of latitude is about 111.2 km.
    expect(distanceKm({ latitude: 0, longitude: 0 }, { latitude: 1, longitude: 0 })).toBeCloseTo(111.195, 2);
  });

  it('is about 111 m per thousandth of a degree of latitude', () => {
    const near = { latitude: caracas.latitude + 0.004, longitude: caracas.longitude }; // ≈ 445 m
    const far = { latitude: caracas.latitude + 0.005, longitude: caracas.longitude }; // ≈ 556 m
    expect(distanceMeters(near, caracas)).toBeCloseTo(444.8, 0);
    expect(distanceMeters(far, caracas)).toBeCloseTo(556.0, 0);
  });
});

describe('etaMinutes', () => {
  it('assumes 25 km/h and rounds up', () => {
    expect(etaMinutes(25)).toBe(60);
    expect(etaMinutes(10)).toBe(24);
    expect(etaMinutes(0.1)).toBe(1);
    expect(etaMinutes(0)).toBe(0);
    expect(etaMinutes(10, 60)).toBe(10);
  });
});

describe('coordinates', () => {
  it.each([
    [{ latitude: 0, longitude: 0 }, true],
    [{ latitude: 90, longitude: 180 }, true],
    [{ latitude: -90.1, longitude: 0 }, false],
    [{ latitude: 0, longitude: 180.5 }, false],
    [{ latitude: Number.NaN, longitude: 0 }, false],
  ])('%o valid: %s', (point, valid) => {
    expect(isValidCoordinate(point)).toBe(valid);
  });
});

describe('boundingBox', () => {
  it('contains every point within the radius, and not much more', () => {
    const box = boundingBox(caracas, 10);
    const outside: string[] = [];
    for (let dLat = -0.1; dLat <= 0.1; dLat += 0.001) {
      for (let dLng = -0.1; dLng <= 0.1; dLng += 0.001) {
        const p = { latitude: caracas.latitude + dLat, longitude: caracas.longitude + dLng };
        const inBox =
          p.latitude >= box.minLatitude &&
          p.latitude <= box.maxLatitude &&
          p.longitude >= box.minLongitude &&
          p.longitude <= box.maxLongitude;
        if (distanceKm(caracas, p) <= 10 && !inBox) outside.push(`${p.latitude},${p.longitude}`);
      }
    }
    expect(outside).toEqual([]);
    expect(box.maxLatitude - box.minLatitude).toBeCloseTo(0.18, 2);
  });

  it('widens to all longitudes near a pole or the antimeridian', () => {
    expect(boundingBox({ latitude: 89.99, longitude: 0 }, 10)).toMatchObject({
      minLongitude: -180,
      maxLongitude: 180,
      maxLatitude: 90,
    });
    expect(boundingBox({ latitude: 0, longitude: 179.99 }, 10)).toMatchObject({
      minLongitude: -180,
      maxLongitude: 180,
    });
  });
});
