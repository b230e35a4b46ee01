import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAdmin, signInClient } from '../tests/support/actors.js';
import {
  expectNothingAppended,
  expectResponse,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../tests/support/apiSpecification.js';

/** Unbounded consumption (issue #20 finding 9): body sizes, public geocoding per address, page numbers. */
describe('consumption limits', () => {
  let t: ApiUnderTest;
  let maps: Server;
  let admin: string;
  beforeAll(async () => {
    // A maps provider that finds nothing: what matters is how often it is asked.
    maps = createServer((_req, res) =>
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ status: 'ZERO_RESULTS', results: [] })),
    );
    await new Promise<void>((r) => maps.listen(0, '127.0.0.1', () => r()));
    const mapsUrl = `http://127.0.0.1:${(maps.address() as AddressInfo).port}`;
    t = await startApiUnderTest({
      env: {
        TRUST_PROXY: 'loopback',
        MAPS_API_KEY: 'k',
        MAPS_PROVIDER_URL: mapsUrl,
        MAPS_CACHE_TTL_SECONDS: '0',
        GEOCODING_REVERSE_PER_IP_PER_MINUTE: '3',
      },
    });
    admin = (await signInAdmin(t)).token;
  });
  afterAll(async () => {
    await t?.stop();
    await new Promise<void>((r) => maps?.close(() => r()));
  });

  it('a 200 KB JSON body is refused with 413 before anything reads it, signed in or not', async () => {
    const big = { phone: '+584141234567', padding: 'x'.repeat(200 * 1024) };
    const anonymous = await refused(t, (api) => api.post('/auth/otp/request', undefined, big), 413, 'PayloadTooLarge');
    expect([anonymous.status, anonymous.body.error]).toEqual([413, 'PayloadTooLarge']);
    const client = await signInClient(t);
    const signedIn = await refused(
      t,
      (api) => api.patch('/me', client.token, { name: 'Ana', padding: 'x'.repeat(200 * 1024) }),
      413,
    );
    expect(signedIn.status).toBe(413);
    // A body well under the limit still goes through (a client's profile is kept as state: no event).
    expect(
      (
        await t
          .given()
          .when((api) => api.patch('/me', client.token, { name: 'Ana', padding: 'x'.repeat(50 * 1024) }))
          .then(expectResponse(200, { body: { user: { name: 'Ana' } } }), expectNothingAppended)
      ).status,
    ).toBe(200);
  });

  it('a station import keeps its own, larger limit', async () => {
    const header = 'name,address,latitude,longitude,tipo,description,landmark,city,opening_time,closing_time';
    const rows = Array.from(
      { length: 1200 },
      (_, i) =>
        `Pozo ${i},Calle ${i} ` +
        `${'con una dirección larga '.repeat(4)},${(8 + i * 0.001).toFixed(4)},-66.5,AGUA,,,Maturín,,`,
    );
    const csv = `${header}\n${rows.join('\n')}\n`;
    expect(Buffer.byteLength(csv)).toBeGreaterThan(150 * 1024);
    // Stations are kept as state, and the import is a job: the answer is all there is to see here.
    const res = await t
      .given()
      .when(() =>
        t.request('POST', '/api/v1/admin/stations/bulk-import', {
          token: admin,
          headers: { 'content-type': 'text/csv' },
          raw: csv,
        }),
      )
      .then(expectResponse(202));
    expect(res.status).toBe(202);
  });

  it(
    'public reverse geocoding: a few lookups per minute and address, ' +
      'then 429 with Retry-After; another address is unaffected',
    async () => {
      const reverse = (ip: string) =>
        t.request('GET', '/api/v1/geocoding/reverse?lat=10.5&lng=-66.9', { headers: { 'x-forwarded-for': ip } });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await reverse('198.51.100.7')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const cooldown = await refused(t, () => reverse('198.51.100.7'), 429, 'Cooldown');
      expect([cooldown.body.error, Number(cooldown.headers.get('retry-after')) > 0]).toEqual(['Cooldown', true]);
      expect((await reverse('198.51.100.8')).status).toBe(200);
    },
  );

  it('every page number has a maximum (422 naming page)', async () => {
    for (const path of [
      '/admin/admins',
      '/admin/drivers',
      '/admin/customers',
      '/admin/payments/pending',
      '/admin/reports/orders',
    ]) {
      const r = await refused(t, (api) => api.get(`${path}?page=1000001`, admin), 422, 'ValidationError');
      expect([r.status, Object.keys(r.body.details?.fieldErrors ?? {})], path).toEqual([422, ['page']]);
    }
  });
});
