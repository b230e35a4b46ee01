import { creditDecider, redeemedForOrder } from '../../domain/credit/credit.js';
import { creditStream } from '../../domain/credit/events.js';
import type { Actor } from '../../domain/actor.js';
import { asAssignedDriver } from '../../domain/order/access.js';
import { conflict } from '../../domain/errors.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { ON_TRIP } from '../../domain/order/rules.js';
import type { OrderCommand } from '../../domain/order/commands.js';
import { inTurn } from '../../domain/decider.js';

const arrivalDecider = inTurn(orderDecider);
import { failureOf } from '../../domain/order/trip.js';
import type { AppContext } from '../../infra/context.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { loadState } from '../handle.js';
import { reactToDeliveryInline } from '../wallet/walletReactions.js';
import { reactToOrderEvents } from './reactions.js';

/** The trip, for the assigned driver: start, live location, arrival, delivery. Access is decided on the state the command decides on. */

/** POST /orders/{id}/start. */
export const startTrip = (ctx: AppContext, actor: Actor, orderId: number, metadata?: EventMetadata) =>
  ctx.handle(orderDecider, orderStream(orderId), (s) => ({ type: 'StartTrip', driverId: asAssignedDriver(s, actor).driverId, now: ctx.clock.now() }), { metadata });

/** POST /orders/{id}/location. */
export const recordLocation = (ctx: AppContext, actor: Actor, input: { orderId: number; latitude: number; longitude: number }, metadata?: EventMetadata) =>
  ctx.handle(
    orderDecider,
    orderStream(input.orderId),
    (s) => ({ type: 'RecordLocation', driverId: asAssignedDriver(s, actor).driverId, latitude: input.latitude, longitude: input.longitude, now: ctx.clock.now() }),
    { metadata },
  );

/** POST /orders/{id}/arrived: the coordinates, when sent, become the live location first, in the same append. */
export const markArrived = async (
  ctx: AppContext,
  actor: Actor,
  input: { orderId: number; latitude?: number; longitude?: number },
  metadata?: EventMetadata,
) => {
  const { latitude, longitude } = input;
  const arrived = await ctx.handle(
    arrivalDecider,
    orderStream(input.orderId),
    (s): OrderCommand[] => {
      const { order, driverId } = asAssignedDriver(s, actor);
      const now = ctx.clock.now();
      const arrive: OrderCommand = { type: 'MarkArrived', driverId, now };
      if (latitude === undefined || longitude === undefined) return [arrive];
      if (!ON_TRIP.includes(order.status)) throw conflict('WrongStatus', 'The order is not in progress.');
      return [{ type: 'RecordLocation', driverId, latitude, longitude, now }, arrive];
    },
    { metadata },
  );
  return { position: arrived.position, order: arrived.state! };
};

/** POST /orders/{id}/deliver: a wrong PIN is recorded (it counts towards the lock) and then refused. */
export const deliver = async (
  ctx: AppContext,
  actor: Actor,
  input: { orderId: number; deliveryPin: string; actualLiters: number },
  metadata?: EventMetadata,
) => {
  const loaded = await loadState(ctx.store, orderStream(input.orderId), orderDecider);
  const { order } = asAssignedDriver(loaded.state, actor);
  // What the client's credit holds redeemed for this order is reference data for the decision: read once.
  const credit = await loadState(ctx.store, creditStream(order.clientId), creditDecider);
  const decided = await ctx.handle(
    orderDecider,
    orderStream(input.orderId),
    (s) => ({
      type: 'Deliver',
      driverId: asAssignedDriver(s, actor).driverId,
      deliveryPin: input.deliveryPin,
      actualLiters: input.actualLiters,
      redeemedCreditCents: redeemedForOrder(credit.state, input.orderId),
      now: ctx.clock.now(),
    }),
    { metadata, loaded },
  );
  const failure = failureOf(decided.events);
  if (failure) throw failure;
  const reacted = await reactToOrderEvents(ctx, decided, { clientId: order.clientId, loaded: credit });
  // The driver's wallet entries in the same response, so a wallet read right after the delivery shows them;
  // if this fails, the wallet's catch-up job records them from the log (the delivery itself stands).
  const delivered = decided.events.find((e) => e.type === 'OrderDelivered');
  const earned = !delivered
    ? 0
    : await reactToDeliveryInline(ctx, { ...delivered, streamId: orderStream(input.orderId) }, { state: decided.state, version: decided.version }).catch((err: unknown) => {
        ctx.logger.warn({ err, orderId: input.orderId }, 'wallet entries of a delivery left to the catch-up');
        return 0;
      });
  return { position: Math.max(decided.position, reacted, earned) };
};
