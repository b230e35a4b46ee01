import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RatingSubmittedData } from '../../domain/rating/events.js';
import { projectorOnEmbedded, type ProjectorUnderTest } from '../../tests/support/projectorSpec.js';
import { driversMigrations, driversProjector } from '../drivers/driversProjector.js';
import { projector } from '../projector.js';
import { ratingForOrder, ratingSummaryOfDriver } from './ratingQueries.js';
import { ratingViewMigrations, ratingViewsProjector } from './ratingViews.js';

/**
 * The ratings read models on a test database of the embedded PostgreSQL: given RatingSubmitted events, the driver's summary
 * (GET /driver/rating), the receipt's rating, and the drivers row's avg_rating (GET /me, the POST answer).
 */

const at = (minute: number) => new Date(Date.parse('2026-03-01T10:00:00Z') + minute * 60_000).toISOString();
let nextOrder = 100;
const rated = (driverId: number, score: number, over: Partial<RatingSubmittedData> = {}) => {
  const orderId = ++nextOrder;
  const data: RatingSubmittedData = {
    ratingId: orderId,
    orderId,
    clientId: 7,
    driverId,
    score,
    tags: [],
    comment: null,
    ratedAt: at(0),
    ...over,
  };
  return { streamId: `rating-${orderId}`, events: [{ type: 'RatingSubmitted', data }] };
};

/** The two projectors a rating reaches (ratings, drivers), on one in-memory database: the test pays for one database. */
const both = projector('ratings+drivers', {
  tables: [...ratingViewsProjector.tables, ...driversProjector.tables],
  handlers: {
    ...driversProjector.handlers,
    RatingSubmitted: async (trx, e, emit) => {
      await ratingViewsProjector.handlers.RatingSubmitted(trx, e, emit);
      await driversProjector.handlers.RatingSubmitted(trx, e, emit);
    },
  },
});

let t: ProjectorUnderTest;
beforeAll(async () => {
  t = await projectorOnEmbedded(both, { ...driversMigrations, ...ratingViewMigrations });
});
afterAll(() => t?.close());

const given = (r: ReturnType<typeof rated>) => t.given(r.streamId, r.events);
const registerDriver = (driverId: number) =>
  t.given(`driver-${driverId}`, [
    {
      type: 'DriverRegistered',
      data: { driverId, userId: 1000 + driverId, phone: `+58414000${driverId}`, name: 'Pedro', registeredAt: at(0) },
    },
  ]);
const driverRow = (driverId: number) =>
  t.db
    .selectFrom('drivers')
    .select(['avg_rating', 'ratings_count'])
    .where('driver_id', '=', driverId)
    .executeTakeFirstOrThrow();

describe('ratings read models', () => {
  it(
    'summarises a driver: average, total, distribution by score, ' +
      'and the latest commented ratings without who gave them',
    async () => {
      await registerDriver(1);
      expect(await ratingSummaryOfDriver(t.db, 1)).toEqual({
        average: 0,
        total: 0,
        distribution: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 },
        recent: [],
      });
      const first = rated(1, 4, { tags: ['puntual', 'amable'], comment: 'Muy buen servicio', ratedAt: at(0) });
      await given(first);
      await given(rated(1, 5, { ratedAt: at(1) }));
      await given(rated(1, 4, { ratedAt: at(2) }));
      await given(rated(1, 1, { tags: ['tarde'], comment: 'Llegó tarde', ratedAt: at(3) }));
      expect(await ratingSummaryOfDriver(t.db, 1)).toEqual({
        average: 3.5,
        total: 4,
        distribution: { 1: 1, 2: 0, 3: 0, 4: 2, 5: 1 },
        recent: [
          { score: 1, comment: 'Llegó tarde', tags: ['tarde'], created_at: '2026-03-01T10:03:00.000Z' },
          {
            score: 4,
            comment: 'Muy buen servicio',
            tags: ['puntual', 'amable'],
            created_at: '2026-03-01T10:00:00.000Z',
          },
        ],
      });
      expect(await driverRow(1)).toEqual({ avg_rating: 3.5, ratings_count: 4 });
      expect(await ratingForOrder(t.db, first.events[0].data.orderId)).toEqual({
        score: 4,
        comment: 'Muy buen servicio',
        tags: ['puntual', 'amable'],
        created_at: '2026-03-01T10:00:00.000Z',
      });
      expect(await ratingForOrder(t.db, 999)).toBeNull();
    },
  );

  it('keeps the drivers row and the summary on the same non-terminating average', async () => {
    await registerDriver(2);
    for (const score of [5, 4, 4]) await given(rated(2, score));
    const row = await driverRow(2);
    expect(row).toEqual({ avg_rating: 13 / 3, ratings_count: 3 });
    expect(await ratingSummaryOfDriver(t.db, 2)).toMatchObject({ average: 13 / 3, total: 3, recent: [] });
  });
});
