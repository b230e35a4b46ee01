import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ratingStream } from '../../domain/rating/events.js';
import { ManualClock } from '../../infra/clock.js';
import { signInAdmin, signInClient, type SignedInUser } from '../../tests/support/actors.js';
import type { SignedInDriver } from '../../tests/support/actors.js';
import {
  expectError,
  expectNewEvents,
  expectNothingAppended,
  expectResponse,
  startApiUnderTest,
  type ApiUnderTest,
} from '../../tests/support/apiSpecification.js';
import { arrive, call, confirmedOrder, onlineDriver, orderBody, type Flow } from '../../tests/support/orderFlows.js';
import type { TestResponse } from '../../tests/support/testService.js';

describe('ratings', () => {
  let t: ApiUnderTest;
  let api: ReturnType<typeof call>;
  const clock = new ManualClock('2026-03-01T10:00:00Z');

  /** A cash order taken all the way to DELIVERED (orderFlows stops at arrival). */
  const deliveredOrder = async (opts: { client?: SignedInUser; driver?: SignedInDriver } = {}): Promise<Flow> => {
    const f = await confirmedOrder(t, opts);
    await arrive(t, f);
    const r = await api.post(`/orders/${f.orderId}/deliver`, f.driver.token, {
      actualLiters: 2000,
      deliveryPin: f.pin,
    });
    if (r.status !== 200) throw new Error(`deliver answered ${r.status}: ${JSON.stringify(r.body)}`);
    return f;
  };

  beforeAll(async () => {
    t = await startApiUnderTest({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it(
    'the customer rates the delivered order’s driver (only the customer, only ' +
      'a valid body); the rating shows on the receipt, /me and the summary',
    async () => {
      const driver = await onlineDriver(t);
      const f = await deliveredOrder({ driver });

      expect((await api.get(`/ratings/order/${f.orderId}`, f.client.token)).body).toEqual({ rating: null });
      expect((await api.get(`/orders/${f.orderId}/receipt`, f.client.token)).body.receipt.rating).toBeNull();
      expect((await api.get('/driver/rating', driver.token)).body).toEqual({
        average: 0,
        total: 0,
        distribution: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 },
        recent: [],
      });

      // Who may rate (domain/rating/rating.test.ts holds every party): a stranger gets 404, a non-customer party 403.
      const stranger = await signInClient(t);
      await t
        .given()
        .when((api) => api.post('/ratings', stranger.token, { orderId: f.orderId, score: 5 }))
        .then(expectError(404, 'OrderNotFound'), expectNothingAppended);
      expect((await api.get(`/ratings/order/${f.orderId}`, stranger.token)).status).toBe(404);
      for (const token of [driver.token, (await signInAdmin(t)).token]) {
        await t
          .given()
          .when((api) => api.post(`/orders/${f.orderId}/rating`, token, { score: 5 }))
          .then(expectError(403, 'Forbidden'), expectNothingAppended);
      }
      await t
        .given()
        .when((api) => api.post('/ratings', f.client.token, { orderId: 987_654_321, score: 5 }))
        .then(expectError(404, 'OrderNotFound'), expectNothingAppended);
      for (const path of ['/orders/987654321/rating', '/orders/abc/rating', '/orders/0/rating']) {
        await t
          .given()
          .when((api) => api.post(path, f.client.token, { score: 5 }))
          .then(expectError(404, 'OrderNotFound'), expectNothingAppended);
      }
      expect((await api.get('/ratings/order/abc', f.client.token)).status).toBe(404);
      expect((await t.request('POST', '/api/v1/ratings', { body: { orderId: f.orderId, score: 5 } })).status).toBe(401);

      // Bad bodies: 422 naming each field, on both routes.
      const cases: [Record<string, unknown>, string[]][] = [
        [{ score: 5 }, ['orderId']],
        [{ orderId: 'x', score: 5 }, ['orderId']],
        [{ orderId: f.orderId + 0.5, score: 5 }, ['orderId']],
        [{ orderId: -1, score: 5 }, ['orderId']],
        [{ orderId: f.orderId }, ['score']],
        [{ orderId: f.orderId, score: 0 }, ['score']],
        [{ orderId: f.orderId, score: 6 }, ['score']],
        [{ orderId: f.orderId, score: 4.5 }, ['score']],
        [{ orderId: f.orderId, score: '5' }, ['score']],
        [{ orderId: f.orderId, score: 5, tags: 'puntual' }, ['tags']],
        [{ orderId: f.orderId, score: 5, tags: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }, ['tags']],
        [{ orderId: f.orderId, score: 5, tags: ['x'.repeat(41)] }, ['tags.0']],
        [{ orderId: f.orderId, score: 5, tags: ['ok', '  '] }, ['tags.1']],
        [{ orderId: f.orderId, score: 5, tags: [7] }, ['tags.0']],
        [{ orderId: f.orderId, score: 5, comment: 'x'.repeat(501) }, ['comment']],
        [{ orderId: f.orderId, score: 5, comment: 12 }, ['comment']],
        [{ score: 9, comment: 'x'.repeat(501), tags: 3 }, ['orderId', 'score', 'tags', 'comment']],
      ];
      for (const [body, fields] of cases) {
        const r = await t
          .given()
          .when((api) => api.post('/ratings', f.client.token, body))
          .then(expectError(422, 'ValidationError'), expectNothingAppended);
        expect(Object.keys(r.body.details.fieldErrors).sort(), JSON.stringify(body)).toEqual([...fields].sort());
      }
      const alias = await t
        .given()
        .when((api) => api.post(`/orders/${f.orderId}/rating`, f.client.token, { score: 0, tags: ['x'.repeat(41)] }))
        .then(expectError(422, 'ValidationError'), expectNothingAppended);
      expect(Object.keys(alias.body.details.fieldErrors).sort()).toEqual(['score', 'tags.0']);
      // Nothing of the refused attempts was recorded.
      expect((await api.get(`/ratings/order/${f.orderId}`, f.client.token)).body).toEqual({ rating: null });

      const rated = await t
        .given()
        .when((api) =>
          api.post('/ratings', f.client.token, {
            orderId: f.orderId,
            score: 4,
            tags: [' puntual ', 'amable'],
            comment: 'Muy buen servicio',
          }),
        )
        .then(
          expectResponse(201),
          expectNewEvents(ratingStream(f.orderId), [
            {
              type: 'RatingSubmitted',
              data: {
                orderId: f.orderId,
                clientId: f.client.user.id,
                driverId: driver.driverId,
                score: 4,
                tags: ['puntual', 'amable'],
                comment: 'Muy buen servicio',
              },
            },
          ]),
        );
      expect(rated.body).toEqual({
        rating: {
          id: expect.any(Number),
          order_id: f.orderId,
          from_user_id: f.client.user.id,
          to_driver_id: driver.driverId,
          score: 4,
          comment: 'Muy buen servicio',
          tags: ['puntual', 'amable'],
          created_at: '2026-03-01T10:00:00.000Z',
          updated_at: '2026-03-01T10:00:00.000Z',
        },
        driver: { avgRating: 4, totalRatings: 1 },
      });

      expect((await api.get(`/ratings/order/${f.orderId}`, f.client.token)).body).toEqual({
        rating: rated.body.rating,
      });
      // Only its author reads it here.
      expect((await api.get(`/ratings/order/${f.orderId}`, driver.token)).body).toEqual({ rating: null });
      const receipt = await api.get(`/orders/${f.orderId}/receipt`, f.client.token);
      expect(receipt.status).toBe(200);
      expect(receipt.body.receipt.rating).toEqual({
        score: 4,
        comment: 'Muy buen servicio',
        tags: ['puntual', 'amable'],
        created_at: '2026-03-01T10:00:00.000Z',
      });
      expect((await api.get('/me', driver.token)).body.user.driver).toMatchObject({ avgRating: 4 });

      // A second order rated through the alias, later, with a blank comment and the longest tags allowed.
      clock.advance(60_000);
      const g = await deliveredOrder({ driver });
      const tags = ['a', 'b', 'c', 'd', 'e', 'x'.repeat(40)];
      const second = await t
        .given()
        .when((api) => api.post(`/orders/${g.orderId}/rating`, g.client.token, { score: 5, comment: '   ', tags }))
        .then(
          expectResponse(201),
          expectNewEvents(ratingStream(g.orderId), [
            { type: 'RatingSubmitted', data: { orderId: g.orderId, score: 5, comment: null, tags } },
          ]),
        );
      expect(second.body.rating).toMatchObject({ order_id: g.orderId, score: 5, comment: null });
      expect(second.body.rating.tags).toHaveLength(6);
      expect(second.body.driver).toEqual({ avgRating: 4.5, totalRatings: 2 });

      // Average, distribution and the commented ones only (projections/ratings/ratingViews.int.test.ts holds the rest).
      const summary = await api.get('/driver/rating', driver.token);
      expect(summary.status).toBe(200);
      expect(summary.body).toEqual({
        average: 4.5,
        total: 2,
        distribution: { 1: 0, 2: 0, 3: 0, 4: 1, 5: 1 },
        recent: [
          {
            score: 4,
            comment: 'Muy buen servicio',
            tags: ['puntual', 'amable'],
            created_at: '2026-03-01T10:00:00.000Z',
          },
        ],
      });
      expect((await api.get('/me', driver.token)).body.user.driver).toMatchObject({ avgRating: 4.5, ratingsCount: 2 });
    },
  );

  it(
    'refuses an order before it is delivered (409 OrderNotDelivered), then lets ' +
      'exactly one of concurrent ratings through: one 201, the others 409 AlreadyRated',
    async () => {
      const driver = await onlineDriver(t);
      const f = await confirmedOrder(t, { driver });
      await t
        .given()
        .when((api) => api.post('/ratings', f.client.token, { orderId: f.orderId, score: 5 }))
        .then(expectError(409, 'OrderNotDelivered'), expectNothingAppended);
      await arrive(t, f);
      await t
        .given()
        .when((api) => api.post(`/orders/${f.orderId}/rating`, f.client.token, { score: 5 }))
        .then(expectError(409, 'OrderNotDelivered'), expectNothingAppended);
      expect((await api.get(`/orders/${f.orderId}/receipt`, f.client.token)).status).toBe(409);
      expect(
        (await api.post(`/orders/${f.orderId}/deliver`, driver.token, { actualLiters: 2000, deliveryPin: f.pin }))
          .status,
      ).toBe(200);

      // Every body is valid (the longest comment allowed among them): a refusal is the race, never validation.
      const rs: TestResponse[] = [];
      await t
        .given()
        .when(async (api) => {
          rs.push(
            ...(await Promise.all([
              api.post('/ratings', f.client.token, { orderId: f.orderId, score: 5 }),
              api.post(`/orders/${f.orderId}/rating`, f.client.token, { score: 1, comment: 'x'.repeat(500) }),
              api.post('/ratings', f.client.token, { orderId: f.orderId, score: 3 }),
            ])),
          );
          return rs.find((r) => r.status === 201) ?? rs[0];
        })
        .then(
          expectResponse(201),
          // One rating recorded: the winner's.
          async (outcome) =>
            expectNewEvents(ratingStream(f.orderId), [
              { type: 'RatingSubmitted', data: { score: outcome.response.body.rating.score } },
            ])(outcome),
        );
      expect(rs.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      for (const r of rs.filter((x) => x.status === 409)) expect(r.body.error).toBe('AlreadyRated');
      const winner = rs.find((r) => r.status === 201)!.body.rating;
      expect((await api.get(`/ratings/order/${f.orderId}`, f.client.token)).body.rating).toEqual(winner);
      expect((await api.get('/driver/rating', driver.token)).body).toMatchObject({ total: 1, average: winner.score });
      expect((await api.get('/me', driver.token)).body.user.driver).toMatchObject({
        avgRating: winner.score,
        ratingsCount: 1,
      });

      await t
        .given()
        .when((api) => api.post(`/orders/${f.orderId}/rating`, f.client.token, { score: 2 }))
        .then(expectError(409, 'AlreadyRated'), expectNothingAppended);
    },
  );

  it('refuses an order without a driver: 409 NoDriverAssigned on both routes', async () => {
    const client = await signInClient(t);
    const open = await api.post('/orders', client.token, orderBody());
    expect(open.status).toBe(201);
    await t
      .given()
      .when((api) => api.post('/ratings', client.token, { orderId: open.body.order.id, score: 5 }))
      .then(expectError(409, 'NoDriverAssigned'), expectNothingAppended);
    await t
      .given()
      .when((api) => api.post(`/orders/${open.body.order.id}/rating`, client.token, { score: 5 }))
      .then(expectError(409, 'NoDriverAssigned'), expectNothingAppended);
  });

  it('serves the rating summary to drivers only', async () => {
    const client = await signInClient(t);
    expect((await api.get('/driver/rating', client.token)).status).toBe(403);
    expect((await api.get('/driver/rating', (await signInAdmin(t)).token)).status).toBe(403);
    expect((await t.request('GET', '/api/v1/driver/rating')).status).toBe(401);
  });
});
