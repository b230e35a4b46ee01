import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import { INCIDENT_TYPES } from '../../domain/incident/events.js';
import { signInAdmin, signInClient } from '../support/actors.js';
import { arrive, call, confirmedOrder, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

describe('incidents', () => {
  let t: TestService;
  let api: ReturnType<typeof call>;
  const clock = new ManualClock('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    t = await startTestService({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
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
    const byClient = await api.post(`/orders/${f.orderId}/incidents`, client.token, { type: 'OTRO', description: '  El camión bloquea la salida  ' });
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
    expect((await api.post(`/orders/${f.orderId}/deliver`, driver.token, { actualLiters: 2000, deliveryPin: f.pin })).status).toBe(200);
    clock.advance(60_000);
    const late = await api.post(`/orders/${f.orderId}/incidents`, client.token, { type: 'AGUA_INSUFICIENTE', description: null });
    expect(late.status).toBe(201);

    for (const token of [client.token, driver.token]) {
      const list = await api.get(`/orders/${f.orderId}/incidents`, token);
      expect(list.status).toBe(200);
      expect(list.body.incidents.map((i: { id: number }) => i.id)).toEqual([late.body.incident.id, byClient.body.incident.id, byDriver.body.incident.id]);
      expect(list.body.incidents[2]).toEqual(byDriver.body.incident);
    }
  });

  it('accepts every incident type of the spec', async () => {
    const f = await confirmedOrder(t);
    for (const type of INCIDENT_TYPES) {
      const r = await api.post(`/orders/${f.orderId}/incidents`, f.driver.token, { type, description: type === 'OTRO' ? 'Otra cosa' : undefined });
      expect(r.status, type).toBe(201);
      expect(r.body.incident.type).toBe(type);
    }
    expect((await api.get(`/orders/${f.orderId}/incidents`, f.client.token)).body.incidents).toHaveLength(INCIDENT_TYPES.length);
  });

  it('answers strangers 404 and non-participants 403, on both routes', async () => {
    const client = await signInClient(t);
    const winner = await onlineDriver(t);
    const loser = await onlineDriver(t);
    const created = await api.post('/orders', client.token, orderBody());
    const orderId: number = created.body.order.id;
    expect((await api.post(`/orders/${orderId}/accept`, loser.token, {})).status).toBe(201);
    const bid = await api.post(`/orders/${orderId}/accept`, winner.token, {});
    expect((await api.post(`/orders/offers/${bid.body.offer.id}/accept`, client.token)).status).toBe(200);

    const stranger = await signInClient(t);
    const strangerDriver = await onlineDriver(t);
    for (const token of [stranger.token, strangerDriver.token]) {
      const post = await api.post(`/orders/${orderId}/incidents`, token, { type: 'OTRO', description: 'x' });
      expect([post.status, post.body.error]).toEqual([404, 'OrderNotFound']);
      const get = await api.get(`/orders/${orderId}/incidents`, token);
      expect([get.status, get.body.error]).toEqual([404, 'OrderNotFound']);
    }
    for (const token of [loser.token, (await signInAdmin(t)).token]) {
      const post = await api.post(`/orders/${orderId}/incidents`, token, { type: 'PROBLEMA_PAGO' });
      expect([post.status, post.body.error]).toEqual([403, 'Forbidden']);
      const get = await api.get(`/orders/${orderId}/incidents`, token);
      expect([get.status, get.body.error]).toEqual([403, 'Forbidden']);
    }
    for (const path of ['/orders/987654321/incidents', '/orders/abc/incidents', '/orders/-3/incidents']) {
      const post = await api.post(path, client.token, { type: 'PROBLEMA_PAGO' });
      expect([post.status, post.body.error]).toEqual([404, 'OrderNotFound']);
      expect((await api.get(path, client.token)).status).toBe(404);
    }
    expect((await t.request('GET', `/api/v1/orders/${orderId}/incidents`)).status).toBe(401);
    expect((await t.request('POST', `/api/v1/orders/${orderId}/incidents`, { body: { type: 'OTRO', description: 'x' } })).status).toBe(401);
    expect((await api.get(`/orders/${orderId}/incidents`, client.token)).body).toEqual({ incidents: [] });
  });

  it('answers bad bodies with 422 naming each field, and records nothing', async () => {
    const f = await confirmedOrder(t);
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
    const edge = await api.post(`/orders/${f.orderId}/incidents`, f.client.token, { type: 'OTRO', description: 'x'.repeat(1000) });
    expect(edge.status).toBe(201);
  });

  it('records every one of many concurrent reports, each with its own id', async () => {
    const f = await confirmedOrder(t);
    const rs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api.post(`/orders/${f.orderId}/incidents`, i % 2 ? f.client.token : f.driver.token, { type: 'OTRO', description: `reporte ${i}` })),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(rs.map((r) => r.body.incident.id)).size).toBe(6);
    expect((await api.get(`/orders/${f.orderId}/incidents`, f.driver.token)).body.incidents).toHaveLength(6);
  });
});
