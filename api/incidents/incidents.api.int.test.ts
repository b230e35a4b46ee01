import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentStream } from '../../domain/incident/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient } from '../../tests/support/actors.js';
import {
  expectError,
  expectNewEvents,
  expectNothingAppended,
  expectResponse,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { arrive, call, confirmedOrder, onlineDriver } from '../../tests/support/orderFlows.js';
import type { TestResponse } from '../../tests/support/testService.js';

const streamOfIncident = (r: TestResponse) => incidentStream(r.body.incident.id);

describe('incidents', () => {
  let t: ApiUnderTest;
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

    const byDriver = await t
      .given()
      .when((api) => api.post(`/orders/${f.orderId}/incidents`, driver.token, { type: 'ACCESO_BLOQUEADO' }))
      .then(
        expectResponse(201),
        expectNewEvents(streamOfIncident, [
          {
            type: 'IncidentReported',
            data: {
              orderId: f.orderId,
              type: 'ACCESO_BLOQUEADO',
              description: null,
              reporterRole: 'DRIVER',
              reporterId: driver.user.id,
              reporterName: 'Pedro Conductor',
              reportedAt: '2026-03-01T10:00:00.000Z',
            },
          },
        ]),
      );
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
    const byClient = await t
      .given()
      .when((api) =>
        api.post(`/orders/${f.orderId}/incidents`, client.token, {
          type: 'OTRO',
          description: '  El camión bloquea la salida  ',
        }),
      )
      .then(
        expectResponse(201, {
          body: {
            incident: {
              type: 'OTRO',
              description: 'El camión bloquea la salida',
              reporter_role: 'CLIENT',
              reporter: { id: client.user.id, name: 'Ana Cliente' },
              created_at: '2026-03-01T10:01:00.000Z',
            },
          },
        }),
        expectNewEvents(streamOfIncident, [
          {
            type: 'IncidentReported',
            data: {
              type: 'OTRO',
              description: 'El camión bloquea la salida',
              reporterRole: 'CLIENT',
              reporterId: client.user.id,
            },
          },
        ]),
      );

    // Incidents stay reportable through the rest of the order's life, delivered included.
    await arrive(t, f);
    expect(
      (await api.post(`/orders/${f.orderId}/deliver`, driver.token, { actualLiters: 2000, deliveryPin: f.pin })).status,
    ).toBe(200);
    clock.advance(60_000);
    const late = await t
      .given()
      .when((api) =>
        api.post(`/orders/${f.orderId}/incidents`, client.token, { type: 'AGUA_INSUFICIENTE', description: null }),
      )
      .then(
        expectResponse(201),
        expectNewEvents(streamOfIncident, [
          { type: 'IncidentReported', data: { type: 'AGUA_INSUFICIENTE', description: null } },
        ]),
      );

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
      const admin = await signInAdmin(t);
      const refusals: [string, (api: ReturnType<typeof call>) => Promise<TestResponse>, number, string][] = [
        [
          'a stranger reports',
          (api) => api.post(`/orders/${f.orderId}/incidents`, stranger.token, { type: 'OTRO', description: 'x' }),
          404,
          'OrderNotFound',
        ],
        ['a stranger reads', (api) => api.get(`/orders/${f.orderId}/incidents`, stranger.token), 404, 'OrderNotFound'],
        [
          'an admin reports',
          (api) => api.post(`/orders/${f.orderId}/incidents`, admin.token, { type: 'PROBLEMA_PAGO' }),
          403,
          'Forbidden',
        ],
        ['an admin reads', (api) => api.get(`/orders/${f.orderId}/incidents`, admin.token), 403, 'Forbidden'],
      ];
      for (const path of ['/orders/987654321/incidents', '/orders/abc/incidents', '/orders/-3/incidents']) {
        refusals.push([
          `report on ${path}`,
          (api) => api.post(path, f.client.token, { type: 'PROBLEMA_PAGO' }),
          404,
          'OrderNotFound',
        ]);
      }
      for (const [, request, status, error] of refusals)
        await t.given().when(request).then(expectError(status, error), expectNothingAppended);
      for (const path of ['/orders/987654321/incidents', '/orders/abc/incidents', '/orders/-3/incidents'])
        expect((await api.get(path, f.client.token)).status).toBe(404);
      expect((await t.request('GET', `/api/v1/orders/${f.orderId}/incidents`)).status).toBe(401);
      await t
        .given()
        .when(() =>
          t.request('POST', `/api/v1/orders/${f.orderId}/incidents`, { body: { type: 'OTRO', description: 'x' } }),
        )
        .then(expectResponse(401), expectNothingAppended);

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
        const r = await t
          .given()
          .when((api) => api.post(`/orders/${f.orderId}/incidents`, f.client.token, body))
          .then(expectError(422, 'ValidationError'), expectNothingAppended);
        expect(Object.keys(r.body.details.fieldErrors).sort(), JSON.stringify(body)).toEqual([...fields].sort());
      }
      expect((await api.get(`/orders/${f.orderId}/incidents`, f.client.token)).body).toEqual({ incidents: [] });

      // Concurrent reports, the longest description allowed among them: each recorded with its own id, once.
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
      for (const [i, r] of rs.entries()) {
        const events = await t.service.ctx.store.readStream(streamOfIncident(r));
        expect(events.map((e) => [e.type, (e.data as { description: string }).description])).toEqual([
          ['IncidentReported', i === 5 ? 'x'.repeat(1000) : `reporte ${i}`],
        ]);
      }
      expect((await api.get(`/orders/${f.orderId}/incidents`, f.driver.token)).body.incidents).toHaveLength(6);
    },
  );
});
