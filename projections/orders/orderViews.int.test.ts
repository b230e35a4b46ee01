import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateOrder, OrderCommand } from '../../domain/order/commands.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { spec } from '../../tests/support/deciderSpec.js';
import { projectorOnEmbedded, type ProjectorUnderTest } from '../../tests/support/projectorSpec.js';
import { orderViewMigrations } from './orderTables.js';
import { orderViewsProjector } from './orderViews.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../../tests/support/orderCommands.js';

/** The orders projector on a test database of the embedded PostgreSQL: given an order's events, then its row and its offers' rows. */

const at = (minutes: number) => new Date(Date.parse('2026-01-01T12:00:00Z') + minutes * 60_000);
const create = (orderId: number): CreateOrder => createOrderCommand(orderId, at(0));
const bid = (offerId: number, driverId: number, driverGrossCents: number | null = null): OrderCommand =>
  placeOfferCommand(offerId, driverId, at(1), { driverGrossCents });
const accept = (offerId: number): OrderCommand => acceptOfferCommand(offerId, at(2));

let t: ProjectorUnderTest;
beforeAll(async () => {
  t = await projectorOnEmbedded(orderViewsProjector, orderViewMigrations);
});
afterAll(() => t.close());

const project = (orderId: number, ...commands: OrderCommand[]) =>
  t.given(orderStream(orderId), spec(orderDecider).history(commands));
const row = (orderId: number) =>
  t.db.selectFrom('order_views').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
const offers = (orderId: number) =>
  t.db
    .selectFrom('order_offers')
    .select(['id', 'status', 'driver_id'])
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();

describe('orders projector', () => {
  it('writes a created order with its pricing in cents, broadcasting', async () => {
    await project(1, create(1));
    expect(await row(1)).toMatchObject({
      id: 1,
      client_id: 7,
      status: 'BROADCASTING',
      base_price_cents: 10000,
      driver_id: null,
      liters_requested: 1000,
    });
    expect(await offers(1)).toEqual([]);
  });

  it(
    'shows a counter-offer, and on acceptance assigns the ' + 'driver, accepts one offer and withdraws the others',
    async () => {
      await project(2, create(2), bid(20, 21, 8000), bid(21, 22));
      expect(await row(2)).toMatchObject({ status: 'COUNTER_OFFERED' });
      await t.given(
        orderStream(2),
        spec(orderDecider)
          .history([create(2), bid(20, 21, 8000), bid(21, 22), accept(21)])
          .slice(3),
      );
      expect(await row(2)).toMatchObject({ status: 'CONFIRMED', driver_id: 22 });
      expect(await offers(2)).toEqual([
        { id: 20, status: 'WITHDRAWN', driver_id: 21 },
        { id: 21, status: 'ACCEPTED', driver_id: 22 },
      ]);
    },
  );

  it('closes a cancelled order and its pending offers', async () => {
    await project(3, create(3), bid(30, 21), {
      type: 'CancelOrder',
      actor: { role: 'CLIENT', userId: 7 },
      reasonCode: null,
      reason: 'changed my mind',
      now: at(3),
    });
    expect(await row(3)).toMatchObject({ status: 'CANCELLED' });
    expect(await offers(3)).toEqual([{ id: 30, status: 'WITHDRAWN', driver_id: 21 }]);
  });
});
