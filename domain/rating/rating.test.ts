import { describe, expect, it } from 'vitest';
import { errorOf } from '../../tests/support/deciderSpec.js';
import type { RatingEvent } from './events.js';
import { decide, evolve, initialState, type RateDriver, type RatingState } from './rating.js';

const now = new Date('2026-01-01T12:00:00Z');

const rate = (over: Partial<RateDriver> = {}): RateDriver => ({
  type: 'RateDriver',
  ratingId: 9,
  order: { id: 3, clientId: 11, driverId: 5, status: 'DELIVERED' },
  party: 'CLIENT',
  score: 4,
  tags: ['puntual'],
  comment: 'Muy amable',
  now,
  ...over,
});

const given = (...events: RatingEvent[]): RatingState => events.reduce(evolve, initialState);

const failure = (cmd: RateDriver, state: RatingState = initialState) => {
  const e = errorOf(() => decide(cmd, state));
  return { kind: e.kind, code: e.code, fields: Object.keys((e.details?.fieldErrors as object) ?? {}) };
};

describe('rating decider', () => {
  it('records the customer’s rating of the delivered order’s driver', () => {
    expect(decide(rate(), initialState)).toEqual([
      {
        type: 'RatingSubmitted',
        data: {
          ratingId: 9,
          orderId: 3,
          clientId: 11,
          driverId: 5,
          score: 4,
          tags: ['puntual'],
          comment: 'Muy amable',
          ratedAt: '2026-01-01T12:00:00.000Z',
        },
      },
    ]);
  });

  it('rates an order exactly once', () => {
    const rated = given(...decide(rate(), initialState));
    expect(rated).toMatchObject({ ratingId: 9, score: 4 });
    expect(failure(rate({ ratingId: 10, score: 1 }), rated)).toMatchObject({ kind: 'conflict', code: 'AlreadyRated' });
  });

  it('answers strangers as if the order did not exist, and other parties 403', () => {
    expect(failure(rate({ order: null, party: null }))).toMatchObject({ kind: 'not_found', code: 'OrderNotFound' });
    expect(failure(rate({ party: null }))).toMatchObject({ kind: 'not_found', code: 'OrderNotFound' });
    for (const party of ['DRIVER', 'BIDDER', 'ADMIN'] as const)
      expect(failure(rate({ party }))).toMatchObject({ kind: 'forbidden', code: 'Forbidden' });
  });

  it('needs a driver, then a delivered order', () => {
    expect(failure(rate({ order: { id: 3, clientId: 11, driverId: null, status: 'BROADCASTING' } }))).toMatchObject({
      code: 'NoDriverAssigned',
      kind: 'conflict',
    });
    expect(failure(rate({ order: { id: 3, clientId: 11, driverId: null, status: 'CANCELLED' } }))).toMatchObject({
      code: 'NoDriverAssigned',
    });
    for (const status of ['CONFIRMED', 'IN_PROGRESS', 'ARRIVED', 'CANCELLED'])
      expect(failure(rate({ order: { id: 3, clientId: 11, driverId: 5, status } }))).toMatchObject({
        code: 'OrderNotDelivered',
        kind: 'conflict',
      });
  });

  it('names each bad field', () => {
    expect(failure(rate({ score: 0 })).fields).toEqual(['score']);
    expect(failure(rate({ score: 6 })).fields).toEqual(['score']);
    expect(failure(rate({ score: 4.5 })).fields).toEqual(['score']);
    expect(failure(rate({ tags: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] })).fields).toEqual(['tags']);
    expect(failure(rate({ tags: ['x'.repeat(41)] })).fields).toEqual(['tags']);
    expect(failure(rate({ tags: [''] })).fields).toEqual(['tags']);
    expect(failure(rate({ comment: 'x'.repeat(501), score: 9 })).fields).toEqual(['score', 'comment']);
    expect(
      decide(
        rate({ tags: ['a', 'b', 'c', 'd', 'e', 'x'.repeat(40)], comment: 'x'.repeat(500), score: 1 }),
        initialState,
      ),
    ).toHaveLength(1);
    expect(decide(rate({ tags: [], comment: null, score: 5 }), initialState)[0].data).toMatchObject({
      tags: [],
      comment: null,
      score: 5,
    });
  });
});
