import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { withMapsCache } from './cachedMapsProvider.js';
import { upstreamError } from './httpMapsProvider.js';
import type { MapsProvider } from './port.js';

/** Counts the calls that reach the provider; `fail` makes the next ones reject. */
const countingProvider = () => {
  const calls: string[] = [];
  let fail = false;
  const answer = async <T>(what: string, value: T): Promise<T> => {
    calls.push(what);
    if (fail) throw upstreamError();
    return value;
  };
  const provider: MapsProvider = {
    reverseGeocode: (lat, lng) =>
      answer(`reverse ${lat},${lng}`, { address: `at ${calls.length}`, components: [], placeId: 'p' }),
    autocomplete: (input, token) => answer(`autocomplete ${input} ${token}`, []),
    placeDetails: (placeId, token) =>
      answer(`place ${placeId} ${token}`, { placeId, address: null, latitude: 1, longitude: 2 }),
  };
  return { provider, calls, failing: (v: boolean) => (fail = v) };
};

describe('maps cache', () => {
  it('answers an identical query from memory until the TTL passes', async () => {
    const clock = new ManualClock();
    const inner = countingProvider();
    const maps = withMapsCache(inner.provider, 60_000, clock);
    const first = await maps.reverseGeocode(10, -66);
    clock.advance(59_999);
    expect(await maps.reverseGeocode(10, -66)).toEqual(first);
    expect(inner.calls).toHaveLength(1);
    clock.advance(1);
    expect(await maps.reverseGeocode(10, -66)).not.toEqual(first);
    expect(inner.calls).toHaveLength(2);
  });

  it('keys on every argument, the session token included', async () => {
    const inner = countingProvider();
    const maps = withMapsCache(inner.provider, 60_000, new ManualClock());
    await maps.autocomplete('Altamira', 'a');
    await maps.autocomplete('Altamira', 'a');
    await maps.autocomplete('Altamira', 'b');
    await maps.autocomplete('Altamira');
    await maps.placeDetails('p1', 'a');
    await maps.placeDetails('p1');
    await maps.reverseGeocode(10, -66);
    await maps.reverseGeocode(-66, 10);
    expect(inner.calls).toEqual([
      'autocomplete Altamira a',
      'autocomplete Altamira b',
      'autocomplete Altamira undefined',
      'place p1 a',
      'place p1 undefined',
      'reverse 10,-66',
      'reverse -66,10',
    ]);
  });

  it('never keeps a failure', async () => {
    const inner = countingProvider();
    const maps = withMapsCache(inner.provider, 60_000, new ManualClock());
    inner.failing(true);
    await expect(maps.placeDetails('p1')).rejects.toMatchObject({ code: 'UpstreamError' });
    inner.failing(false);
    await expect(maps.placeDetails('p1')).resolves.toMatchObject({ placeId: 'p1' });
    expect(inner.calls).toHaveLength(2);
  });
});
