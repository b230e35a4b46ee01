import { describe, expect, it } from 'vitest';
import { fold } from '../decider.js';
import { errorOf, spec } from '../../tests/support/deciderSpec.js';
import { offerPriceFromDriverGross, priceOrder } from '../pricing.js';
import { cancellationReasons } from './cancellationReasons.js';
import type { OrderEvent } from './events.js';
import { standingCounterOffer } from './bidding.js';
import type { CreateOrder, OrderCommand, PlaceOffer } from './commands.js';
import { decide, evolve, initialState, orderDecider } from './order.js';
import type { Order, OrderState } from './order.js';
import { PIN_MAX_ATTEMPTS, failureOf } from './trip.js';
import {
  PRICING_SETTINGS as settings,
  acceptOfferCommand,
  createOrderCommand,
  placeOfferCommand,
} from '../../tests/support/orderCommands.js';

const T0 = Date.parse('2026-01-01T12:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const destination = { latitude: 10.4806, longitude: -66.9036 };
const CLIENT = 7;
const DRIVER = 21;
const OTHER_DRIVER = 22;

const createOrder = (over: Partial<CreateOrder> = {}): CreateOrder =>
  createOrderCommand(1, at(0), {
    clientId: CLIENT,
    ...destination,
    address: 'Av. Principal, Chacao',
    litersRequested: 5000,
    deliveryPin: '4821',
    cityId: 1,
    ...over,
  });

/** Offer 100 from DRIVER, 20 minutes away with 8000 liters left: the tank covers the order's 5000. */
const placeOffer = (over: Partial<PlaceOffer> = {}): PlaceOffer =>
  placeOfferCommand(100, DRIVER, at(1), { estimatedMinutes: 20, driverRemainingLiters: 8000, ...over });

const order = spec(orderDecider);
const history = (...commands: OrderCommand[]): OrderEvent[] => order.history(commands);
/** given(commands…): the state after deciding and folding each command in turn. */
const given = (...commands: OrderCommand[]): Order => order.fold(history(...commands))!;
const when = (state: OrderState, cmd: OrderCommand) => decide(cmd, state);
const after = (state: OrderState, cmd: OrderCommand): Order => fold(evolve, state, decide(cmd, state))!;

const accept = (offerId = 100, minutes = 2): OrderCommand =>
  acceptOfferCommand(offerId, at(minutes), { clientId: CLIENT, driverRemainingLiters: 8000 });
const confirmedCash = () => given(createOrder(), placeOffer(), accept());
const inProgress = () =>
  given(createOrder(), placeOffer(), accept(), { type: 'StartTrip', driverId: DRIVER, now: at(3) });
const located = (latitude: number, minutes = 4): OrderCommand => ({
  type: 'RecordLocation',
  driverId: DRIVER,
  latitude,
  longitude: destination.longitude,
  now: at(minutes),
});
const deliver = (deliveryPin: string, minutes = 10, redeemedCreditCents = 0): OrderCommand => ({
  type: 'Deliver',
  driverId: DRIVER,
  deliveryPin,
  actualLiters: 4900,
  redeemedCreditCents,
  now: at(minutes),
});

describe('CreateOrder', () => {
  it('opens the order for bids with its price and credit applied', () => {
    const [e] = when(initialState, createOrder({ paymentMethod: 'EXCHANGE_PAY', creditAvailableCents: 2500 }));
    expect(e.type).toBe('OrderCreated');
    expect(e.data).toMatchObject({
      orderId: 1,
      status: 'BROADCASTING',
      creditKind: 'order',
      driverId: null,
      cityId: 1,
      surplusListingId: null,
      paymentFormId: null,
      createdAt: '2026-01-01T12:00:00.000Z',
      expiresAt: '2026-01-01T12:30:00.000Z',
      paymentExpiresAt: null,
      pricing: priceOrder({
        waterPriceCents: 10000,
        paymentMethod: 'EXCHANGE_PAY',
        settings,
        creditAvailableCents: 2500,
      }),
    });
  });

  it('requires a payment form for PAYMENT_FORM (422) and keeps it only then', () => {
    const err = errorOf(() => when(initialState, createOrder({ paymentMethod: 'PAYMENT_FORM' })));
    expect(err).toMatchObject({
      kind: 'unprocessable',
      code: 'ValidationError',
      details: { fieldErrors: { paymentFormId: expect.any(Array) } },
    });
    expect(when(initialState, createOrder({ paymentMethod: 'PAYMENT_FORM', paymentFormId: 3 }))[0].data).toMatchObject({
      paymentFormId: 3,
    });
    expect(when(initialState, createOrder({ paymentMethod: 'CASH_USD', paymentFormId: 3 }))[0].data).toMatchObject({
      paymentFormId: null,
    });
  });

  it('happens once', () => {
    expect(errorOf(() => when(given(createOrder()), createOrder()))).toMatchObject({ kind: 'conflict' });
  });

  it('starts a surplus reservation with its driver: cash CONFIRMED, online WAITING_FOR_PAYMENT', () => {
    const surplus = { listingId: 9, driverId: DRIVER, paymentExpiresAt: at(30) };
    expect(when(initialState, createOrder({ surplus }))[0].data).toMatchObject({
      status: 'CONFIRMED',
      driverId: DRIVER,
      surplusListingId: 9,
      creditKind: 'surplus',
    });
    expect(when(initialState, createOrder({ surplus, paymentMethod: 'EXCHANGE_PAY' }))[0].data).toMatchObject({
      status: 'WAITING_FOR_PAYMENT',
      paymentExpiresAt: at(30).toISOString(),
    });
    expect(
      when(initialState, createOrder({ surplus, paymentMethod: 'EXCHANGE_PAY', creditAvailableCents: 1_000_000 }))[0]
        .data,
    ).toMatchObject({
      status: 'CONFIRMED',
      paymentExpiresAt: null,
    });
  });

  it('answers OrderNotFound to anything else before it exists', () => {
    expect(errorOf(() => when(initialState, { type: 'ExpireOrder', now: at(0) }))).toMatchObject({
      kind: 'not_found',
      code: 'OrderNotFound',
    });
  });
});

describe('PlaceOffer', () => {
  it('bids the published price', () => {
    const [e] = when(given(createOrder()), placeOffer());
    expect(e).toEqual({
      type: 'OfferPlaced',
      data: {
        orderId: 1,
        offerId: 100,
        driverId: DRIVER,
        offerPriceCents: 10000,
        driverGrossCents: 9000,
        estimatedMinutes: 20,
        availableLiters: 8000,
        overCapacity: false,
        driverLatitude: null,
        driverLongitude: null,
        createdAt: at(1).toISOString(),
        expiresAt: at(11).toISOString(),
        withdrawnOfferId: null,
        orderStatus: 'BROADCASTING',
      },
    });
  });

  it('turns a driver gross into an offer price that gives it back exactly, and the order COUNTER_OFFERED', () => {
    const [e] = when(given(createOrder()), placeOffer({ driverGrossCents: 11111 }));
    expect(e.data).toMatchObject({
      offerPriceCents: offerPriceFromDriverGross(11111, 10),
      driverGrossCents: 11111,
      orderStatus: 'COUNTER_OFFERED',
    });
  });

  it('estimates minutes from the driver position when none is given', () => {
    const [e] = when(
      given(createOrder()),
      placeOffer({
        estimatedMinutes: null,
        driverLatitude: destination.latitude + 0.09,
        driverLongitude: destination.longitude,
      }),
    );
    expect(e.data).toMatchObject({ estimatedMinutes: 25 }); // ≈ 10 km at 25 km/h = 24.02 → 25
  });

  it('refuses an order above the remaining liters unless forced (409 InsufficientLiters)', () => {
    const s = given(createOrder());
    expect(errorOf(() => when(s, placeOffer({ driverRemainingLiters: 4000 })))).toMatchObject({
      kind: 'conflict',
      code: 'InsufficientLiters',
      details: { remaining_liters: 4000, requested_liters: 5000 },
    });
    expect(when(s, placeOffer({ driverRemainingLiters: 4000, force: true }))[0].data).toMatchObject({
      overCapacity: true,
      availableLiters: 4000,
    });
  });

  it('replaces the same driver’s pending offer, and the order status follows the pending offers', () => {
    const s = given(createOrder(), placeOffer({ driverGrossCents: 9500 }));
    expect(s.status).toBe('COUNTER_OFFERED');
    const next = after(s, placeOffer({ offerId: 101, now: at(2), offerExpiresAt: at(12) }));
    expect(next.status).toBe('BROADCASTING');
    expect(next.offers[100].status).toBe('WITHDRAWN');
    expect(next.offers[101].status).toBe('PENDING');
    expect(errorOf(() => when(next, accept(100)))).toMatchObject({ kind: 'conflict', code: 'Conflict' });
  });

  it('is closed once the order is taken or past its expiry (409 Conflict)', () => {
    expect(errorOf(() => when(confirmedCash(), placeOffer({ offerId: 101, driverId: OTHER_DRIVER })))).toMatchObject({
      kind: 'conflict',
      code: 'Conflict',
    });
    expect(errorOf(() => when(given(createOrder()), placeOffer({ now: at(30) })))).toMatchObject({
      kind: 'conflict',
      code: 'Conflict',
    });
  });
});

describe('AcceptOffer', () => {
  const twoOffers = () =>
    given(createOrder(), placeOffer(), placeOffer({ offerId: 101, driverId: OTHER_DRIVER, driverGrossCents: 9900 }));

  it(
    'confirms a cash order to the driver at the offer price, ' + 're-applying credit, and withdraws the other offers',
    () => {
      const s = twoOffers();
      const events = when(s, { ...accept(101), creditAvailableCents: 3000 } as OrderCommand);
      expect(events).toEqual([
        {
          type: 'OfferAccepted',
          data: {
            orderId: 1,
            offerId: 101,
            driverId: OTHER_DRIVER,
            clientId: CLIENT,
            litersRequested: 5000,
            pricing: priceOrder({
              waterPriceCents: 11000,
              paymentMethod: 'CASH_USD',
              settings,
              creditAvailableCents: 3000,
            }),
            creditKind: 'order',
            status: 'CONFIRMED',
            paymentExpiresAt: null,
            acceptedAt: at(2).toISOString(),
          },
        },
      ]);
      const next = fold(evolve, s, events)!;
      expect(next).toMatchObject({ status: 'CONFIRMED', driverId: OTHER_DRIVER, acceptedOfferId: 101 });
      expect(next.pricing.driverGrossCents).toBe(9900);
      expect(next.offers[100].status).toBe('WITHDRAWN');
      expect(next.offers[101].status).toBe('ACCEPTED');
    },
  );

  it('waits for payment on an online order, unless credit covers it all', () => {
    const online = given(createOrder({ paymentMethod: 'EXCHANGE_PAY' }), placeOffer());
    expect(when(online, accept())[0].data).toMatchObject({
      status: 'WAITING_FOR_PAYMENT',
      paymentExpiresAt: at(32).toISOString(),
    });
    expect(when(online, { ...accept(), creditAvailableCents: 10100 } as OrderCommand)[0].data).toMatchObject({
      status: 'CONFIRMED',
      paymentExpiresAt: null,
    });
  });

  it('lets one accept win: the second is a 409 Conflict', () => {
    const s = after(twoOffers(), accept(100));
    expect(errorOf(() => when(s, accept(101)))).toMatchObject({ kind: 'conflict', code: 'Conflict' });
  });

  it('refuses an expired offer, a busy driver (409 Conflict), a foreign client (403), an unknown offer (404)', () => {
    const s = twoOffers();
    expect(errorOf(() => when(s, accept(100, 11)))).toMatchObject({ kind: 'conflict', code: 'Conflict' });
    expect(errorOf(() => when(s, { ...accept(), driverBusy: true } as OrderCommand))).toMatchObject({
      kind: 'conflict',
      code: 'Conflict',
    });
    expect(errorOf(() => when(s, { ...accept(), clientId: 99 } as OrderCommand))).toMatchObject({
      kind: 'forbidden',
      code: 'Forbidden',
    });
    expect(errorOf(() => when(s, accept(999)))).toMatchObject({ kind: 'not_found', code: 'NotFound' });
  });

  it('checks the driver still has the liters, unless the offer was forced over capacity', () => {
    const s = given(
      createOrder(),
      placeOffer(),
      placeOffer({ offerId: 101, driverId: OTHER_DRIVER, driverRemainingLiters: 1000, force: true }),
    );
    const short = { ...accept(100), driverRemainingLiters: 4999 } as OrderCommand;
    expect(errorOf(() => when(s, short))).toMatchObject({
      code: 'InsufficientLiters',
      details: { remaining_liters: 4999, requested_liters: 5000 },
    });
    expect(when(s, { ...accept(101), driverRemainingLiters: 1000 } as OrderCommand)[0].type).toBe('OfferAccepted');
  });
});

describe('RejectOffer and ExpireOffer', () => {
  const counterOffered = () => given(createOrder(), placeOffer({ driverGrossCents: 9500 }));

  it('rejects a pending offer; the order is BROADCASTING again without counter-offers', () => {
    const s = after(counterOffered(), { type: 'RejectOffer', offerId: 100, clientId: CLIENT, now: at(2) });
    expect(s.status).toBe('BROADCASTING');
    expect(s.offers[100].status).toBe('REJECTED');
    expect(errorOf(() => when(s, { type: 'RejectOffer', offerId: 100, clientId: CLIENT, now: at(3) }))).toMatchObject({
      kind: 'conflict',
      code: 'Conflict',
    });
    expect(
      errorOf(() => when(counterOffered(), { type: 'RejectOffer', offerId: 100, clientId: 99, now: at(2) })),
    ).toMatchObject({ kind: 'forbidden' });
  });

  it('expires an offer only once its time has passed, and only once', () => {
    const s = counterOffered();
    expect(when(s, { type: 'ExpireOffer', offerId: 100, now: at(10) })).toEqual([]);
    const expired = after(s, { type: 'ExpireOffer', offerId: 100, now: at(11) });
    expect(expired.offers[100].status).toBe('EXPIRED');
    expect(expired.status).toBe('BROADCASTING');
    expect(when(expired, { type: 'ExpireOffer', offerId: 100, now: at(12) })).toEqual([]);
  });

  it('finds the standing counter-offer: the latest pending, unexpired one', () => {
    const s = given(
      createOrder(),
      placeOffer({ driverGrossCents: 9500 }),
      placeOffer({ offerId: 101, driverId: OTHER_DRIVER, driverGrossCents: 9600, now: at(3), offerExpiresAt: at(13) }),
      placeOffer({ offerId: 102, driverId: 23, now: at(4), offerExpiresAt: at(14) }),
    );
    expect(standingCounterOffer(s, at(5))?.id).toBe(101);
    expect(standingCounterOffer(s, at(13))).toBeNull();
  });
});

describe('ChangePaymentMethod', () => {
  const change = (paymentMethod: string, over: Record<string, unknown> = {}): OrderCommand =>
    ({
      type: 'ChangePaymentMethod',
      clientId: CLIENT,
      paymentMethod,
      paymentFormId: null,
      creditAvailableCents: 0,
      now: at(5),
      ...over,
    }) as OrderCommand;

  it('re-prices an open order and re-applies credit', () => {
    const [e] = when(given(createOrder()), change('EXCHANGE_PAY', { creditAvailableCents: 500 }));
    expect(e).toMatchObject({
      type: 'PaymentMethodChanged',
      data: {
        paymentMethod: 'EXCHANGE_PAY',
        status: 'BROADCASTING',
        pricing: { clientPaysCents: 10100, promoCreditCents: 500, clientChargedCents: 9600 },
      },
    });
  });

  it('changes nothing when nothing changes', () => {
    expect(when(given(createOrder()), change('CASH_USD'))).toEqual([]);
  });

  it('needs a payment form for PAYMENT_FORM', () => {
    expect(errorOf(() => when(given(createOrder()), change('PAYMENT_FORM')))).toMatchObject({
      kind: 'unprocessable',
      code: 'ValidationError',
    });
  });

  it(
    'is locked after acceptance for cash, after a reported payment, ' +
      'and past WAITING_FOR_PAYMENT (409 PaymentMethodLocked)',
    () => {
      const waiting = given(createOrder({ paymentMethod: 'EXCHANGE_PAY' }), placeOffer(), accept());
      expect(errorOf(() => when(waiting, change('CASH_USD')))).toMatchObject({
        kind: 'conflict',
        code: 'PaymentMethodLocked',
      });
      expect(when(waiting, change('PAYMENT_FORM', { paymentFormId: 4 }))[0].data).toMatchObject({
        paymentFormId: 4,
        status: 'WAITING_FOR_PAYMENT',
      });
      const reported = after(waiting, { type: 'ReportPayment', paymentId: 50, now: at(4) });
      expect(errorOf(() => when(reported, change('PAYMENT_FORM', { paymentFormId: 4 })))).toMatchObject({
        code: 'PaymentMethodLocked',
      });
      expect(errorOf(() => when(confirmedCash(), change('EXCHANGE_PAY')))).toMatchObject({
        code: 'PaymentMethodLocked',
      });
    },
  );

  it('confirms a waiting order that the re-applied credit now covers', () => {
    const waiting = given(createOrder({ paymentMethod: 'EXCHANGE_PAY' }), placeOffer(), accept());
    expect(when(waiting, change('PAGO_MOVIL', { creditAvailableCents: 20000 }))[0].data).toMatchObject({
      status: 'CONFIRMED',
    });
  });

  it('is 404 OrderNotFound for somebody else’s order', () => {
    expect(errorOf(() => when(given(createOrder()), change('EXCHANGE_PAY', { clientId: 99 })))).toMatchObject({
      kind: 'not_found',
      code: 'OrderNotFound',
    });
  });
});

describe('payment', () => {
  const waiting = () => given(createOrder({ paymentMethod: 'EXCHANGE_PAY' }), placeOffer(), accept());

  it('confirms a waiting order once', () => {
    const paid = after(waiting(), { type: 'ConfirmPayment', paymentId: 50, now: at(10) });
    expect(paid).toMatchObject({ status: 'CONFIRMED', paidPaymentId: 50, paidAt: at(10).toISOString() });
    expect(when(paid, { type: 'ConfirmPayment', paymentId: 50, now: at(11) })).toEqual([]);
    expect(errorOf(() => when(paid, { type: 'ConfirmPayment', paymentId: 51, now: at(11) }))).toMatchObject({
      kind: 'conflict',
      code: 'Conflict',
    });
  });

  it('holds expiry while a reported payment is under review, and releases it when the payment is rejected', () => {
    const reported = after(waiting(), { type: 'ReportPayment', paymentId: 50, now: at(10) });
    expect(when(reported, { type: 'ReportPayment', paymentId: 50, now: at(11) })).toEqual([]);
    expect(when(reported, { type: 'ExpireOrder', now: at(40) })).toEqual([]);
    const rejected = after(reported, { type: 'RejectPayment', paymentId: 50, now: at(41) });
    expect(rejected.reportedPaymentId).toBeNull();
    expect(when(rejected, { type: 'ExpireOrder', now: at(42) })[0].type).toBe('OrderExpired');
  });
});

describe('the trip', () => {
  it('starts only for the assigned driver of a CONFIRMED order', () => {
    const s = confirmedCash();
    expect(when(s, { type: 'StartTrip', driverId: DRIVER, now: at(3) })).toEqual([
      { type: 'TripStarted', data: { orderId: 1, driverId: DRIVER, startedAt: at(3).toISOString() } },
    ]);
    expect(errorOf(() => when(s, { type: 'StartTrip', driverId: OTHER_DRIVER, now: at(3) }))).toMatchObject({
      kind: 'forbidden',
      code: 'Forbidden',
    });
    expect(errorOf(() => when(inProgress(), { type: 'StartTrip', driverId: DRIVER, now: at(4) }))).toMatchObject({
      kind: 'conflict',
      code: 'Conflict',
    });
    const waiting = given(createOrder({ paymentMethod: 'EXCHANGE_PAY' }), placeOffer(), accept());
    expect(errorOf(() => when(waiting, { type: 'StartTrip', driverId: DRIVER, now: at(3) }))).toMatchObject({
      code: 'Conflict',
    });
  });

  it('takes locations only IN_PROGRESS or ARRIVED (409 WrongStatus)', () => {
    expect(errorOf(() => when(confirmedCash(), located(destination.latitude)))).toMatchObject({
      kind: 'conflict',
      code: 'WrongStatus',
    });
    expect(after(inProgress(), located(10.5)).driverLocation).toEqual({
      latitude: 10.5,
      longitude: destination.longitude,
      recordedAt: at(4).toISOString(),
    });
    expect(
      errorOf(() => when(inProgress(), { ...located(10.5), driverId: OTHER_DRIVER } as OrderCommand)),
    ).toMatchObject({ kind: 'forbidden' });
  });

  it('arrives within 500 m of a recent location, idempotently', () => {
    const arrive: OrderCommand = { type: 'MarkArrived', driverId: DRIVER, now: at(5) };
    expect(errorOf(() => when(inProgress(), arrive))).toMatchObject({ kind: 'conflict', code: 'NoLocation' });
    expect(errorOf(() => when(after(inProgress(), located(destination.latitude, -10)), arrive))).toMatchObject({
      code: 'NoLocation',
    });
    expect(errorOf(() => when(after(inProgress(), located(destination.latitude + 0.01)), arrive))).toMatchObject({
      code: 'TooFarFromDestination',
      details: { distanceKm: 1.112 },
    });
    const near = after(inProgress(), located(destination.latitude + 0.004));
    const [e] = when(near, arrive);
    expect(e).toEqual({
      type: 'DriverArrived',
      data: { orderId: 1, driverId: DRIVER, arrivedAt: at(5).toISOString(), distanceMeters: 445 },
    });
    const arrived = fold(evolve, near, [e])!;
    expect(arrived).toMatchObject({ status: 'ARRIVED', arrivedAt: at(5).toISOString(), arrivalDistanceMeters: 445 });
    expect(when(arrived, arrive)).toEqual([]);
    expect(when(arrived, located(destination.latitude, 6))[0].type).toBe('DriverLocationRecorded');
    expect(errorOf(() => when(confirmedCash(), arrive))).toMatchObject({ code: 'WrongStatus' });
  });
});

describe('Deliver', () => {
  it('delivers with the right PIN from CONFIRMED, IN_PROGRESS or ARRIVED', () => {
    for (const s of [confirmedCash(), inProgress()]) {
      const [e] = when(s, deliver('4821'));
      expect(e).toMatchObject({
        type: 'OrderDelivered',
        data: { actualLiters: 4900, isValidPromotion: false, deliveredAt: at(10).toISOString() },
      });
      expect(fold(evolve, s, [e])).toMatchObject({ status: 'DELIVERED', actualLiters: 4900 });
    }
  });

  it('records a wrong PIN and reports it as 400 DeliveryError', () => {
    const events = when(confirmedCash(), deliver('0000'));
    expect(events).toEqual([
      {
        type: 'DeliveryPinRejected',
        data: { orderId: 1, driverId: DRIVER, failedAttempts: 1, lockedUntil: null, attemptedAt: at(10).toISOString() },
      },
    ]);
    expect(failureOf(events)).toMatchObject({
      kind: 'bad_request',
      code: 'DeliveryError',
      details: { attemptsLeft: PIN_MAX_ATTEMPTS - 1 },
    });
    expect(failureOf(when(confirmedCash(), deliver('4821')))).toBeNull();
  });

  it(`locks PIN attempts for a while after ${PIN_MAX_ATTEMPTS} wrong ones`, () => {
    let s = confirmedCash();
    for (let i = 0; i < PIN_MAX_ATTEMPTS; i++) s = after(s, deliver('0000', 10 + i));
    expect(s.pinLockedUntil).toBe(at(14 + 15).toISOString());
    expect(errorOf(() => when(s, deliver('4821', 20)))).toMatchObject({
      kind: 'conflict',
      code: 'DeliveryError',
      details: { lockedUntil: s.pinLockedUntil },
    });
    expect(when(s, deliver('4821', 29))[0].type).toBe('OrderDelivered');
    const afterLock = after(s, deliver('1111', 30));
    expect(afterLock.failedPinAttempts).toBe(1);
  });

  it('refuses an order that is not deliverable (409 DeliveryError) and a driver who is not assigned (403)', () => {
    const waiting = given(createOrder({ paymentMethod: 'EXCHANGE_PAY' }), placeOffer(), accept());
    expect(errorOf(() => when(waiting, deliver('4821')))).toMatchObject({ kind: 'conflict', code: 'DeliveryError' });
    expect(
      errorOf(() => when(confirmedCash(), { ...deliver('4821'), driverId: OTHER_DRIVER } as OrderCommand)),
    ).toMatchObject({ kind: 'forbidden' });
  });

  it('delivers a zero-cost order only as a valid promotion: its credit really redeemed', () => {
    const free = given(createOrder({ creditAvailableCents: 50000 }), placeOffer(), {
      ...accept(),
      creditAvailableCents: 50000,
    } as OrderCommand);
    expect(free.pricing).toMatchObject({ isFullyPromoted: true, promoCreditCents: 10000 });
    expect(errorOf(() => when(free, deliver('4821', 10, 0)))).toMatchObject({
      kind: 'conflict',
      code: 'DeliveryError',
    });
    expect(when(free, deliver('4821', 10, 10000))[0].data).toMatchObject({ isValidPromotion: true });
  });
});

describe('CancelOrder', () => {
  const cancel = (
    role: 'CLIENT' | 'DRIVER' | 'ADMIN',
    userId: number,
    reasonCode: string | null = null,
  ): OrderCommand => ({
    type: 'CancelOrder',
    actor: { role, userId },
    reasonCode,
    reason: null,
    now: at(5),
  });

  it('lets the client cancel an open order with a reason from the client catalogue', () => {
    const s = given(createOrder(), placeOffer());
    const events = when(s, cancel('CLIENT', CLIENT, 'CLIENT_CHANGED_MIND'));
    expect(events[0]).toEqual({
      type: 'OrderCancelled',
      data: {
        orderId: 1,
        clientId: CLIENT,
        surplusListingId: null,
        cancelledByRole: 'CLIENT',
        cancelledById: CLIENT,
        reasonCode: 'CLIENT_CHANGED_MIND',
        reason: null,
        previousStatus: 'BROADCASTING',
        driverId: null,
        litersRequested: 5000,
        refundDueCents: 0,
        cancelledAt: at(5).toISOString(),
      },
    });
    expect(fold(evolve, s, events)!.offers[100].status).toBe('WITHDRAWN');
  });

  it('refuses a code from another role’s catalogue (422 ValidationError)', () => {
    expect(errorOf(() => when(given(createOrder()), cancel('CLIENT', CLIENT, 'DRIVER_TOO_FAR')))).toMatchObject({
      kind: 'unprocessable',
      code: 'ValidationError',
      details: { fieldErrors: { reason_code: expect.any(Array) } },
    });
  });

  it('is for the customer, the assigned driver and admins only (403 CancelError)', () => {
    expect(errorOf(() => when(given(createOrder()), cancel('CLIENT', 99)))).toMatchObject({
      kind: 'forbidden',
      code: 'CancelError',
    });
    expect(errorOf(() => when(given(createOrder(), placeOffer()), cancel('DRIVER', DRIVER)))).toMatchObject({
      kind: 'forbidden',
      code: 'CancelError',
    });
    expect(when(inProgress(), cancel('DRIVER', DRIVER, 'DRIVER_VEHICLE_ISSUE'))[0].data).toMatchObject({
      previousStatus: 'IN_PROGRESS',
      driverId: DRIVER,
    });
    expect(when(inProgress(), cancel('ADMIN', 1, 'ADMIN_SUPPORT'))[0].data).toMatchObject({ cancelledByRole: 'ADMIN' });
  });

  it('is over once the order is delivered, cancelled or expired (409 CancelError)', () => {
    const delivered = after(confirmedCash(), deliver('4821'));
    expect(errorOf(() => when(delivered, cancel('ADMIN', 1)))).toMatchObject({ kind: 'conflict', code: 'CancelError' });
    const cancelled = after(given(createOrder()), cancel('CLIENT', CLIENT));
    expect(errorOf(() => when(cancelled, cancel('CLIENT', CLIENT)))).toMatchObject({
      kind: 'conflict',
      code: 'CancelError',
    });
  });

  it('records an online payment already captured as owed back to the client', () => {
    const paid = given(
      createOrder({ paymentMethod: 'EXCHANGE_PAY' }),
      placeOffer(),
      { ...accept(), creditAvailableCents: 100 } as OrderCommand,
      {
        type: 'ConfirmPayment',
        paymentId: 50,
        now: at(4),
      },
    );
    expect(when(paid, cancel('CLIENT', CLIENT))[0].data).toMatchObject({ refundDueCents: 10000 }); // 10100 − 100 credit
    expect(when(confirmedCash(), cancel('CLIENT', CLIENT))[0].data).toMatchObject({ refundDueCents: 0 });
  });

  it('offers each role its own reason catalogue', () => {
    expect(cancellationReasons.CLIENT.map((r) => r.code)).toContain('CLIENT_OTHER');
    expect(cancellationReasons.DRIVER).toHaveLength(5);
    expect(cancellationReasons.ADMIN.map((r) => r.code)).toEqual([
      'ADMIN_FRAUD',
      'ADMIN_TEST',
      'ADMIN_SUPPORT',
      'ADMIN_DUPLICATE',
      'ADMIN_OTHER',
    ]);
  });
});

describe('ExpireOrder', () => {
  it('expires an order still bidding at expires_at and withdraws its offers', () => {
    const s = given(createOrder(), placeOffer({ driverGrossCents: 9500, offerExpiresAt: at(40) }));
    expect(when(s, { type: 'ExpireOrder', now: at(29) })).toEqual([]);
    const events = when(s, { type: 'ExpireOrder', now: at(30) });
    expect(events).toEqual([
      {
        type: 'OrderExpired',
        data: {
          orderId: 1,
          clientId: CLIENT,
          surplusListingId: null,
          previousStatus: 'COUNTER_OFFERED',
          releasedOfferId: null,
          driverId: null,
          litersRequested: 5000,
          expiredAt: at(30).toISOString(),
        },
      },
    ]);
    const expired = fold(evolve, s, events)!;
    expect(expired.status).toBe('EXPIRED');
    expect(expired.offers[100].status).toBe('WITHDRAWN');
    expect(when(expired, { type: 'ExpireOrder', now: at(31) })).toEqual([]);
  });

  it('expires an unpaid order at the end of its payment window and releases the accepted offer', () => {
    const waiting = given(createOrder({ paymentMethod: 'EXCHANGE_PAY' }), placeOffer(), accept());
    expect(when(waiting, { type: 'ExpireOrder', now: at(31) })).toEqual([]);
    const events = when(waiting, { type: 'ExpireOrder', now: at(32) });
    expect(events[0].data).toMatchObject({
      previousStatus: 'WAITING_FOR_PAYMENT',
      releasedOfferId: 100,
      driverId: DRIVER,
    });
    expect(fold(evolve, waiting, events)!.offers[100].status).toBe('EXPIRED');
  });

  it('leaves a confirmed order alone', () => {
    expect(when(confirmedCash(), { type: 'ExpireOrder', now: at(60) })).toEqual([]);
  });
});

describe('history', () => {
  it('replays a whole life to the same state it was decided on', () => {
    const events = history(createOrder({ paymentMethod: 'EXCHANGE_PAY' }), placeOffer(), accept(), {
      type: 'ConfirmPayment',
      paymentId: 5,
      now: at(3),
    });
    expect(events.map((e) => e.type)).toEqual(['OrderCreated', 'OfferPlaced', 'OfferAccepted', 'OrderPaid']);
    const replayed = fold(evolve, initialState, JSON.parse(JSON.stringify(events)) as OrderEvent[]);
    expect(replayed).toEqual(fold(evolve, initialState, events));
  });
});
