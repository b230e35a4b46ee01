import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient } from '../../tests/support/actors.js';
import { startApiUnderTest } from '../../tests/support/apiSpecification.js';
import { arrive, call, confirmedOrder, onlineDriver } from '../../tests/support/orderFlows.js';
import type { TestService } from '../../tests/support/testService.js';

describe('incidents', () => {
  let t: TestService;
  let api: ReturnType<typeof call>;
  const clock = new ManualClock('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    t = await startApiUnderTest({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('the customer and the driver report incidents; both read them newest first', async () => {
    const client = await signInClient(t, undefined, 'Ana Cliente');
    const driver = await onlineDriver(t, { name: 'Pedro Conductor' });
    const f = await confirmedOrder(t, { client, driver });
    expect((await api.get(`/orders/${f.orderId}/incidents`, client.token)).body).toEqual({ incidents: [] });

    const byDriver = await api.post(`/orders/${f.orderId}/incidents`, driver.token, { type: 'ACCESO_BLOQUEADO' });
    expect(byDriver.status).toBe(201);
    expect(byDriver.body).toEqual({
      incident: {
        id: expect.any(Number),
        order_id: f.orderId,
        type: 'ACCESO_BLOQUEADO',
        description: null,
        reporter_role: 'DRIVER',
        reporter: { id: driver.user.id, name: 'Pedro Conductor' },
        created_at: '2026-03-01T10:00:00.000Z',
      },
    });

    clock.advance(60_000);
    const byClient = await api.post(`/orders/${f.orderId}/incidents`, client.token, {
      type: 'OTRO',
      description: '  El camión bloquea la salida  ',
    });
    expect(byClient.status).toBe(201);
    expect(byClient.body.incident).toMatchObject({
      type: 'OTRO',
      description: 'El camión bloquea la salida',
      reporter_role: 'CLIENT',
      reporter: { id: client.user.id, name: 'Ana Cliente' },
      created_at: '2026-03-01T10:01:00.000Z',
    });

    // Incidents stay reportable through the rest of the order's life, delivered included.
    await arrive(t, f);
    expect(
      (await api.post(`/orders/${f.orderId}/deliver`, driver.token, { actualLiters: 2000, deliveryPin: f.pin })).status,
    ).toBe(200);
    clock.advance(60_000);
    const late = await api.post(`/orders/${f.orderId}/incidents`, client.token, {
      type: 'AGUA_INSUFICIENTE',
      description: null,
    });
    expect(late.status).toBe(201);

    for (const token of [client.token, driver.token]) {
      const list = await api.get(`/orders/${f.orderId}/incidents`, token);
      expect(list.status).toBe(200);
      expect(list.body.incidents.map((i: { id: number }) => i.id)).toEqual([
        late.body.incident.id,
        byClient.body.incident.id,
        byDriver.body.incident.id,
      ]);
      expect(list.body.incidents[2]).toEqual(byDriver.body.incident);
    }
  });

  it(
    'answers strangers 404, non-participants 403 and bad bodies 422 on both ' +
      'routes, recording nothing; then records every one of many concurrent reports',
    async () => {
      // Who is a participant is domain/incident/incident.test.ts's; here each refusal's HTTP answer, once.
      const f = await confirmedOrder(t);
      const stranger = await signInClient(t);
      const post = await api.post(`/orders/${f.orderId}/incidents`, stranger.token, { type: 'OTRO', description: 'x' });
      expect([post.status, post.body.error]).toEqual([404, 'OrderNotFound']);
      const get = await api.get(`/orders/${f.orderId}/incidents`, stranger.token);
      expect([get.status, get.body.error]).toEqual([404, 'OrderNotFound']);
      const admin = await signInAdmin(t);
      const adminPost = await api.post(`/orders/${f.orderId}/incidents`, admin.token, { type: 'PROBLEMA_PAGO' });
      expect([adminPost.status, adminPost.body.error]).toEqual([403, 'Forbidden']);
      const adminGet = await api.get(`/orders/${f.orderId}/incidents`, admin.token);
      expect([adminGet.status, adminGet.body.error]).toEqual([403, 'Forbidden']);
      for (const path of ['/orders/987654321/incidents', '/orders/abc/incidents', '/orders/-3/incidents']) {
        const r = await api.post(path, f.client.token, { type: 'PROBLEMA_PAGO' });
        expect([r.status, r.body.error]).toEqual([404, 'OrderNotFound']);
        expect((await api.get(path, f.client.token)).status).toBe(404);
      }
      expect((await t.request('GET', `/api/v1/orders/${f.orderId}/incidents`)).status).toBe(401);
      expect(
        (await t.request('POST', `/api/v1/orders/${f.orderId}/incidents`, { body: { type: 'OTRO', description: 'x' } }))
          .status,
      ).toBe(401);

      const cases: [Record<string, unknown>, string[]][] = [
        [{}, ['type']],
        [{ type: 'INCENDIO' }, ['type']],
        [{ type: 'acceso_bloqueado' }, ['type']],
        [{ type: 3 }, ['type']],
        [{ type: 'OTRO' }, ['description']],
        [{ type: 'OTRO', description: null }, ['description']],
        [{ type: 'OTRO', description: '   ' }, ['description']],
        [{ type: 'PROBLEMA_PAGO', description: 'x'.repeat(1001) }, ['description']],
        [{ type: 'PROBLEMA_PAGO', description: 42 }, ['description']],
        [{ type: 'NADA', description: 42 }, ['type', 'description']],
      ];
      for (const [body, fields] of cases) {
        const r = await api.post(`/orders/${f.orderId}/incidents`, f.client.token, body);
        expect(r.status, JSON.stringify(body)).toBe(422);
        expect(r.body.error).toBe('ValidationError');
        expect(Object.keys(r.body.details.fieldErrors).sort(), JSON.stringify(body)).toEqual([...fields].sort());
      }
      expect((await api.get(`/orders/${f.orderId}/incidents`, f.client.token)).body).toEqual({ incidents: [] });

      // Concurrent reports, the longest description allowed among them: each recorded with its own id.
      const rs = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          api.post(`/orders/${f.orderId}/incidents`, i % 2 ? f.client.token : f.driver.token, {
            type: 'OTRO',
            description: i === 5 ? 'x'.repeat(1000) : `reporte ${i}`,
          }),
        ),
      );
      expect(rs.map((r) => r.status)).toEqual(Array(6).fill(201));
      expect(new Set(rs.map((r) => r.body.incident.id)).size).toBe(6);
      expect((await api.get(`/orders/${f.orderId}/incidents`, f.driver.token)).body.incidents).toHaveLength(6);
    },
  );
});
