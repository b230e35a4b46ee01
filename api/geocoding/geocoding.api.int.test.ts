import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signInClient, signInDriver } from '../../tests/support/actors.js';
import { appendingNothing, startApiUnderTest, type ApiUnderTest } from '../../tests/support/apiSpecification.js';

type Reply = { status?: number; json?: unknown; text?: string; hang?: true };

/**
 * A local stand-in for a Google-style maps API: records every request (path and query) and answers with
 * what the test scripted for that path.
 */
const fakeMaps = async () => {
  const received: { path: string; params: Record<string, string> }[] = [];
  let replies: Record<string, Reply> = {};
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    received.push({ path: url.pathname, params: Object.fromEntries(url.searchParams) });
    const reply = replies[url.pathname] ?? { status: 404, text: 'no script' };
    if (reply.hang) return;
    res.statusCode = reply.status ?? 200;
    res.setHeader('content-type', reply.text !== undefined ? 'text/html' : 'application/json');
    res.end(reply.text ?? JSON.stringify(reply.json));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    script: (r: Record<string, Reply>) => (replies = r),
    reset: () => {
      received.length = 0;
      replies = {};
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
};

const GEOCODE = '/maps/api/geocode/json';
const AUTOCOMPLETE = '/maps/api/place/autocomplete/json';
const DETAILS = '/maps/api/place/details/json';
const KEY = 'maps-test-key-123';

describe('geocoding without a maps key', () => {
  let t: ApiUnderTest;
  const request = appendingNothing(() => t);
  let token: string;
  beforeAll(async () => {
    t = await startApiUnderTest();
    token = (await signInClient(t)).token;
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('every route answers 503 GeocodingNotConfigured', async () => {
    for (const [path, auth] of [
      ['/api/v1/geocoding/reverse?lat=10.5&lng=-66.9', undefined],
      ['/api/v1/geocoding/autocomplete?query=Altamira', token],
      ['/api/v1/geocoding/place?placeId=abc', token],
    ] as const) {
      const r = await request('GET', path, { token: auth });
      expect(r.status, path).toBe(503);
      expect(r.body.error, path).toBe('GeocodingNotConfigured');
    }
  });

  it('still asks for a token first on the bearer routes', async () => {
    expect((await request('GET', '/api/v1/geocoding/autocomplete?query=Altamira')).status).toBe(401);
    expect((await request('GET', '/api/v1/geocoding/place?placeId=abc')).status).toBe(401);
  });
});

describe('geocoding through the HTTP maps adapter', () => {
  let t: ApiUnderTest;
  const request = appendingNothing(() => t);
  let maps: Awaited<ReturnType<typeof fakeMaps>>;
  let client: string;
  let query = 0;
  /** A query no earlier request made, so the cache never answers in place of the provider. */
  const fresh = (base: string) => `${base} ${++query}`;

  beforeAll(async () => {
    maps = await fakeMaps();
    t = await startApiUnderTest({
      env: { MAPS_API_KEY: KEY, MAPS_PROVIDER_URL: `${maps.url}/maps/api`, MAPS_TIMEOUT_MS: '300' },
    });
    client = (await signInClient(t)).token;
  });
  afterAll(async () => {
    await t?.stop();
    await maps?.close();
  });
  beforeEach(() => maps.reset());

  const reverse = (q: string, token?: string) => request('GET', `/api/v1/geocoding/reverse?${q}`, { token });
  const autocomplete = (q: string, token: string | undefined = client) =>
    request('GET', `/api/v1/geocoding/autocomplete?${q}`, { token });
  const place = (q: string, token: string | undefined = client) =>
    request('GET', `/api/v1/geocoding/place?${q}`, { token });

  describe('reverse (public)', () => {
    it('answers the nearest address, sending the coordinates and the key to the provider', async () => {
      maps.script({
        [GEOCODE]: {
          json: {
            status: 'OK',
            plus_code: { global_code: '67F2FG00+00' },
            results: [
              {
                formatted_address: 'Av. Francisco de Miranda, Caracas 1060, Miranda, Venezuela',
                place_id: 'ChIJ-first',
                types: ['street_address'],
                geometry: { location: { lat: 10.5, lng: -66.9 }, location_type: 'ROOFTOP' },
                address_components: [
                  {
                    long_name: 'Avenida Francisco de Miranda',
                    short_name: 'Av. Francisco de Miranda',
                    types: ['route'],
                  },
                  { long_name: 'Venezuela', short_name: 'VE', types: ['country', 'political'] },
                ],
              },
              { formatted_address: 'Caracas, Venezuela', place_id: 'ChIJ-second', address_components: [] },
            ],
          },
        },
      });
      const r = await reverse('lat=10.5&lng=-66.9');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toEqual({
        address: 'Av. Francisco de Miranda, Caracas 1060, Miranda, Venezuela',
        components: [
          { long_name: 'Avenida Francisco de Miranda', short_name: 'Av. Francisco de Miranda', types: ['route'] },
          { long_name: 'Venezuela', short_name: 'VE', types: ['country', 'political'] },
        ],
        placeId: 'ChIJ-first',
      });
      expect(maps.received).toEqual([
        { path: GEOCODE, params: expect.objectContaining({ latlng: '10.5,-66.9', key: KEY }) },
      ]);
    });

    it('answers null address and components when nothing matches', async () => {
      maps.script({ [GEOCODE]: { json: { status: 'ZERO_RESULTS', results: [] } } });
      const r = await reverse('lat=0&lng=-140.25');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ address: null, components: null });
    });

    it('answers an identical query from the cache: one provider call', async () => {
      maps.script({
        [GEOCODE]: {
          json: {
            status: 'OK',
            results: [{ formatted_address: 'Maracaibo', place_id: 'p-mcbo', address_components: [] }],
          },
        },
      });
      const first = await reverse('lat=10.65&lng=-71.64');
      const second = await reverse('lat=10.65&lng=-71.64');
      expect(second.body).toEqual(first.body);
      expect(first.body.placeId).toBe('p-mcbo');
      expect(maps.received).toHaveLength(1);
    });
  });

  describe('autocomplete (bearer)', () => {
    it('answers predictions, sending the text, the session token, the Venezuela bias and the key', async () => {
      maps.script({
        [AUTOCOMPLETE]: {
          json: {
            status: 'OK',
            predictions: [
              {
                place_id: 'ChIJ-altamira',
                description: 'Altamira, Caracas, Venezuela',
                structured_formatting: {
                  main_text: 'Altamira',
                  secondary_text: 'Caracas, Venezuela',
                  main_text_matched_substrings: [],
                },
                types: ['neighborhood'],
              },
              { place_id: 'ChIJ-ve', description: 'Venezuela', structured_formatting: { main_text: 'Venezuela' } },
            ],
          },
        },
      });
      const r = await autocomplete('query=Altamira&sessionToken=session-1');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toEqual({
        suggestions: [
          {
            placeId: 'ChIJ-altamira',
            description: 'Altamira, Caracas, Venezuela',
            mainText: 'Altamira',
            secondaryText: 'Caracas, Venezuela',
          },
          { placeId: 'ChIJ-ve', description: 'Venezuela', mainText: 'Venezuela', secondaryText: null },
        ],
      });
      expect(maps.received).toEqual([
        {
          path: AUTOCOMPLETE,
          params: expect.objectContaining({ input: 'Altamira', sessiontoken: 'session-1', region: 've', key: KEY }),
        },
      ]);
    });

    it('answers an empty list when nothing matches; any signed-in user may ask', async () => {
      maps.script({ [AUTOCOMPLETE]: { json: { status: 'ZERO_RESULTS', predictions: [] } } });
      const driver = await signInDriver(t);
      const r = await autocomplete(`query=${encodeURIComponent(fresh('zzzz'))}`, driver.token);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ suggestions: [] });
      expect(maps.received[0].params).not.toHaveProperty('sessiontoken');
    });

    it('asks the provider again for the same text in another session', async () => {
      maps.script({ [AUTOCOMPLETE]: { json: { status: 'ZERO_RESULTS' } } });
      const q = encodeURIComponent(fresh('Chacao'));
      await autocomplete(`query=${q}&sessionToken=a`);
      await autocomplete(`query=${q}&sessionToken=a`);
      await autocomplete(`query=${q}&sessionToken=b`);
      expect(maps.received.map((x) => x.params.sessiontoken)).toEqual(['a', 'b']);
    });
  });

  describe('place (bearer)', () => {
    it('answers the precise location, sending the place id, the session token and the key', async () => {
      maps.script({
        [DETAILS]: {
          json: {
            status: 'OK',
            html_attributions: [],
            result: {
              place_id: 'ChIJ-altamira',
              formatted_address: 'Altamira, Caracas 1060, Venezuela',
              geometry: { location: { lat: 10.4962, lng: -66.8467 }, viewport: {} },
            },
          },
        },
      });
      const r = await place('placeId=ChIJ-altamira&sessionToken=session-1');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toEqual({
        placeId: 'ChIJ-altamira',
        address: 'Altamira, Caracas 1060, Venezuela',
        latitude: 10.4962,
        longitude: -66.8467,
      });
      expect(maps.received).toEqual([
        {
          path: DETAILS,
          params: expect.objectContaining({ place_id: 'ChIJ-altamira', sessiontoken: 'session-1', key: KEY }),
        },
      ]);
    });

    it('a place without geometry is 502 UpstreamError', async () => {
      maps.script({
        [DETAILS]: { json: { status: 'OK', result: { place_id: 'p-nogeo', formatted_address: 'Somewhere' } } },
      });
      const r = await place('placeId=p-nogeo');
      expect(r.status).toBe(502);
      expect(r.body.error).toBe('UpstreamError');
    });
  });

  describe('provider failures are 502 UpstreamError without the provider text', () => {
    const failures: [string, Reply][] = [
      ['a 500', { status: 500, text: 'Internal provider stack trace SECRET-PROVIDER-TEXT' }],
      ['a body that is not JSON', { status: 200, text: '<html>SECRET-PROVIDER-TEXT</html>' }],
      ['JSON of another shape', { json: { results: 'SECRET-PROVIDER-TEXT' } }],
      [
        'an error status',
        { json: { status: 'REQUEST_DENIED', error_message: `The key ${KEY} is invalid. SECRET-PROVIDER-TEXT` } },
      ],
      ['no answer within the timeout', { hang: true }],
    ];
    for (const [what, reply] of failures) {
      it(`on ${what}, for every route`, async () => {
        maps.script({ [GEOCODE]: reply, [AUTOCOMPLETE]: reply, [DETAILS]: reply });
        const lat = (++query % 80) + 0.125;
        for (const r of [
          await reverse(`lat=${lat}&lng=-66.9`),
          await autocomplete(`query=${encodeURIComponent(fresh('fail'))}`),
          await place(`placeId=${encodeURIComponent(fresh('fail'))}`),
        ]) {
          expect(r.status, JSON.stringify(r.body)).toBe(502);
          expect(r.body.error).toBe('UpstreamError');
          expect(JSON.stringify(r.body)).not.toMatch(/SECRET-PROVIDER-TEXT|maps-test-key|127\.0\.0\.1/);
        }
        expect(maps.received).toHaveLength(3);
      });
    }

    it('does not keep a failure: the same query succeeds once the provider recovers', async () => {
      maps.script({ [GEOCODE]: { status: 503, text: 'down' } });
      expect((await reverse('lat=8.25&lng=-62.75')).status).toBe(502);
      maps.script({
        [GEOCODE]: {
          json: {
            status: 'OK',
            results: [{ formatted_address: 'Puerto Ordaz', place_id: 'p-po', address_components: [] }],
          },
        },
      });
      const r = await reverse('lat=8.25&lng=-62.75');
      expect(r.status).toBe(200);
      expect(r.body.placeId).toBe('p-po');
    });
  });

  describe('bad queries are 422 ValidationError naming each field, and never reach the provider', () => {
    const fieldsOf = (r: { status: number; body: any }) => {
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.error).toBe('ValidationError');
      return Object.keys(r.body.details.fieldErrors).sort();
    };

    it('reverse: lat and lng are required numbers within range', async () => {
      expect(fieldsOf(await reverse(''))).toEqual(['lat', 'lng']);
      expect(fieldsOf(await reverse('lat=90.5&lng=180.01'))).toEqual(['lat', 'lng']);
      expect(fieldsOf(await reverse('lat=-91&lng=-181'))).toEqual(['lat', 'lng']);
      expect(fieldsOf(await reverse('lat=abc&lng=0x10'))).toEqual(['lat', 'lng']);
      expect(fieldsOf(await reverse('lat=&lng=Infinity'))).toEqual(['lat', 'lng']);
      expect(fieldsOf(await reverse('lat=1&lat=2&lng=3'))).toEqual(['lat']);
      expect(fieldsOf(await reverse('lat=10'))).toEqual(['lng']);
      expect(maps.received).toEqual([]);
    });

    it('reverse accepts the range ends', async () => {
      maps.script({ [GEOCODE]: { json: { status: 'ZERO_RESULTS' } } });
      expect((await reverse('lat=-90&lng=180')).status).toBe(200);
      expect((await reverse('lat=90&lng=-180')).status).toBe(200);
    });

    it('autocomplete: query 2-120 characters, sessionToken at most 64', async () => {
      expect(fieldsOf(await autocomplete(''))).toEqual(['query']);
      expect(fieldsOf(await autocomplete('query=a'))).toEqual(['query']);
      expect(fieldsOf(await autocomplete('query=%20a%0B'))).toEqual(['query']);
      expect(fieldsOf(await autocomplete(`query=${'a'.repeat(121)}&sessionToken=${'s'.repeat(65)}`))).toEqual([
        'query',
        'sessionToken',
      ]);
      expect(maps.received).toEqual([]);
      maps.script({ [AUTOCOMPLETE]: { json: { status: 'ZERO_RESULTS' } } });
      expect((await autocomplete(`query=${'b'.repeat(120)}&sessionToken=${'s'.repeat(64)}`)).status).toBe(200);
    });

    it('place: placeId 1-300 characters, sessionToken at most 64', async () => {
      expect(fieldsOf(await place(''))).toEqual(['placeId']);
      expect(fieldsOf(await place('placeId='))).toEqual(['placeId']);
      expect(fieldsOf(await place(`placeId=${'p'.repeat(301)}&sessionToken=${'s'.repeat(65)}`))).toEqual([
        'placeId',
        'sessionToken',
      ]);
      expect(maps.received).toEqual([]);
    });
  });

  it('autocomplete and place need a valid token (401); reverse is public', async () => {
    for (const token of [undefined, 'not-a-token']) {
      for (const path of ['/api/v1/geocoding/autocomplete?query=Altamira', '/api/v1/geocoding/place?placeId=abc']) {
        const r = await request('GET', path, { token });
        expect(r.status).toBe(401);
        expect(r.body.error).toBe('Unauthorized');
      }
    }
    maps.script({ [GEOCODE]: { json: { status: 'ZERO_RESULTS' } } });
    expect((await reverse('lat=1.5&lng=2.5')).status).toBe(200);
    expect(maps.received.map((x) => x.path)).toEqual([GEOCODE]);
  });

  it('documents the three routes in OpenAPI', async () => {
    const doc = await request('GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    for (const p of ['/geocoding/reverse', '/geocoding/autocomplete', '/geocoding/place'])
      expect(
        Object.keys(doc.body.paths).some((k) => k.endsWith(p)),
        p,
      ).toBe(true);
  });
});
