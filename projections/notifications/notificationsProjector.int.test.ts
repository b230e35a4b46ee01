import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusMessage } from '../../infra/bus/port.js';
import { applyEvents } from '../runner.js';
import type { CreateOrder, OrderCommand } from '../../domain/order/commands.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { spec } from '../../tests/support/deciderSpec.js';
import { eventRecorder, projectorOnEmbedded, type ProjectorUnderTest } from '../../tests/support/projectorSpec.js';
import { notificationMigrations, notificationsProjector } from './notificationsProjector.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../../tests/support/orderCommands.js';

/**
 * Which inbox each event reaches: given a driver's and an order's events, then each user's notifications, oldest first.
 */

const at = (minutes: number) => new Date(Date.parse('2026-01-01T12:00:00Z') + minutes * 60_000);
const destination = { latitude: 10.4806, longitude: -66.9036 };
const create = (orderId: number, clientId: number): CreateOrder =>
  createOrderCommand(orderId, at(0), {
    clientId,
    ...destination,
    litersRequested: 2000,
    waterPriceCents: 2500,
    deliveryPin: '4821',
    cityId: 1,
  });
const confirmed = (orderId: number, clientId: number, driverId: number): OrderCommand[] => [
  create(orderId, clientId),
  placeOfferCommand(orderId * 100, driverId, at(1), { driverRemainingLiters: 8000 }),
  acceptOfferCommand(orderId * 100, at(2), { clientId, driverRemainingLiters: 8000 }),
];

let t: ProjectorUnderTest;
beforeAll(async () => {
  t = await projectorOnEmbedded(notificationsProjector, notificationMigrations);
});
afterAll(() => t?.close());

/** A driver profile (its user is 100 + driverId), approved by an admin. */
const approvedDriver = (driverId: number) =>
  t.given(`driver-${driverId}`, [
    {
      type: 'DriverRegistered',
      data: {
        driverId,
        userId: 100 + driverId,
        phone: `+5841400000${driverId}`,
        name: 'Pedro',
        registeredAt: at(0).toISOString(),
      },
    },
    { type: 'DriverApproved', data: { driverId, adminId: 1, at: at(0).toISOString() } },
  ]);
const orderLife = (orderId: number, commands: OrderCommand[]) =>
  t.given(orderStream(orderId), spec(orderDecider).history(commands));
const inbox = async (userId: number) =>
  (
    await t.db
      .selectFrom('notifications')
      .select(['type', 'data'])
      .where('user_id', '=', userId)
      .orderBy('position')
      .execute()
  ).map((n) => [n.type, n.data]);

describe('notifications projector', () => {
  it('follows an order from offer to delivery in the client’s and the driver’s inbox', async () => {
    await approvedDriver(21);
    await orderLife(1, [
      ...confirmed(1, 7, 21),
      { type: 'StartTrip', driverId: 21, now: at(3) },
      { type: 'RecordLocation', driverId: 21, ...destination, now: at(4) },
      { type: 'MarkArrived', driverId: 21, now: at(5) },
      { type: 'Deliver', driverId: 21, deliveryPin: '4821', actualLiters: 1900, redeemedCreditCents: 0, now: at(6) },
    ]);
    expect(await inbox(7)).toEqual([
      ['offer_received', { order_id: 1, offer_id: 100 }],
      ['order_started', { order_id: 1 }],
      ['driver_arrived', { order_id: 1 }],
      ['order_delivered', { order_id: 1, actual_liters: 1900 }],
    ]);
    expect(await inbox(121)).toEqual([
      ['driver_approved', { driver_id: 21 }],
      ['offer_accepted', { order_id: 1, offer_id: 100, status: 'CONFIRMED' }],
      ['order_delivered', { order_id: 1, actual_liters: 1900 }],
    ]);
  });

  it('tells the other party of a cancellation, not the one who cancelled', async () => {
    await approvedDriver(22);
    await orderLife(2, [
      ...confirmed(2, 8, 22),
      {
        type: 'CancelOrder',
        actor: { role: 'CLIENT', userId: 8 },
        reasonCode: 'CLIENT_CHANGED_MIND',
        reason: null,
        now: at(3),
      },
    ]);
    expect((await inbox(8)).map(([type]) => type)).toEqual(['offer_received']);
    expect((await inbox(122)).at(-1)).toEqual([
      'order_cancelled',
      expect.objectContaining({ order_id: 2, cancelled_by_role: 'CLIENT', reason_code: 'CLIENT_CHANGED_MIND' }),
    ]);
  });

  it('a batch applied again (a rebuild replaying it) leaves the same rows', async () => {
    // Far along the log, after every other test's events: one batch holding a driver, two orders and their offers.
    const record = eventRecorder(10_000);
    const batch = [
      ...record('driver-31', [
        {
          type: 'DriverRegistered',
          data: { driverId: 31, userId: 131, phone: '+584140000031', name: 'Ana', registeredAt: at(0).toISOString() },
        },
        { type: 'DriverApproved', data: { driverId: 31, adminId: 1, at: at(0).toISOString() } },
      ]),
      ...record(orderStream(31), spec(orderDecider).history(confirmed(31, 41, 31))),
      ...record(orderStream(32), spec(orderDecider).history(confirmed(32, 42, 31))),
    ];
    const snapshot = async () =>
      Promise.all([
        t.db.selectFrom('notifications').selectAll().where('position', '>', 10_000).orderBy('id').execute(),
        t.db
          .selectFrom('notification_order_parties')
          .selectAll()
          .where('order_id', 'in', [31, 32])
          .orderBy('order_id')
          .execute(),
        t.db.selectFrom('notification_driver_users').selectAll().where('driver_id', '=', 31).execute(),
      ]);
    const apply = async () => {
      const emitted: BusMessage[] = [];
      await t.db
        .transaction()
        .execute((trx) => applyEvents(trx, notificationsProjector, batch, (m) => emitted.push(m)));
      return emitted;
    };
    const first = await apply();
    const rows = await snapshot();
    // Each order: the client's offer, the driver's acceptance; and the driver's approval.
    expect(rows[0]).toHaveLength(5);
    expect(first.map((m) => m.subject).sort()).toEqual(
      ['notifications.131', 'notifications.131', 'notifications.131', 'notifications.41', 'notifications.42'].sort(),
    );
    expect(rows[1]).toEqual([
      { order_id: 31, client_id: 41, driver_id: 31 },
      { order_id: 32, client_id: 42, driver_id: 31 },
    ]);
    await apply();
    expect(await snapshot()).toEqual(rows);
  });
});
