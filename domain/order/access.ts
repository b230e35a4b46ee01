import type { Actor } from '../actor.js';
import { forbidden, notFound, type DomainError } from '../errors.js';
import type { Order, OrderState } from './order.js';

/**
 * Who the caller is to an order. A caller with no part in it gets exactly what an unknown id gets, so
 * strangers learn nothing about orders that are not theirs; parties without the right get 403. Checked
 * on the state the command decides on, never on an earlier read.
 */
export type Party = 'CLIENT' | 'DRIVER' | 'BIDDER' | 'ADMIN' | null;

export const partyOf = (
  order: { clientId: number; driverId: number | null; bidderIds: number[] },
  actor: Actor,
): Party => {
  if (actor.role === 'ADMIN') return 'ADMIN';
  if (actor.role === 'CLIENT') return order.clientId === actor.id ? 'CLIENT' : null;
  const driverId = actor.driverId ?? null;
  if (driverId === null) return null;
  if (order.driverId === driverId) return 'DRIVER';
  return order.bidderIds.includes(driverId) ? 'BIDDER' : null;
};

/** The actor's part in an order as its stream holds it (its bidders are the drivers of its offers). */
export const partyOfOrder = (s: Order, actor: Actor): Party =>
  partyOf(
    { clientId: s.clientId, driverId: s.driverId, bidderIds: Object.values(s.offers).map((o) => o.driverId) },
    actor,
  );

const orderNotFound = () => notFound('OrderNotFound', 'Order not found.');
const offerNotFound = () => notFound('NotFound', 'Offer not found.');

/** The order, or 404 for an unknown id and for a caller with no part in it. */
export const visibleOrder = (s: OrderState, actor: Actor, notFoundError: () => DomainError = orderNotFound): Order => {
  if (!s || partyOfOrder(s, actor) === null) throw notFoundError();
  return s;
};

/** Routes for the assigned driver: other drivers who bid on the order get 403. */
export const asAssignedDriver = (s: OrderState, actor: Actor): { order: Order; driverId: number } => {
  const order = visibleOrder(s, actor);
  if (partyOfOrder(order, actor) !== 'DRIVER') throw forbidden('Forbidden', 'You are not the driver of this order.');
  return { order, driverId: actor.driverId! };
};

/** The client's own order; anyone else, admins included, gets 404. */
export const asOwner = (s: OrderState, actor: Actor): Order => {
  const order = visibleOrder(s, actor);
  if (order.clientId !== actor.id || actor.role !== 'CLIENT') throw orderNotFound();
  return order;
};

/** A client who does not own the order sees neither it nor its offers. */
export const asOwnerOfOffer = (s: OrderState, actor: Actor, offerId: number): Order => {
  if (!s || s.clientId !== actor.id || !s.offers[offerId]) throw offerNotFound();
  return s;
};
