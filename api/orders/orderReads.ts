import { notFound } from '../../domain/errors.js';
import type { AppContext } from '../../infra/context.js';
import { findDriver, type DriverRecord } from '../../projections/drivers/driverQueries.js';
import { busyDrivers, findOrderRow, offersOfOrders } from '../../projections/orders/orderQueries.js';
import type { OrderViewRow } from '../../projections/orders/orderTables.js';
import { partyOf, type Party } from '../../domain/order/access.js';
import type { Actor } from '../auth.js';
import type { OrderBundle } from './views.js';

/** Reads an order and everything its views need, for one order or a page of them. */
export const loadBundles = async (ctx: AppContext, rows: OrderViewRow[]): Promise<OrderBundle[]> => {
  if (rows.length === 0) return [];
  const offers = await offersOfOrders(ctx.db, rows.map((r) => r.id));
  const driverIds = new Set<number>();
  for (const r of rows) if (r.driver_id !== null) driverIds.add(r.driver_id);
  for (const o of offers) driverIds.add(o.driver_id);
  const today = ctx.clock.now();
  const drivers = new Map<number, DriverRecord>();
  for (const id of driverIds) {
    const d = await findDriver(ctx.db, id, today);
    if (d) drivers.set(id, d);
  }
  const clientIds = [...new Set(rows.map((r) => r.client_id))];
  const clients = new Map(
    (await ctx.db.selectFrom('users').select(['id', 'name', 'phone']).where('id', 'in', clientIds).execute()).map((u) => [u.id, u]),
  );
  const bundles: OrderBundle[] = [];
  for (const row of rows) {
    const own = offers.filter((o) => o.order_id === row.id);
    const pendingDrivers = [...new Set(own.filter((o) => o.status === 'PENDING').map((o) => o.driver_id))];
    bundles.push({
      row,
      offers: own,
      drivers,
      busyDriverIds: await busyDrivers(ctx.db, pendingDrivers, row.id),
      client: clients.get(row.client_id) ?? null,
    });
  }
  return bundles;
};

export const loadBundle = async (ctx: AppContext, orderId: number): Promise<OrderBundle | null> => {
  const row = await findOrderRow(ctx.db, orderId);
  return row ? (await loadBundles(ctx, [row]))[0] : null;
};

export const partyOfBundle = (b: OrderBundle, actor: Actor): Party =>
  partyOf({ clientId: b.row.client_id, driverId: b.row.driver_id, bidderIds: b.offers.map((o) => o.driver_id) }, actor);

/** The order for a caller who has a part in it; an unknown order and a stranger's get the same 404. */
export const bundleForParty = async (ctx: AppContext, orderId: number, actor: Actor, notFoundError = () => notFound('OrderNotFound', 'Order not found.')) => {
  const b = await loadBundle(ctx, orderId);
  if (!b) throw notFoundError();
  const party = partyOfBundle(b, actor);
  if (party === null) throw notFoundError();
  return { bundle: b, party };
};

