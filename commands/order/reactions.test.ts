import { describe, expect, it } from 'vitest';
import { creditDecider, type CreditCommand, type CreditState } from '../../domain/credit/credit.js';
import { initialState as noTank } from '../../domain/driver/driver.js';
import type { CreateOrder, OrderCommand } from '../../domain/order/commands.js';
import { orderDecider, type OrderState } from '../../domain/order/order.js';
import { spec } from '../../tests/support/deciderSpec.js';
import type { Cause, Send } from '../processManager.js';
import { orderReactions } from './reactions.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../../tests/support/orderCommands.js';

/**
 * The order process manager's decisions: given the order and the
 * client's credit, when an order event, then these commands.
 */

const T0 = Date.parse('2026-01-01T12:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const CLIENT = 7;
const DRIVER = 21;

const create = (over: Partial<CreateOrder> = {}): CreateOrder =>
  createOrderCommand(1, at(0), {
    clientId: CLIENT,
    latitude: 10.4806,
    longitude: -66.9036,
    address: 'Av. Principal, Chacao',
    litersRequested: 5000,
    deliveryPin: '4821',
    ...over,
  });

const grant = (amountCents: number): CreditCommand => ({
  type: 'GrantCredit',
  clientId: CLIENT,
  grantId: 1,
  promotionId: 1,
  orderId: null,
  scope: 'ANY',
  amountCents,
  now: at(-10),
});
const orderAfter = (...commands: OrderCommand[]): OrderState =>
  spec(orderDecider)
    .givenCommands(...commands)
    .state();
const creditAfter = (...commands: CreditCommand[]): CreditState =>
  spec(creditDecider)
    .givenCommands(...commands)
    .state();
const event = (type: string, data: Record<string, unknown> = {}): Cause => ({
  eventId: 'e-1',
  type,
  data: { orderId: 1, ...data },
  streamId: 'order-1',
});

/** A command as the runner would send it: a command that depends on its stream's state is evaluated on `state`. */
const sent = (s: Send, state?: unknown) => ({
  streamId: s.streamId,
  purpose: s.purpose,
  command: typeof s.command === 'function' ? s.command(state) : s.command,
});

const when = (order: OrderState, credit: CreditState, e: Cause) => orderReactions(e, { order, credit }, at(5));

describe('order reactions', () => {
  it('redeems the credit an order was priced with when it is created', () => {
    const order = orderAfter(create({ creditAvailableCents: 500 }));
    expect(when(order, creditAfter(grant(500)), event('OrderCreated')).map((s) => sent(s))).toEqual([
      {
        streamId: 'credit-7',
        purpose: 'credit',
        command: { type: 'RedeemCredit', clientId: CLIENT, orderId: 1, kind: 'order', amountCents: 500, now: at(5) },
      },
    ]);
  });

  it(
    'redeems a surplus reservation’s credit as surplus credit (its own ' +
      'bucket first, then ANY, never ORDERS: domain/credit/credit.test.ts)',
    () => {
      const order = orderAfter(
        create({ creditAvailableCents: 350, surplus: { listingId: 9, driverId: DRIVER, paymentExpiresAt: at(30) } }),
      );
      expect(when(order, creditAfter(grant(350)), event('OrderCreated')).map((s) => sent(s).command)).toEqual([
        { type: 'RedeemCredit', clientId: CLIENT, orderId: 1, kind: 'surplus', amountCents: 350, now: at(5) },
      ]);
    },
  );

  it('redeems again over the new total when an offer at another price is accepted', () => {
    // Priced at 10000 with 10000 of credit; the accepted counter-offer is 11000, and 10600 is usable.
    const bid = placeOfferCommand(100, DRIVER, at(1), {
      driverGrossCents: 9900,
      estimatedMinutes: 20,
      driverRemainingLiters: 8000,
    });
    const accept = acceptOfferCommand(100, at(2), {
      clientId: CLIENT,
      driverRemainingLiters: 8000,
      creditAvailableCents: 10600,
    });
    const order = orderAfter(create({ creditAvailableCents: 10000 }), bid, accept);
    expect(order?.pricing).toMatchObject({ clientPaysCents: 11000, promoCreditCents: 10600, clientChargedCents: 400 });
    const credit = creditAfter(grant(10600), {
      type: 'RedeemCredit',
      clientId: CLIENT,
      orderId: 1,
      kind: 'order',
      amountCents: 10000,
      now: at(0),
    });
    const [redeem] = when(order, credit, event('OfferAccepted'));
    expect(sent(redeem)).toEqual({
      streamId: 'credit-7',
      purpose: 'credit',
      command: { type: 'RedeemCredit', clientId: CLIENT, orderId: 1, kind: 'order', amountCents: 10600, now: at(5) },
    });
    // The credit decider turns it into a refund of the earlier redemption and a new one (domain/credit/credit.test.ts).
    expect(creditDecider.decide(sent(redeem).command as CreditCommand, credit).map((e) => e.type)).toEqual([
      'CreditRefunded',
      'CreditRedeemed',
    ]);
  });

  it('refunds the credit of a cancelled or expired order', () => {
    const cancel: OrderCommand = {
      type: 'CancelOrder',
      actor: { role: 'CLIENT', userId: CLIENT },
      reasonCode: null,
      reason: null,
      now: at(2),
    };
    const order = orderAfter(create({ creditAvailableCents: 500 }), cancel);
    expect(when(order, creditAfter(grant(500)), event('OrderCancelled')).map((s) => sent(s))).toEqual([
      {
        streamId: 'credit-7',
        purpose: 'credit',
        command: { type: 'RefundCredit', clientId: CLIENT, orderId: 1, reason: 'ORDER_CANCELLED', now: at(5) },
      },
    ]);
    const expired = orderAfter(create({ creditAvailableCents: 500 }), { type: 'ExpireOrder', now: at(31) });
    expect(when(expired, creditAfter(grant(500)), event('OrderExpired')).map((s) => sent(s).command)).toMatchObject([
      { type: 'RefundCredit', reason: 'ORDER_EXPIRED' },
    ]);
  });

  it('prices the order again with what is usable when the credit it was priced with is gone', () => {
    const order = orderAfter(create({ creditAvailableCents: 500 }));
    expect(when(order, creditAfter(grant(200)), event('OrderCreated')).map((s) => sent(s))).toEqual([
      {
        streamId: 'order-1',
        purpose: 'reprice',
        command: {
          type: 'ChangePaymentMethod',
          clientId: CLIENT,
          paymentMethod: 'CASH_USD',
          paymentFormId: null,
          creditAvailableCents: 200,
          now: at(5),
        },
      },
    ]);
  });

  it('sends nothing new when the order holds exactly its redemption (a repeated reaction)', () => {
    const order = orderAfter(create({ creditAvailableCents: 500 }));
    const credit = creditAfter(grant(500), {
      type: 'RedeemCredit',
      clientId: CLIENT,
      orderId: 1,
      kind: 'order',
      amountCents: 500,
      now: at(1),
    });
    const [redeem] = when(order, credit, event('OrderCreated'));
    expect(creditDecider.decide(sent(redeem).command, credit)).toEqual([]);
  });

  it('draws the delivered liters from the driver’s tank, never below empty', () => {
    const delivered = event('OrderDelivered', { driverId: DRIVER, actualLiters: 3000 });
    const [draw] = when(null, creditAfter(), delivered);
    expect(sent(draw, { ...noTank, availableLiters: 8000 })).toEqual({
      streamId: `driver-${DRIVER}`,
      purpose: 'tank',
      command: { type: 'UpdateTank', availableLiters: 5000, now: at(5) },
    });
    expect(sent(draw, { ...noTank, availableLiters: 1000 }).command).toMatchObject({ availableLiters: 0 });
  });

  it('ignores events that move no other aggregate, and orders it cannot find', () => {
    expect(when(orderAfter(create()), creditAfter(), event('OfferPlaced'))).toEqual([]);
    expect(when(null, creditAfter(), event('OrderCreated'))).toEqual([]);
  });
});
