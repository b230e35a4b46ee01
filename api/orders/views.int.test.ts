import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateOrder, OrderCommand, PlaceOffer } from '../../domain/order/commands.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { findOrderRow } from '../../projections/orders/orderQueries.js';
import { orderViewMigrations } from '../../projections/orders/orderTables.js';
import { orderViewsProjector } from '../../projections/orders/orderViews.js';
import { spec } from '../../tests/support/deciderSpec.js';
import { projectorOnEmbedded, type ProjectorUnderTest } from '../../tests/support/projectorSpec.js';
import { toAdminView, toClientView, toDriverView, type OrderBundle } from './views.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../../tests/support/orderCommands.js';

/**
 * The three role views of an order, given the order's events through the orders projector:
 * which money families and fields each role sees, in odd cents, and when the client sees the PIN.
 */

const at = (minutes: number) => new Date(Date.parse('2026-01-01T12:00:00Z') + minutes * 60_000);
const CLIENT = 7;
const DRIVER = 21;
const billing = {
  entityType: 'V',
  idNumber: '12345678',
  name: 'Ana Pérez',
  address: 'Calle 1, Chacao',
  phone: '+584121234567',
};
const create = (orderId: number, over: Partial<CreateOrder> = {}): CreateOrder =>
  createOrderCommand(orderId, at(0), {
    clientId: CLIENT,
    litersRequested: 2000,
    waterPriceCents: 1005,
    paymentMethod: 'PAYPROV_DI',
    billing,
    deliveryPin: '4821',
    cityId: 1,
    ...over,
  });
/** Offer ids are global in the read model: each order bids with its own (orderId × 100). */
const bid = (orderId: number, over: Partial<PlaceOffer> = {}): OrderCommand =>
  placeOfferCommand(orderId * 100, DRIVER, at(1), over);
const accept = (orderId: number, creditAvailableCents = 0): OrderCommand =>
  acceptOfferCommand(orderId * 100, at(2), { clientId: CLIENT, creditAvailableCents });
const paid: OrderCommand = { type: 'ConfirmPayment', paymentId: 50, now: at(3) };
const start: OrderCommand = { type: 'StartTrip', driverId: DRIVER, now: at(4) };
const deliver: OrderCommand = {
  type: 'Deliver',
  driverId: DRIVER,
  deliveryPin: '4821',
  actualLiters: 2000,
  redeemedCreditCents: 0,
  now: at(5),
};

const CLIENT_HIDDEN = ['platform_revenue', 'solidary_fund', 'driver_solidary', 'driver_gross', 'driver_receives'];
const DRIVER_HIDDEN = ['client_solidary', 'client_pays', 'promo_credit', 'client_charged', 'solidary_fund'];
const keysOfFamily = (view: object, family: string) =>
  Object.keys(view).filter((k) => k === family || k.startsWith(`${family}_`));

let t: ProjectorUnderTest;
beforeAll(async () => {
  t = await projectorOnEmbedded(orderViewsProjector, orderViewMigrations);
});
afterAll(() => t?.close());

/** Projects the commands' events (after `done` earlier ones) and reads the order as the API does. */
const lives = new Map<number, OrderCommand[]>();
const project = async (orderId: number, ...commands: OrderCommand[]): Promise<OrderBundle> => {
  const before = lives.get(orderId) ?? [];
  const all = [...before, ...commands];
  lives.set(orderId, all);
  const events = spec(orderDecider).history(all).slice(spec(orderDecider).history(before).length);
  await t.given(orderStream(orderId), events);
  // Only the orders projector runs here (no users or drivers tables): the row and its offers, oldest first.
  const row = (await findOrderRow(t.db, orderId))!;
  const offers = await t.db
    .selectFrom('order_offers')
    .selectAll()
    .where('order_id', '=', orderId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return {
    row,
    offers,
    drivers: new Map(),
    busyDriverIds: new Set(),
    client: { id: CLIENT, name: 'Ana', phone: '+584141112233' },
  };
};

describe('order views per role', () => {
  it(
    'shows each role its own money families of an online order in ' +
      'odd cents (W = 1005), and billing to the client and admins only',
    async () => {
      const waiting = await project(1, create(1), bid(1), accept(1));
      const client = toClientView(waiting);
      // Client solidary round(10.05) = 10; driver gross round(904.5) = 905; driver solidary round(9.05) = 9.
      expect(client).toMatchObject({
        status: 'WAITING_FOR_PAYMENT',
        base_price_cents: 1005,
        client_solidary_cents: 10,
        client_pays_cents: 1015,
        client_pays_usd: 10.15,
        promo_credit_cents: 0,
        client_charged_usd: 10.15,
      });
      expect(client.breakdown.map((l) => [l.code, l.amount_cents, l.applied_fee_prc])).toEqual([
        ['base_price', 1005, null],
        ['client_solidary', 10, 1],
      ]);
      for (const f of CLIENT_HIDDEN) expect(keysOfFamily(client, f)).toEqual([]);
      expect(client.billing).toEqual({
        entity_type: 'V',
        id_number: '12345678',
        name: 'Ana Pérez',
        address: 'Calle 1, Chacao',
        phone: '+584121234567',
      });

      const driver = toDriverView(waiting, DRIVER);
      expect(driver).toMatchObject({
        base_price_cents: 1005,
        platform_revenue_cents: 100,
        driver_gross_cents: 905,
        driver_solidary_cents: 9,
        driver_receives_cents: 896,
      });
      for (const f of DRIVER_HIDDEN) expect(keysOfFamily(driver, f)).toEqual([]);
      expect(driver).not.toHaveProperty('billing');
      expect(driver).not.toHaveProperty('delivery_pin');

      const admin = toAdminView(waiting);
      expect(admin).toMatchObject({
        solidary_fund_cents: 19,
        platform_solidary_cents: 0,
        client_pays_cents: 1015,
        driver_receives_cents: 896,
        billing: { id_number: '12345678' },
      });
      const sum = (codes: string[]) =>
        admin.breakdown.filter((l) => codes.includes(l.code)).reduce((s, l) => s + l.amount_cents, 0);
      expect(sum(['base_price', 'client_solidary'])).toBe(admin.client_pays_cents);
      expect(1005 - sum(['platform_revenue', 'driver_solidary'])).toBe(admin.driver_receives_cents);
      expect(sum(['client_solidary', 'driver_solidary', 'platform_solidary'])).toBe(admin.solidary_fund_cents);
    },
  );

  it(
    'shows the client the delivery PIN only once the order ' + 'is paid and until it is delivered; never to the driver',
    async () => {
      expect(toClientView(await project(2, create(2)))).not.toHaveProperty('delivery_pin');
      expect(toClientView(await project(2, bid(2), accept(2)))).not.toHaveProperty('delivery_pin');
      const confirmed = await project(2, paid);
      expect(toClientView(confirmed)).toMatchObject({ status: 'CONFIRMED', delivery_pin: '4821' });
      expect(toDriverView(confirmed, DRIVER)).not.toHaveProperty('delivery_pin');
      expect(toClientView(await project(2, start))).toMatchObject({ status: 'IN_PROGRESS', delivery_pin: '4821' });
      const delivered = toClientView(await project(2, deliver));
      expect(delivered.status).toBe('DELIVERED');
      expect(delivered).not.toHaveProperty('delivery_pin');
    },
  );

  it(
    'confirms an online order that credit covers whole at acceptance: the ' +
      'client sees the PIN, the driver its own figures and no promo credit',
    async () => {
      const open = await project(
        4,
        create(4, { paymentMethod: 'EXCHANGE_PAY', waterPriceCents: 2500, creditAvailableCents: 3000 }),
      );
      expect(toClientView(open)).toMatchObject({
        status: 'BROADCASTING',
        client_solidary_usd: 0.25,
        client_pays_usd: 25.25,
        promo_credit_usd: 25.25,
        client_charged_usd: 0,
        is_fully_promoted: true,
      });
      const confirmed = await project(4, bid(4), accept(4, 3000));
      expect(toClientView(confirmed)).toMatchObject({ status: 'CONFIRMED', delivery_pin: '4821' });
      const driver = toDriverView(confirmed, DRIVER);
      expect(driver).not.toHaveProperty('promo_credit_usd');
      // Driver solidary round(22.5) = 23.
      expect(driver).toMatchObject({ driver_solidary_usd: 0.23, driver_receives_usd: 22.27 });
    },
  );

  it('shows the client only the pending offers: a driver’s replaced bid is gone', async () => {
    const first = bid(5, { driverGrossCents: 950 });
    const rebid = bid(5, { offerId: 501, now: at(2), offerExpiresAt: at(12) });
    const replaced = await project(5, create(5), first, rebid);
    expect(toClientView(replaced).offers.map((o) => o.id)).toEqual([501]);
    expect(toAdminView(replaced).offers.map((o) => [o.id, o.status])).toEqual([
      [500, 'WITHDRAWN'],
      [501, 'PENDING'],
    ]);
  });

  it('shows the driver of a cash order what to collect, still without the solidary fund', async () => {
    const confirmed = await project(
      3,
      create(3, { paymentMethod: 'CASH_USD', waterPriceCents: 2500 }),
      bid(3),
      accept(3),
    );
    const driver = toDriverView(confirmed, DRIVER);
    expect(driver).toMatchObject({
      status: 'CONFIRMED',
      client_pays_cents: 2500,
      promo_credit_cents: 0,
      client_charged_cents: 2500,
      driver_gross_cents: 2250,
      driver_receives_cents: 2250,
    });
    expect(keysOfFamily(driver, 'client_solidary')).toEqual([]);
    expect(keysOfFamily(driver, 'solidary_fund')).toEqual([]);
    expect(driver.breakdown.map((l) => l.code)).toContain('platform_revenue');
    expect(toClientView(confirmed)).toMatchObject({ delivery_pin: '4821' });
  });
});
