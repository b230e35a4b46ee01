import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateOrder, OrderCommand } from '../../domain/order/commands.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { identityMigrations } from '../../stores/identity/identityTables.js';
import { spec } from '../../tests/support/deciderSpec.js';
import { projectorOnEmbedded, type ProjectorUnderTest } from '../../tests/support/projectorSpec.js';
import { findDriver } from './driverQueries.js';
import { driversMigrations, driversProjector } from './driversProjector.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../../tests/support/orderCommands.js';

/**
 * The drivers read model follows its drivers' orders (GET /me's driver block, and the remaining liters a
 * bid is checked against): given a driver's events and its orders' events, then its record.
 */

const at = (minutes: number) => new Date(Date.parse('2026-01-01T12:00:00Z') + minutes * 60_000);
const create = (orderId: number, litersRequested: number): CreateOrder =>
  createOrderCommand(orderId, at(0), { litersRequested, waterPriceCents: 2500, deliveryPin: '4821', cityId: 1 });
const taken = (orderId: number, driverId: number, litersRequested: number): OrderCommand[] => [
  create(orderId, litersRequested),
  placeOfferCommand(orderId * 10, driverId, at(1), { driverRemainingLiters: 10_000 }),
  acceptOfferCommand(orderId * 10, at(2), { driverRemainingLiters: 10_000 }),
];

let t: ProjectorUnderTest;
beforeAll(async () => {
  // driver_locations, which the driver record joins, is identity's table.
  t = await projectorOnEmbedded(driversProjector, { ...identityMigrations, ...driversMigrations });
});
afterAll(() => t?.close());

const driverWithTank = async (driverId: number, availableLiters: number) => {
  await t.given(`driver-${driverId}`, [
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
    { type: 'DriverTankUpdated', data: { driverId, availableLiters, at: at(0).toISOString() } },
  ]);
};
/** Projects the order's events from `from` on (the earlier ones were projected before). */
const orderLife = (orderId: number, commands: OrderCommand[], from = 0) =>
  t.given(orderStream(orderId), spec(orderDecider).history(commands).slice(from));
const driver = async (driverId: number) => (await findDriver(t.db, driverId, at(0)))!;

describe('the drivers read model follows its orders', () => {
  it(
    'commits the liters of an accepted order (remaining = available ' +
      '− committed) until delivery, which counts a completed order',
    async () => {
      await driverWithTank(1, 5000);
      expect(await driver(1)).toMatchObject({ availableLiters: 5000, remainingLiters: 5000, completedOrders: 0 });
      const life = taken(1, 1, 1200);
      await orderLife(1, life);
      expect(await driver(1)).toMatchObject({ availableLiters: 5000, remainingLiters: 3800 });
      const delivered = [
        ...life,
        {
          type: 'Deliver',
          driverId: 1,
          deliveryPin: '4821',
          actualLiters: 1100,
          redeemedCreditCents: 0,
          now: at(5),
        } as OrderCommand,
      ];
      await orderLife(1, delivered, 3);
      // The tank draw is the order reaction's (commands/order/reactions.test.ts): 5000 − 1100.
      await t.given('driver-1', [
        { type: 'DriverTankUpdated', data: { driverId: 1, availableLiters: 3900, at: at(5).toISOString() } },
      ]);
      expect(await driver(1)).toMatchObject({ availableLiters: 3900, remainingLiters: 3900, completedOrders: 1 });
    },
  );

  it('counts every accepted undelivered order against the tank, and gives a cancelled one’s liters back', async () => {
    await driverWithTank(2, 5000);
    const life = taken(2, 2, 4000);
    await orderLife(2, life);
    expect(await driver(2)).toMatchObject({ availableLiters: 5000, remainingLiters: 1000 });
    await orderLife(
      2,
      [
        ...life,
        {
          type: 'CancelOrder',
          actor: { role: 'CLIENT', userId: 7 },
          reasonCode: 'CLIENT_CHANGED_MIND',
          reason: null,
          now: at(3),
        },
      ],
      3,
    );
    expect(await driver(2)).toMatchObject({ availableLiters: 5000, remainingLiters: 5000, completedOrders: 0 });
  });
});
