import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import { creditUsableForOrder, redeemedForOrder, usableCredit } from '../../domain/credit/credit.js';
import { conflict, forbidden, notFound, unprocessable, validationError, type DomainError } from '../../domain/errors.js';
import type { WaterType } from '../../domain/order/events.js';
import { failureOf, standingCounterOffer, type Order, type OrderCommand, type OrderState } from '../../domain/order/order.js';
import type { CancelRole } from '../../domain/order/cancellationReasons.js';
import { PAYMENT_FORM, type PricingSettings } from '../../domain/pricing.js';
import type { Actor } from '../../api/auth.js';
import type { AppContext } from '../../infra/context.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { billingSnapshotFor } from '../../projections/billing/billingQueries.js';
import { findDriver, type DriverRecord } from '../../projections/drivers/driverQueries.js';
import { officialRateAt } from '../../projections/exchangeRates/exchangeRateQueries.js';
import { activePaymentForm } from '../../projections/paymentForms/paymentFormQueries.js';
import { findPaymentMethod } from '../../projections/paymentMethods/paymentMethodQueries.js';
import { loadCredit } from '../credit/handlers.js';
import { loadOrder, runOrderCommand } from './orderStream.js';
import { reactToOrderEvents } from './reactions.js';
import { withCustomerSlot, withDriverSlot } from './slots.js';
import { nearestCityId } from '../../domain/city.js';
import { cityCentres } from '../../infra/cities/cityCentres.js';

/**
 * Order command handlers: gather what the decider needs (reference data, credit, the driver's liters),
 * decide and append on the order stream, then run the process manager inline for what was appended.
 * Each returns the global position to settle on before answering from the read model.
 */

/** An idle position older than this is not "recent GPS" for an offer's driver_latitude/longitude. */
export const OFFER_POSITION_FRESH_MINUTES = 15;

const minutes = (n: number) => n * 60_000;

export const pricingSettingsOf = (ctx: AppContext): PricingSettings => ({
  platformCommissionPrc: ctx.config.PLATFORM_COMMISSION_PRC,
  clientSolidaryPrc: ctx.config.CLIENT_SOLIDARY_PRC,
  driverSolidaryPrc: ctx.config.DRIVER_SOLIDARY_PRC,
  platformSolidaryPrc: ctx.config.PLATFORM_SOLIDARY_PRC,
});

export const metadataOf = (actor: Actor, requestId?: unknown): EventMetadata => ({
  actor: { id: actor.id, role: actor.role },
  ...(typeof requestId === 'string' ? { correlationId: requestId } : {}),
});

export const nextId = async (ctx: AppContext, sequence: 'order_id_seq' | 'offer_id_seq'): Promise<number> => {
  const { rows } = await sql<{ id: number }>`SELECT nextval(${sequence}::regclass) AS id`.execute(ctx.db);
  return Number(rows[0].id);
};

/** A 4-digit PIN the client hands over at delivery; drawn here because the domain holds no randomness. */
const newDeliveryPin = (): string => String(randomInt(0, 10_000)).padStart(4, '0');

const ORDER_NOT_FOUND = () => notFound('OrderNotFound', 'Order not found.');

/**
 * Who the caller is to an order. A caller with no part in it gets exactly what an unknown id gets, so
 * strangers learn nothing about orders that are not theirs; parties without the right get 403.
 */
export type Party = 'CLIENT' | 'DRIVER' | 'BIDDER' | 'ADMIN' | null;

export const partyOf = (order: { clientId: number; driverId: number | null; bidderIds: number[] }, actor: Actor): Party => {
  if (actor.role === 'ADMIN') return 'ADMIN';
  if (actor.role === 'CLIENT') return order.clientId === actor.id ? 'CLIENT' : null;
  const driverId = actor.driverId ?? null;
  if (driverId === null) return null;
  if (order.driverId === driverId) return 'DRIVER';
  return order.bidderIds.includes(driverId) ? 'BIDDER' : null;
};

const partyOfState = (s: Order, actor: Actor): Party =>
  partyOf({ clientId: s.clientId, driverId: s.driverId, bidderIds: Object.values(s.offers).map((o) => o.driverId) }, actor);

/** The order, or 404 for an unknown id and for a caller with no part in it. */
const visibleOrder = (s: OrderState, actor: Actor, notFoundError: () => DomainError = ORDER_NOT_FOUND): Order => {
  if (!s || partyOfState(s, actor) === null) throw notFoundError();
  return s;
};

/** Routes for the assigned driver: other drivers who bid on the order get 403. */
const asAssignedDriver = (s: OrderState, actor: Actor): { order: Order; driverId: number } => {
  const order = visibleOrder(s, actor);
  if (partyOfState(order, actor) !== 'DRIVER') throw forbidden('Forbidden', 'You are not the driver of this order.');
  return { order, driverId: actor.driverId! };
};

const asOwner = (s: OrderState, actor: Actor): Order => {
  const order = visibleOrder(s, actor);
  if (order.clientId !== actor.id || actor.role !== 'CLIENT') throw ORDER_NOT_FOUND();
  return order;
};

/** 422 naming the field when the method is unknown or switched off, or the form is missing or inactive. */
export const assertSelectableMethod = async (ctx: AppContext, paymentMethod: string, paymentFormId: number | null | undefined): Promise<number | null> => {
  const method = await findPaymentMethod(ctx.db, paymentMethod);
  if (!method || !method.active) throw validationError({ paymentMethod: ['is not an available payment method'] });
  if (paymentMethod !== PAYMENT_FORM) return null;
  if (paymentFormId === undefined || paymentFormId === null) throw validationError({ paymentFormId: ['is required for PAYMENT_FORM'] });
  if (!(await activePaymentForm(ctx.db, paymentFormId))) throw validationError({ paymentFormId: ['is not an active payment form'] });
  return paymentFormId;
};

/** The bidding driver as the offer needs it, or 409 Conflict when the driver may not bid. */
const eligibleDriver = async (ctx: AppContext, driverId: number | null | undefined): Promise<DriverRecord> => {
  const driver = driverId ? await findDriver(ctx.db, driverId, ctx.clock.now()) : null;
  if (!driver || driver.status !== 'ACTIVE') throw conflict('Conflict', 'Only an approved driver may bid.');
  if (!driver.isOnline) throw conflict('Conflict', 'Go online to bid.');
  return driver;
};

export interface CreateOrderInput {
  clientId: number;
  latitude: number;
  longitude: number;
  address: string;
  addressReference: string | null;
  litersRequested: number;
  /** The client's published price (basePrice), or a surplus listing's derived base price. */
  waterPriceCents: number;
  waterType: WaterType;
  paymentMethod: string;
  paymentFormId: number | null;
  notes: string | null;
  accessInstructions: string | null;
  /** undefined: the client's default profile; null: no billing. */
  billingProfileId: number | null | undefined;
  /** A surplus reservation: the listing's owner is the driver, no bidding. */
  surplus?: { listingId: number; driverId: number };
  /** Allocated beforehand (nextId) by a caller that records the order's id elsewhere first: the surplus reservation. */
  orderId?: number;
}

/** POST /orders (and, with `surplus`, the order a surplus reservation creates). */
export const createOrder = async (ctx: AppContext, input: CreateOrderInput, metadata?: EventMetadata) => {
  const now = ctx.clock.now();
  const paymentFormId = await assertSelectableMethod(ctx, input.paymentMethod, input.paymentFormId);
  const rate = await officialRateAt(ctx.db, now);
  if (!rate) throw unprocessable('ExchangeRateUnavailable', 'No official VES exchange rate is in force.');
  const snapshot = await billingSnapshotFor(ctx.db, input.clientId, input.billingProfileId, { required: ctx.config.BILLING_REQUIRED });
  const billing = snapshot && { entityType: snapshot.entity_type, idNumber: snapshot.id_number, name: snapshot.name, address: snapshot.address, phone: snapshot.phone };
  const orderId = input.orderId ?? (await nextId(ctx, 'order_id_seq'));
  const cityId = nearestCityId(await cityCentres(ctx.db), input);
  const activeOrderExists = () => conflict('ActiveOrderExists', 'You already have an active order.');
  const create = async () => {
    const credit = await loadCredit(ctx, input.clientId);
    const { position, decided } = await runOrderCommand(
      ctx,
      orderId,
      () => ({
        type: 'CreateOrder',
        orderId,
        clientId: input.clientId,
        latitude: input.latitude,
        longitude: input.longitude,
        address: input.address,
        addressReference: input.addressReference,
        litersRequested: input.litersRequested,
        waterPriceCents: input.waterPriceCents,
        waterType: input.waterType,
        paymentMethod: input.paymentMethod,
        paymentFormId,
        notes: input.notes,
        accessInstructions: input.accessInstructions,
        billing,
        officialRateCents: rate.rateCents,
        pricingSettings: pricingSettingsOf(ctx),
        creditAvailableCents: usableCredit(credit, input.surplus ? 'surplus' : 'order'),
        deliveryPin: newDeliveryPin(),
        cityId,
        now,
        expiresAt: new Date(now.getTime() + minutes(ctx.config.ORDER_BROADCAST_MINUTES)),
        surplus: input.surplus ? { ...input.surplus, paymentExpiresAt: new Date(now.getTime() + minutes(ctx.config.PAYMENT_WINDOW_MINUTES)) } : null,
      }),
      metadata,
    );
    return { orderId, position: Math.max(position, await reactToOrderEvents(ctx, decided)) };
  };
  const withCustomer = () => withCustomerSlot(ctx, input.clientId, orderId, activeOrderExists, create, metadata);
  const result = input.surplus
    ? await withDriverSlot(ctx, input.surplus.driverId, orderId, () => conflict('Conflict', 'The driver is busy with another order.'), withCustomer, metadata)
    : await withCustomer();
  return result;
};

export interface PlaceOfferInput {
  orderId: number;
  /** null: bid the published price (POST /accept). */
  driverGrossCents: number | null;
  estimatedMinutes: number | null;
  force: boolean;
}

/** POST /orders/{id}/accept, /driver-accept, /counter-offer, /offers. */
export const placeOffer = async (ctx: AppContext, actor: Actor, input: PlaceOfferInput, metadata?: EventMetadata) => {
  const existing = await loadOrder(ctx, input.orderId);
  if (!existing) throw ORDER_NOT_FOUND();
  const driver = await eligibleDriver(ctx, actor.driverId);
  const remaining = driver.remainingLiters;
  const now = ctx.clock.now();
  const position = driver.location && now.getTime() - driver.location.at.getTime() <= minutes(OFFER_POSITION_FRESH_MINUTES) ? driver.location : null;
  const offerId = await nextId(ctx, 'offer_id_seq');
  const result = await runOrderCommand(
    ctx,
    input.orderId,
    () => ({
      type: 'PlaceOffer',
      offerId,
      driverId: driver.driverId,
      driverGrossCents: input.driverGrossCents,
      estimatedMinutes: input.estimatedMinutes,
      driverRemainingLiters: remaining,
      force: input.force,
      driverLatitude: position?.latitude ?? null,
      driverLongitude: position?.longitude ?? null,
      now,
      offerExpiresAt: new Date(now.getTime() + minutes(ctx.config.OFFER_TTL_MINUTES)),
    }),
    metadata,
  );
  return { offerId, position: result.position };
};

/**
 * The client confirms an offer (by offer id, or the standing counter-offer). The driver's slot is taken
 * first, so two clients racing for one driver, or a driver already holding an order, give a clean 409.
 */
const acceptOffer = async (ctx: AppContext, actor: Actor, orderId: number, pickOffer: (order: Order) => number, metadata?: EventMetadata) => {
  const order = asOwnerForOffer(await loadOrder(ctx, orderId), actor);
  const offerId = pickOffer(order);
  const offer = order.offers[offerId];
  // The same checks as the decider, before the driver's slot is touched: a stale offer never blocks a driver.
  const now = ctx.clock.now();
  const open = (order.status === 'BROADCASTING' || order.status === 'COUNTER_OFFERED') && now.getTime() < Date.parse(order.expiresAt);
  if (!open || offer.status !== 'PENDING' || now.getTime() >= Date.parse(offer.expiresAt)) {
    throw conflict('Conflict', 'The offer has expired or was already taken.');
  }
  const driver = await findDriver(ctx.db, offer.driverId, now);
  if (!driver) throw conflict('Conflict', 'The driver is no longer available.');
  const remaining = driver.remainingLiters;
  const accept = async () => {
    const credit = await loadCredit(ctx, order.clientId);
    const kind = order.surplusListingId === null ? 'order' : 'surplus';
    const { position, decided } = await runOrderCommand(
      ctx,
      orderId,
      (): OrderCommand => ({
        type: 'AcceptOffer',
        offerId,
        clientId: actor.id,
        driverRemainingLiters: remaining,
        driverBusy: false,
        creditAvailableCents: creditUsableForOrder(credit, kind, orderId),
        now: ctx.clock.now(),
        paymentExpiresAt: new Date(ctx.clock.now().getTime() + minutes(ctx.config.PAYMENT_WINDOW_MINUTES)),
      }),
      metadata,
    );
    return Math.max(position, await reactToOrderEvents(ctx, decided));
  };
  const position = await withDriverSlot(ctx, offer.driverId, orderId, () => conflict('Conflict', 'The driver is busy with another order.'), accept, metadata);
  return { orderId, position };
};

/** A client who does not own the order sees neither it nor its offers. */
const asOwnerForOffer = (s: OrderState, actor: Actor): Order => {
  if (!s || s.clientId !== actor.id) throw notFound('NotFound', 'Offer not found.');
  return s;
};

/** POST /orders/offers/{offerId}/accept and /counter-offers/{offerId}/accept. */
export const acceptOfferById = (ctx: AppContext, actor: Actor, orderId: number, offerId: number, metadata?: EventMetadata) =>
  acceptOffer(
    ctx,
    actor,
    orderId,
    (order) => {
      if (!order.offers[offerId]) throw notFound('NotFound', 'Offer not found.');
      return offerId;
    },
    metadata,
  );

/** POST /orders/{orderId}/accept-counter. */
export const acceptStandingCounterOffer = async (ctx: AppContext, actor: Actor, orderId: number, metadata?: EventMetadata) => {
  const order = asOwner(await loadOrder(ctx, orderId), actor);
  const standing = standingCounterOffer(order, ctx.clock.now());
  if (!standing) throw conflict('Conflict', 'There is no counter-offer to accept.');
  return acceptOffer(ctx, actor, orderId, () => standing.id, metadata);
};

/** POST /counter-offers/{offerId}/reject. */
export const rejectOffer = async (ctx: AppContext, actor: Actor, orderId: number, offerId: number, metadata?: EventMetadata) =>
  runOrderCommand(
    ctx,
    orderId,
    (s) => {
      const order = asOwnerForOffer(s, actor);
      if (!order.offers[offerId]) throw notFound('NotFound', 'Offer not found.');
      return { type: 'RejectOffer', offerId, clientId: actor.id, now: ctx.clock.now() };
    },
    metadata,
  );

/** PATCH /orders/{id}/payment-method. */
export const changePaymentMethod = async (
  ctx: AppContext,
  actor: Actor,
  input: { orderId: number; paymentMethod: string; paymentFormId: number | null | undefined },
  metadata?: EventMetadata,
) => {
  asOwner(await loadOrder(ctx, input.orderId), actor);
  const paymentFormId = await assertSelectableMethod(ctx, input.paymentMethod, input.paymentFormId);
  const credit = await loadCredit(ctx, actor.id);
  const { position, decided } = await runOrderCommand(
    ctx,
    input.orderId,
    (s) => {
      const order = asOwner(s, actor);
      return {
        type: 'ChangePaymentMethod',
        clientId: actor.id,
        paymentMethod: input.paymentMethod,
        paymentFormId,
        creditAvailableCents: creditUsableForOrder(credit, order.surplusListingId === null ? 'order' : 'surplus', order.id),
        now: ctx.clock.now(),
      };
    },
    metadata,
  );
  return { position: Math.max(position, await reactToOrderEvents(ctx, decided)) };
};

/** POST /orders/{id}/start. */
export const startTrip = (ctx: AppContext, actor: Actor, orderId: number, metadata?: EventMetadata) =>
  runOrderCommand(ctx, orderId, (s) => ({ type: 'StartTrip', driverId: asAssignedDriver(s, actor).driverId, now: ctx.clock.now() }), metadata);

/** POST /orders/{id}/location. */
export const recordLocation = (ctx: AppContext, actor: Actor, input: { orderId: number; latitude: number; longitude: number }, metadata?: EventMetadata) =>
  runOrderCommand(
    ctx,
    input.orderId,
    (s) => ({ type: 'RecordLocation', driverId: asAssignedDriver(s, actor).driverId, latitude: input.latitude, longitude: input.longitude, now: ctx.clock.now() }),
    metadata,
  );

/** POST /orders/{id}/arrived: the coordinates, when sent, become the live location first. */
export const markArrived = async (
  ctx: AppContext,
  actor: Actor,
  input: { orderId: number; latitude?: number; longitude?: number },
  metadata?: EventMetadata,
) => {
  let position = 0;
  if (input.latitude !== undefined && input.longitude !== undefined) {
    const order = asAssignedDriver(await loadOrder(ctx, input.orderId), actor).order;
    if (order.status !== 'IN_PROGRESS' && order.status !== 'ARRIVED') throw conflict('WrongStatus', 'The order is not in progress.');
    position = (await recordLocation(ctx, actor, { orderId: input.orderId, latitude: input.latitude, longitude: input.longitude }, metadata)).position;
  }
  const result = await runOrderCommand(ctx, input.orderId, (s) => ({ type: 'MarkArrived', driverId: asAssignedDriver(s, actor).driverId, now: ctx.clock.now() }), metadata);
  return { position: Math.max(position, result.position), order: result.state! };
};

/** POST /orders/{id}/deliver: a wrong PIN is recorded (it counts towards the lock) and then refused. */
export const deliver = async (
  ctx: AppContext,
  actor: Actor,
  input: { orderId: number; deliveryPin: string; actualLiters: number },
  metadata?: EventMetadata,
) => {
  const order = asAssignedDriver(await loadOrder(ctx, input.orderId), actor).order;
  const credit = await loadCredit(ctx, order.clientId);
  const { position, decided } = await runOrderCommand(
    ctx,
    input.orderId,
    (s) => ({
      type: 'Deliver',
      driverId: asAssignedDriver(s, actor).driverId,
      deliveryPin: input.deliveryPin,
      actualLiters: input.actualLiters,
      redeemedCreditCents: redeemedForOrder(credit, input.orderId),
      now: ctx.clock.now(),
    }),
    metadata,
  );
  const failure = failureOf(decided);
  if (failure) throw failure;
  return { position: Math.max(position, await reactToOrderEvents(ctx, decided)) };
};

const cancelRoleOf = (actor: Actor): CancelRole => actor.role;

/** POST /orders/{id}/cancel: the client, the assigned driver or an admin. */
export const cancelOrder = async (
  ctx: AppContext,
  actor: Actor,
  input: { orderId: number; reasonCode: string | null; reason: string | null },
  metadata?: EventMetadata,
) => {
  const { position, decided } = await runOrderCommand(
    ctx,
    input.orderId,
    (s) => {
      visibleOrder(s, actor, () => notFound('CancelError', 'Order not found.'));
      return {
        type: 'CancelOrder',
        actor: { role: cancelRoleOf(actor), userId: actor.role === 'DRIVER' ? (actor.driverId ?? -1) : actor.id },
        reasonCode: input.reasonCode,
        reason: input.reason,
        now: ctx.clock.now(),
      };
    },
    metadata,
  );
  return { position: Math.max(position, await reactToOrderEvents(ctx, decided)) };
};

const SYSTEM: EventMetadata = { actor: { id: null, role: 'SYSTEM' } };

/**
 * For the payments area: the order's payment was reported (manual form), rejected, or confirmed. Each is
 * idempotent for the same payment id; ConfirmPayment moves WAITING_FOR_PAYMENT to CONFIRMED.
 */
export const reportPayment = (ctx: AppContext, orderId: number, paymentId: number, metadata: EventMetadata = SYSTEM) =>
  runOrderCommand(ctx, orderId, () => ({ type: 'ReportPayment', paymentId, now: ctx.clock.now() }), metadata);

export const rejectPayment = (ctx: AppContext, orderId: number, paymentId: number, metadata: EventMetadata = SYSTEM) =>
  runOrderCommand(ctx, orderId, () => ({ type: 'RejectPayment', paymentId, now: ctx.clock.now() }), metadata);

export const confirmPayment = (ctx: AppContext, orderId: number, paymentId: number, metadata: EventMetadata = SYSTEM) =>
  runOrderCommand(ctx, orderId, () => ({ type: 'ConfirmPayment', paymentId, now: ctx.clock.now() }), metadata);

/** Timers: each is a no-op when the order or offer has moved on (or the timer fired early). */
export const expireOrder = async (ctx: AppContext, orderId: number) => {
  const { position, decided } = await runOrderCommand(ctx, orderId, () => ({ type: 'ExpireOrder', now: ctx.clock.now() }), SYSTEM);
  return { position: Math.max(position, await reactToOrderEvents(ctx, decided)) };
};

export const expireOffer = (ctx: AppContext, orderId: number, offerId: number) =>
  runOrderCommand(ctx, orderId, () => ({ type: 'ExpireOffer', offerId, now: ctx.clock.now() }), SYSTEM);
