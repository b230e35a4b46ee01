import { describe, expect, it } from 'vitest';
import { errorOf } from '../../tests/support/deciderSpec.js';
import { assertPlausibleMove, impliedSpeedKmh } from './position.js';

const CARACAS = { latitude: 10.4806, longitude: -66.9036 };
const MARACAIBO = { latitude: 10.6427, longitude: -71.6125 };
const at = (iso: string) => new Date(iso);
const last = { ...CARACAS, at: at('2026-11-26T12:00:00Z') };

describe('plausible driver positions', () => {
  it('refuses a jump no truck could have driven, on latitude, naming the limit', () => {
    const err = errorOf(() => assertPlausibleMove(last, MARACAIBO, at('2026-11-26T13:00:00Z'), 150));
    expect(err).toMatchObject({ kind: 'unprocessable', code: 'ValidationError' });
    expect(err.details).toMatchObject({ fieldErrors: { latitude: [expect.stringContaining('150 km/h')] } });
  });

  it('accepts what could have been driven, a first fix, and GPS noise with no time between', () => {
    // ~520 km in 4 hours is 130 km/h.
    expect(() => assertPlausibleMove(last, MARACAIBO, at('2026-11-26T16:00:00Z'), 150)).not.toThrow();
    expect(() => assertPlausibleMove(null, MARACAIBO, at('2026-11-26T12:00:00Z'), 150)).not.toThrow();
    const noise = { latitude: CARACAS.latitude + 0.0008, longitude: CARACAS.longitude };
    expect(impliedSpeedKmh(last, noise, last.at)).toBe(0);
  });

  it('measures the speed beyond the GPS accuracy: 2.5 km in one minute is 150 km/h', () => {
    const north = { latitude: CARACAS.latitude + (2.5 + 0.1) / 111.195, longitude: CARACAS.longitude };
    const speed = impliedSpeedKmh(last, north, at('2026-11-26T12:01:00Z'));
    expect(speed).toBeGreaterThan(149);
    expect(speed).toBeLessThan(151);
  });
});
