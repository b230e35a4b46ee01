import { creditDecider, redeemedForOrder } from '../../domain/credit/credit.js';
import { creditStream } from '../../domain/credit/events.js';
import type { Actor } from '../../domain/actor.js';
import { asAssignedDriver } from '../../domain/order/access.js';
import { conflict } from '../../domain/errors.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider, type OrderState } from '../../domain/order/order.js';
import { ON_TRIP } from '../../domain/order/rules.js';
import type { OrderCommand } from '../../domain/order/commands.js';
import { inTurn } from '../../domain/decider.js';
import { failureOf } from '../../domain/order/trip.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { DriverPositions } from '../driver/positions.js';
import type { CommandDeps } from '../deps.js';
import { loadState } from '../handle.js';

/**
 * The trip, for the assigned driver: start, live location, arrival,
 * delivery. Access is decided on the state the command decides on.
 */

type TripDeps = Pick<CommandDeps, 'handle' | 'clock'>;

const arrivalDecider = inTurn(orderDecider);

/** POST /orders/{id}/start. */
export const startTrip = (ctx: TripDeps, actor: Actor, orderId: number, metadata?: EventMetadata) =>
  ctx.handle(
    orderDecider,
    orderStream(orderId),
    (s) => ({ type: 'StartTrip', driverId: asAssignedDriver(s, actor).driverId, now: ctx.clock.now() }),
    { metadata },
  );

/**
 * Where the driver says it is, judged by the driver's position checks (rate, distance budget, first fix in its
 * city: commands/driver/positions.ts) after the order has decided who may send it and before anything is
 * appended, so a stranger gets the order's 404 or 403 and a refused position is recorded nowhere.
 */
type Positions = Pick<DriverPositions, 'check' | 'alongside' | 'record'>;

/** POST /orders/{id}/location. */
export const recordLocation = async (
  ctx: TripDeps,
  actor: Actor,
  input: { orderId: number; latitude: number; longitude: number },
  positions: Positions,
  metadata?: EventMetadata,
) => {
  const streamId = orderStream(input.orderId);
  const now = ctx.clock.now();
  const command = (s: OrderState): OrderCommand => ({
    type: 'RecordLocation',
    driverId: asAssignedDriver(s, actor).driverId,
    latitude: input.latitude,
    longitude: input.longitude,
    now,
  });
  const loaded = await ctx.handle.load(orderDecider, streamId, (s) => orderDecider.decide(command(s), s));
  const driverId = actor.driverId!;
  const checked = await positions.check(driverId, { latitude: input.latitude, longitude: input.longitude });
  const alongside = [positions.alongside(driverId, checked)];
  const { position } = await ctx.handle(orderDecider, streamId, command, { metadata, loaded, alongside });
  return { position };
};

/** POST /orders/{id}/arrived: the coordinates, when sent, become the live location first, in the same append. */
export const markArrived = async (
  ctx: TripDeps,
  actor: Actor,
  input: { orderId: number; latitude?: number; longitude?: number },
  positions: Positions,
  metadata?: EventMetadata,
) => {
  const { latitude, longitude } = input;
  const fix = latitude === undefined || longitude === undefined ? null : { latitude, longitude };
  const streamId = orderStream(input.orderId);
  const now = ctx.clock.now();
  const commands = (s: OrderState): OrderCommand[] => {
    const { order, driverId } = asAssignedDriver(s, actor);
    const arrive: OrderCommand = { type: 'MarkArrived', driverId, now };
    if (!fix) return [arrive];
    if (!ON_TRIP.includes(order.status)) throw conflict('WrongStatus', 'The order is not in progress.');
    return [{ type: 'RecordLocation', driverId, ...fix, now }, arrive];
  };
  const loaded = await ctx.handle.load(arrivalDecider, streamId, (s) => arrivalDecider.decide(commands(s), s));
  const driverId = actor.driverId!;
  const checked = fix && (await positions.check(driverId, fix));
  const alongside = checked ? [positions.alongside(driverId, checked)] : [];
  const arrived = await ctx.handle(arrivalDecider, streamId, commands, { metadata, loaded, alongside });
  // An arrival already recorded appends nothing: the position is still the driver's latest.
  if (checked && arrived.events.length === 0) await positions.record(driverId, checked);
  return { position: arrived.position, order: arrived.state! };
};

/**
 * POST /orders/{id}/deliver: a wrong PIN is recorded (it counts towards the lock) and then refused. The
 * delivery's reactions (the driver's tank, the wallet entries) follow inline, so a wallet read right after
 * it shows them.
 */
export const deliver = async (
  ctx: TripDeps & Pick<CommandDeps, 'store'>,
  actor: Actor,
  input: { orderId: number; deliveryPin: string; actualLiters: number },
  metadata?: EventMetadata,
) => {
  const loaded = await ctx.handle.load(orderDecider, orderStream(input.orderId), (s) => asAssignedDriver(s, actor));
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
    { metadata, loaded, read: [[creditStream(order.clientId), credit]] },
  );
  const failure = failureOf(decided.events);
  if (failure) throw failure;
  return { position: decided.position };
};
