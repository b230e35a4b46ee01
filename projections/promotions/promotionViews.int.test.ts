import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promotionDecider, type PromotionCommand } from '../../domain/promotion/campaign.js';
import { promotionStream } from '../../domain/promotion/events.js';
import { spec } from '../../tests/support/deciderSpec.js';
import { sampleTerms } from '../../tests/support/promotionTerms.js';
import { projectorOnEmbedded, type ProjectorUnderTest } from '../../tests/support/projectorSpec.js';
import { grantsOf, listPromotions, promotionById } from './promotionQueries.js';
import { promotionViewMigrations, promotionViewsProjector } from './promotionViews.js';

/** The campaigns read model on a test database of the embedded PostgreSQL: given a campaign's events, its row, counters and grant rows. */

const NOW = new Date('2026-05-10T12:00:00.000Z');
const terms = sampleTerms({
  description: 'Dos entregas',
  milestoneBasis: 'CAMPAIGN',
  amountCents: 250,
  cityId: 1,
  startsAt: '2026-05-01T00:00:00.000Z',
  maxGrants: 10,
});
const create = (promotionId: number): PromotionCommand => ({
  type: 'CreatePromotion',
  promotionId,
  terms,
  cityKnown: true,
  now: new Date('2026-04-30T09:00:00.000Z'),
});
const grant = (userId: number, grantId: number): PromotionCommand => ({
  type: 'GrantMilestone',
  grantId,
  userId,
  driverId: null,
  orderId: 900 + userId,
  cityId: 1,
  deliveredAt: NOW,
  countedDeliveries: 2,
  now: NOW,
});

let t: ProjectorUnderTest;
beforeAll(async () => {
  t = await projectorOnEmbedded(promotionViewsProjector, promotionViewMigrations);
  // The grant rows' user join reads users; a table with the columns it reads stands in for the identity area's.
  await t.db.schema
    .createTable('users')
    .addColumn('id', 'bigint')
    .addColumn('name', 'text')
    .addColumn('phone', 'text')
    .execute();
  await sql`INSERT INTO users (id, name, phone) VALUES (5, 'Ana', '+584140000005'), (6, NULL, '+584140000006')`.execute(
    t.db,
  );
});
afterAll(() => t?.close());

const given = (promotionId: number, ...commands: PromotionCommand[]) =>
  t.given(promotionStream(promotionId), spec(promotionDecider).history(commands));

describe('promotions read model', () => {
  it('holds a created campaign with its terms and the id its stream carries', async () => {
    await given(41, create(41));
    expect(await promotionById(t.db, 41)).toMatchObject({
      id: 41,
      name: 'Hito',
      description: 'Dos entregas',
      audience: 'CLIENT',
      credit_scope: 'ORDERS',
      milestone_orders: 2,
      milestone_basis: 'CAMPAIGN',
      amount_cents: 250,
      city_id: 1,
      starts_at: new Date(terms.startsAt!),
      ends_at: null,
      max_grants: 10,
      grants_count: 0,
      active: true,
      created_at: new Date('2026-04-30T09:00:00.000Z'),
      updated_at: new Date('2026-04-30T09:00:00.000Z'),
    });
  });

  it('changes only the terms an update sent', async () => {
    await given(42, create(42), {
      type: 'UpdatePromotion',
      changes: { name: 'Hito dos', endsAt: '2026-06-01T00:00:00.000Z' },
      sentFields: ['name', 'ends_at'],
      cityKnown: true,
      now: NOW,
    });
    expect(await promotionById(t.db, 42)).toMatchObject({
      name: 'Hito dos',
      ends_at: new Date('2026-06-01T00:00:00.000Z'),
      description: 'Dos entregas',
      amount_cents: 250,
      updated_at: NOW,
    });
  });

  it('counts grants and the amount granted, and lists grants newest first by grant id', async () => {
    await given(43, create(43), grant(5, 301), grant(6, 302));
    expect(await promotionById(t.db, 43)).toMatchObject({ grants_count: 2, granted_amount_cents: 500 });
    const { rows, hasMore } = await grantsOf(t.db, 43, { limit: 1 });
    expect(hasMore).toBe(true);
    expect(rows).toMatchObject([
      {
        id: 302,
        promotion_id: 43,
        user_id: 6,
        user_name: null,
        user_phone: '+584140000006',
        order_id: 906,
        audience: 'CLIENT',
        credit_scope: 'ORDERS',
        amount_cents: 250,
        created_at: NOW,
      },
    ]);
    expect((await grantsOf(t.db, 43, { limit: 5, beforeId: 302 })).rows.map((g) => g.id)).toEqual([301]);
  });

  it('forgets a deleted campaign', async () => {
    await given(44, create(44), { type: 'DeletePromotion', now: NOW });
    expect(await promotionById(t.db, 44)).toBeUndefined();
    expect((await listPromotions(t.db, {})).map((p) => p.id)).not.toContain(44);
  });
});
