import { describe, expect, it } from 'vitest';
import { errorOf } from '../../tests/support/deciderSpec.js';
import { assertFirstFixInCity, spendOnMove, type Fix } from './position.js';

const CARACAS = { latitude: 10.4806, longitude: -66.9036 };
const MARACAIBO = { latitude: 10.6427, longitude: -71.6125 };
const LIMITS = { maxSpeedKmh: 150, slackKm: 3 };
const KM_OF_LATITUDE = 111.195;
const NOON = new Date('2026-11-26T12:00:00Z');
const later = (seconds: number) => new Date(NOON.getTime() + seconds * 1000);
const north = (from: { latitude: number; longitude: number }, km: number) => ({
  latitude: from.latitude + km / KM_OF_LATITUDE,
  longitude: from.longitude,
});
/** Given an accepted fix in Caracas at noon with this much budget left. */
const given = (budgetKm: number | null = null): Fix => ({ ...CARACAS, at: NOON, budgetKm });

describe('the distance budget of driver positions', () => {
  it('accepts one coarse 2.5 km jump at once, spending it from a full budget', () => {
    const left = spendOnMove(given(), north(CARACAS, 2.5), NOON, LIMITS);
    expect(left).toBeCloseTo(0.5, 3);
  });

  it('refuses a 500 km jump, on latitude, naming the speed', () => {
    const err = errorOf(() => spendOnMove(given(), MARACAIBO, later(60), LIMITS));
    expect(err).toMatchObject({ kind: 'unprocessable', code: 'ValidationError' });
    expect(err.details).toMatchObject({ fieldErrors: { latitude: [expect.stringContaining('150 km/h')] } });
  });

  it('accepts what could have been driven: about 520 km in four hours', () => {
    expect(() => spendOnMove(given(0), MARACAIBO, later(4 * 3600), LIMITS)).not.toThrow();
  });

  it('refuses small jumps that add up beyond the speed: 1 km every 10 s is 360 km/h', () => {
    let last = given();
    const refusedAt = (): number => {
      for (let i = 1; i <= 20; i++) {
        const next = north(last, 1);
        const at = later(10 * i);
        try {
          last = { ...next, at, budgetKm: spendOnMove(last, next, at, LIMITS) };
        } catch {
          return i;
        }
      }
      return 0;
    };
    // Each step refills 150 km/h × 10 s ≈ 0.42 km and spends 1 km: a full 3 km lasts five steps.
    expect(refusedAt()).toBe(6);
  });

  it('refills at the speed, and banks no more than the slack', () => {
    // Empty, then one minute: 2.5 km of driving.
    expect(() => spendOnMove(given(0), north(CARACAS, 2.4), later(60), LIMITS)).not.toThrow();
    expect(() => spendOnMove(given(0), north(CARACAS, 2.6), later(60), LIMITS)).toThrow();
    // An hour standing still leaves 3 km, not 150: the next minute allows 3 + 2.5 km.
    const still = { ...CARACAS, at: later(3600), budgetKm: spendOnMove(given(0), CARACAS, later(3600), LIMITS) };
    expect(still.budgetKm).toBe(3);
    const minuteLater = new Date(still.at.getTime() + 60_000);
    expect(() => spendOnMove(still, north(CARACAS, 5.4), minuteLater, LIMITS)).not.toThrow();
    expect(() => spendOnMove(still, north(CARACAS, 5.6), minuteLater, LIMITS)).toThrow();
  });

  it('lets a driver standing still report GPS noise as often as the rate allows', () => {
    let last = given(0);
    for (let i = 1; i <= 30; i++) {
      const next = north(CARACAS, i % 2 === 0 ? 0.05 : 0);
      const at = later(2 * i);
      last = { ...next, at, budgetKm: spendOnMove(last, next, at, LIMITS) };
    }
    expect(last.budgetKm).toBeGreaterThan(0);
  });
});

describe("a driver's first position", () => {
  const centres = [
    { id: 1, ...CARACAS },
    { id: 2, ...MARACAIBO },
  ];

  it('is accepted in the driver city', () => {
    expect(() => assertFirstFixInCity(centres, 1, north(CARACAS, 2))).not.toThrow();
  });

  it('is refused in another city, and for a driver without a city', () => {
    const err = errorOf(() => assertFirstFixInCity(centres, 1, MARACAIBO));
    expect(err).toMatchObject({
      code: 'ValidationError',
      details: { fieldErrors: { latitude: [expect.any(String)] } },
    });
    expect(() => assertFirstFixInCity(centres, null, CARACAS)).toThrow();
  });

  it('has nothing to be judged by when the city, or every city, has no centre', () => {
    expect(() => assertFirstFixInCity(centres, 7, MARACAIBO)).not.toThrow();
    expect(() => assertFirstFixInCity([], 1, MARACAIBO)).not.toThrow();
  });
});
