import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleMapsStandIn } from '../../tests/support/providerStandIns/googleMaps.js';
import { createLogger } from '../logger.js';
import { createHttpMapsProvider } from './httpMapsProvider.js';

const KEY = 'AIzaSy-test-key-0123456789';

describe('the maps adapter against recorded Google Geocoding and Places answers', () => {
  let google: Awaited<ReturnType<typeof startGoogleMapsStandIn>>;
  let logged = '';
  const logger = createLogger('warn', { write: (line: string) => void (logged += line) });
  /** What the adapter logged: the operation and the reason of each failure. */
  const warnings = () =>
    logged
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .map(({ maps, reason }) => ({ maps, reason }));
  beforeAll(async () => {
    google = await startGoogleMapsStandIn(KEY);
  });
  afterAll(() => google?.close());
  const maps = (apiKey = KEY) => createHttpMapsProvider({ baseUrl: google.baseUrl, apiKey, timeoutMs: 2000, logger });

  it('reverse: the first result, its components and place id; nothing found is null', async () => {
    expect(await maps().reverseGeocode(10.4961, -66.8495)).toEqual({
      address: 'Av. Francisco de Miranda, Caracas 1060, Miranda, Venezuela',
      placeId: 'ChIJm7zVnHRYKowRkV0vHq0xQ6s',
      components: expect.arrayContaining([
        { long_name: 'Venezuela', short_name: 'VE', types: ['country', 'political'] },
      ]),
    });
    expect(google.queries.at(-1)).toEqual({
      path: '/maps/api/geocode/json',
      params: { latlng: '10.4961,-66.8495', language: 'es', key: KEY },
    });
    expect(await maps().reverseGeocode(10.6, -66.9)).toBeNull();
  });

  it('autocomplete: each prediction, its two lines (none for a country alone); nothing found is empty', async () => {
    expect(await maps().autocomplete('Altamira', 'session-1')).toEqual([
      {
        placeId: 'ChIJ1bOq0XRYKowRq0PZkCUBPNQ',
        description: 'Altamira, Caracas, Miranda, Venezuela',
        mainText: 'Altamira',
        secondaryText: 'Caracas, Miranda, Venezuela',
      },
      {
        placeId: 'ChIJ3Y2yKXVYKowR2VvN0XnEJk0',
        description: 'Plaza Altamira, Caracas, Miranda, Venezuela',
        mainText: 'Plaza Altamira',
        secondaryText: 'Caracas, Miranda, Venezuela',
      },
      { placeId: 'ChIJAVkDPzdOqEcRcDteW0YgIQQ', description: 'Venezuela', mainText: 'Venezuela', secondaryText: null },
    ]);
    expect(google.queries.at(-1)!.params).toMatchObject({ input: 'Altamira', region: 've', sessiontoken: 'session-1' });
    expect(await maps().autocomplete('zzzz')).toEqual([]);
  });

  it('place details: the location and address, asking only for the fields it reads', async () => {
    expect(await maps().placeDetails('ChIJ3Y2yKXVYKowR2VvN0XnEJk0', 'session-1')).toEqual({
      placeId: 'ChIJ3Y2yKXVYKowR2VvN0XnEJk0',
      address: 'Av. Francisco de Miranda, Caracas 1060, Miranda, Venezuela',
      latitude: 10.4963512,
      longitude: -66.8491237,
    });
    expect(google.queries.at(-1)!.params).toMatchObject({
      fields: 'place_id,formatted_address,geometry/location',
      sessiontoken: 'session-1',
    });
  });

  it("an unknown place or a key Google refuses is UpstreamError; Google's reason is logged, the key never", async () => {
    logged = '';
    await expect(maps().placeDetails('ChIJ-unknown')).rejects.toMatchObject({ code: 'UpstreamError' });
    await expect(maps('AIzaSy-revoked').reverseGeocode(10.4961, -66.8495)).rejects.toMatchObject({
      code: 'UpstreamError',
    });
    expect(warnings()).toEqual([
      { maps: 'place', reason: 'status NOT_FOUND' },
      { maps: 'reverse', reason: 'status REQUEST_DENIED: The provided API key is invalid.' },
    ]);
    expect(logged).not.toMatch(/AIzaSy/);
  });
});
