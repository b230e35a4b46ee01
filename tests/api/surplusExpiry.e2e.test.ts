import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInClient, signInDriver, type SignedInDriver } from '../support/actors.js';
import { call, CARACAS, near } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

const MINUTE = 60_000;

/**
 * No OFFICIAL_RATE_VES and no development rate: this service has no
 * exchange rate, so a reservation is 422 ExchangeRateUnavailable.
 */
describe('surplus listings: expiry and a missing exchange rate', () => {
  let t: TestService;
  let api: ReturnType<typeof call>;
  const clock = new ManualClock();
  beforeAll(async () => {
    t = await startTestService({ clock, env: { DEVELOPMENT_RATE_VES: '0' } });
    api = call(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const tick = () => t.service.ctx.scheduler.tick();
  const publish = async (d: SignedInDriver, durationMinutes: number) => {
    const r = await api.post('/surplus', d.token, {
      availableLiters: 1000,
      totalAmount: 15,
      ...near(0.01),
      address: 'Av. Libertador, Caracas',
      durationMinutes,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.listing;
  };
  const nearbyIds = async (token: string) =>
    (await api.get(`/surplus/nearby?lat=${CARACAS.latitude}&lng=${CARACAS.longitude}`, token)).body.listings.map(
      (l: { id: number }) => l.id,
    );

  it('a listing past expires_at is EXPIRADA after the scheduler runs, and not reservable even before', async () => {
    const d = await signInDriver(t);
    const client = await signInClient(t);
    const short = await publish(d, 15);
    const long = await publish(d, 30);
    expect(await nearbyIds(client.token)).toEqual(expect.arrayContaining([short.id, long.id]));

    clock.advance(14 * MINUTE);
    await tick();
    expect(await nearbyIds(client.token)).toContain(short.id);

    clock.advance(MINUTE);
    // Due, timer not run yet: already out of the lists and not reservable.
    expect(await nearbyIds(client.token)).not.toContain(short.id);
    const late = await api.post(`/surplus/${short.id}/reserve`, client.token, {
      ...CARACAS,
      address: 'Av. Urdaneta, Caracas',
    });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('Conflict');

    await tick();
    expect((await api.get('/surplus/me', d.token)).body.listings.map((l: { id: number }) => l.id)).toEqual([long.id]);
    // An expired listing cannot be cancelled; a second tick records nothing more.
    expect((await api.del(`/surplus/${short.id}`, d.token)).status).toBe(409);
    await tick();
    // No route shows an expired listing (every list is of active ones), so the stream is the witness.
    const events = await t.service.ctx.store.readStream(`surplus-${short.id}`);
    expect(events.map((e) => e.type)).toEqual(['SurplusListed', 'SurplusExpired']);
  });

  it(
    'without an official exchange rate a reservation is 422 ' + 'ExchangeRateUnavailable and the listing stays ACTIVA',
    async () => {
      const listing = await publish(await signInDriver(t), 60);
      const client = await signInClient(t);
      const r = await api.post(`/surplus/${listing.id}/reserve`, client.token, {
        ...CARACAS,
        address: 'Av. Urdaneta, Caracas',
      });
      expect(r.status).toBe(422);
      expect(r.body.error).toBe('ExchangeRateUnavailable');
      expect(await nearbyIds(client.token)).toContain(listing.id);
    },
  );
});
