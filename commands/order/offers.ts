import { creditDecider, creditKindOf, creditUsableForOrder } from '../../domain/credit/credit.js';
import { creditStream } from '../../domain/credit/events.js';
import type { Actor } from '../../domain/actor.js';
import { asOwner, asOwnerOfOffer } from '../../domain/order/access.js';
import { conflict, notFound } from '../../domain/errors.js';
import { orderStream } from '../../domain/order/events.js';
import { standingCounterOffer } from '../../domain/order/bidding.js';
import type { AcceptOffer } from '../../domain/order/commands.js';
import { orderDecider, type Order, type OrderState } from '../../domain/order/order.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { DriverRecord } from '../../projections/drivers/driverQueries.js';
import type { CommandDeps } from '../deps.js';
import { loadState, type Loaded } from '../handle.js';
import { nextId } from '../origin.js';
import { minutes } from './create.js';
import { driverSlotFor } from './slots.js';

/** Bidding: a driver's offer, the client's acceptance or rejection. Each reads the order stream once. */

type OfferDeps = Pick<CommandDeps, 'handle' | 'clock' | 'logger' | 'store' | 'db' | 'reference'> & {
  config: Pick<CommandDeps['config'], 'OFFER_TTL_MINUTES' | 'PAYMENT_WINDOW_MINUTES'>;
};

/** An idle position older than this is not "recent GPS" for an offer's driver_latitude/longitude. */
export const OFFER_POSITION_FRESH_MINUTES = 15;

/** The bidding driver as the offer needs it, or 409 Conflict when the driver may not bid. */
const eligibleDriver = async (
  ctx: Pick<OfferDeps, 'reference' | 'clock'>,
  driverId: number | null | undefined,
  read?: DriverRecord | null,
): Promise<DriverRecord> => {
  const driver =
    read && read.driverId === driverId ? read : driverId ? await ctx.reference.driver(driverId, ctx.clock.now()) : null;
  if (!driver || driver.status !== 'ACTIVE') throw conflict('Conflict', 'Only an approved driver may bid.');
  if (!driver.isOnline) throw conflict('Conflict', 'Go online to bid.');
  return driver;
};

export interface PlaceOfferInput {
  orderId: number;
  /** null: bid the published price (POST /accept). */
  driverGrossCents: number | null;
  estimatedMinutes: number | null;
  force: boolean;
  /** The bidding driver's record as the caller already read it in this request (not read again). */
  driver?: DriverRecord | null;
}

/** POST /orders/{id}/accept, /driver-accept, /counter-offer, /offers. */
export const placeOffer = async (ctx: OfferDeps, actor: Actor, input: PlaceOfferInput, metadata?: EventMetadata) => {
  // Read first: an unknown order is 404 whoever asks, before the driver's eligibility is looked at.
  const loaded = await ctx.handle.load(orderDecider, orderStream(input.orderId), (s) => {
    if (!s) throw notFound('OrderNotFound', 'Order not found.');
  });
  const driver = await eligibleDriver(ctx, actor.driverId, input.driver);
  const now = ctx.clock.now();
  const position =
    driver.location && now.getTime() - driver.location.at.getTime() <= minutes(OFFER_POSITION_FRESH_MINUTES)
      ? driver.location
      : null;
  const offerId = await nextId(ctx.db, 'offer_id_seq');
  const decided = await ctx.handle(
    orderDecider,
    orderStream(input.orderId),
    {
      type: 'PlaceOffer',
      offerId,
      driverId: driver.driverId,
      driverGrossCents: input.driverGrossCents,
      estimatedMinutes: input.estimatedMinutes,
      driverRemainingLiters: driver.remainingLiters,
      force: input.force,
      driverLatitude: position?.latitude ?? null,
      driverLongitude: position?.longitude ?? null,
      now,
      offerExpiresAt: new Date(now.getTime() + minutes(ctx.config.OFFER_TTL_MINUTES)),
    },
    { metadata, loaded },
  );
  return { offerId, position: decided.position };
};

/**
 * The client confirms an offer on the order as read. The driver's record and the client's credit are read
 * once; the driver's slot is taken only once the decision has its events, so a stale offer never blocks a
 * driver, and two clients racing for one driver, or a driver already holding an order, give a clean 409.
 */
const acceptOffer = async (
  ctx: OfferDeps,
  actor: Actor,
  loaded: Loaded<Order>,
  offerId: number,
  metadata?: EventMetadata,
) => {
  const order = loaded.state;
  const offer = order.offers[offerId];
  const driver = await ctx.reference.driver(offer.driverId, ctx.clock.now());
  if (!driver) throw conflict('Conflict', 'The driver is no longer available.');
  const credit = await loadState(ctx.store, creditStream(order.clientId), creditDecider);
  const kind = creditKindOf(order.surplusListingId);
  const accept = (): AcceptOffer => {
    const now = ctx.clock.now();
    return {
      type: 'AcceptOffer',
      offerId,
      clientId: actor.id,
      driverRemainingLiters: driver.remainingLiters,
      driverBusy: false,
      creditAvailableCents: creditUsableForOrder(credit.state, kind, order.id),
      now,
      paymentExpiresAt: new Date(now.getTime() + minutes(ctx.config.PAYMENT_WINDOW_MINUTES)),
    };
  };
  const accepted = await ctx.handle(orderDecider, orderStream(order.id), accept, {
    metadata,
    loaded,
    read: [[creditStream(order.clientId), credit]],
    reservations: [driverSlotFor(ctx, offer.driverId, order.id, metadata)],
  });
  return { orderId: order.id, position: accepted.position };
};

/** POST /orders/offers/{offerId}/accept and /counter-offers/{offerId}/accept. */
export const acceptOfferById = async (
  ctx: OfferDeps,
  actor: Actor,
  orderId: number,
  offerId: number,
  metadata?: EventMetadata,
) => {
  const loaded = await ctx.handle.load(orderDecider, orderStream(orderId), (s) => asOwnerOfOffer(s, actor, offerId));
  return acceptOffer(ctx, actor, { ...loaded, state: asOwnerOfOffer(loaded.state, actor, offerId) }, offerId, metadata);
};

/** POST /orders/{orderId}/accept-counter. */
export const acceptStandingCounterOffer = async (
  ctx: OfferDeps,
  actor: Actor,
  orderId: number,
  metadata?: EventMetadata,
) => {
  const now = ctx.clock.now();
  const standingOf = (state: OrderState) => {
    const standing = standingCounterOffer(asOwner(state, actor), now);
    if (!standing) throw conflict('Conflict', 'There is no counter-offer to accept.');
    return standing;
  };
  const loaded = await ctx.handle.load(orderDecider, orderStream(orderId), standingOf);
  const order = asOwner(loaded.state, actor);
  return acceptOffer(ctx, actor, { ...loaded, state: order }, standingOf(loaded.state).id, metadata);
};

/** POST /counter-offers/{offerId}/reject. */
export const rejectOffer = (
  ctx: Pick<CommandDeps, 'handle' | 'clock'>,
  actor: Actor,
  orderId: number,
  offerId: number,
  metadata?: EventMetadata,
) =>
  ctx.handle(
    orderDecider,
    orderStream(orderId),
    (s) => {
      asOwnerOfOffer(s, actor, offerId);
      return { type: 'RejectOffer', offerId, clientId: actor.id, now: ctx.clock.now() };
    },
    { metadata },
  );
