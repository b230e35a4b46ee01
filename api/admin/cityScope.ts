import { notFound } from '../../domain/errors.js';
import { orderStream } from '../../domain/order/events.js';
import { paymentStream } from '../../domain/payment/events.js';
import type { ApiContext } from '../apiContext.js';
import type { CityScope } from '../../projections/customers/customerQueries.js';
import type { Actor } from '../auth.js';
import { adminSeesAllCities } from '../../stores/identity/identityQueries.js';

/**
 * The cities whose data an admin may read (customers, reports). An all-cities admin sees everything,
 * including rows that carry no city (orders recorded before cities had centres, drivers without a profile).
 */
export const cityScopeOf = async (ctx: ApiContext, actor: Actor): Promise<CityScope> => {
  return (await adminSeesAllCities(ctx.db, actor.id)) ? { all: true } : { all: false, cityIds: actor.cityIds ?? [] };
};

/**
 * An order's reads by an admin are scoped like customers and reports: an admin without the order's city (the
 * city its OrderCreated recorded) gets the same 404 OrderNotFound as for an unknown order; an order recorded
 * without a city is for all-cities admins only.
 */
export const assertOrderInScope = async (ctx: ApiContext, actor: Actor, orderId: number): Promise<void> => {
  if (!(await orderInScope(ctx, actor, orderId))) throw notFound('OrderNotFound', 'Order not found.');
};

const orderInScope = async (ctx: ApiContext, actor: Actor, orderId: number): Promise<boolean> => {
  if (actor.role !== 'ADMIN') return true;
  const scope = await cityScopeOf(ctx, actor);
  if (scope.all) return true;
  const [created] = await ctx.store.readStream(orderStream(orderId));
  const cityId = (created?.data as { cityId?: number | null } | undefined)?.cityId ?? null;
  return cityId !== null && scope.cityIds.includes(cityId);
};

/**
 * A payment's review by an admin (approve, reject) is scoped by its order's city: out of scope it is the
 * 404 NotFound of an unknown payment. A payment that does not exist is left to the command's own 404.
 */
export const assertPaymentInScope = async (ctx: ApiContext, actor: Actor, paymentId: number): Promise<void> => {
  if ((await paymentInScope(ctx, actor, paymentId)) === false) throw notFound('NotFound', 'Payment not found.');
};

/** Whether the payment's order is in the admin's cities; null when there is no such payment. */
export const paymentInScope = async (ctx: ApiContext, actor: Actor, paymentId: number): Promise<boolean | null> => {
  const [requested] = await ctx.store.readStream(paymentStream(paymentId));
  const orderId = (requested?.data as { orderId?: number } | undefined)?.orderId;
  return orderId === undefined ? null : orderInScope(ctx, actor, orderId);
};
