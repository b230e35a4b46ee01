import { notFound } from '../../domain/errors.js';
import type { ApiContext } from '../apiContext.js';
import { ordersWithParties, type OrderWithParties } from '../../projections/orders/orderQueries.js';
import type { OrderViewRow } from '../../projections/orders/orderTables.js';
import { partyOf, type Party } from '../../domain/order/access.js';
import type { Actor } from '../auth.js';
import { assertOrderInScope } from '../admin/cityScope.js';
import type { OrderBundle } from './views.js';

/** Reads an order and everything its views need, for one order or a page of them, in one statement. */
export const loadBundles = async (ctx: ApiContext, rows: OrderViewRow[]): Promise<OrderBundle[]> =>
  (
    await ordersWithParties(
      ctx.db,
      rows.map((r) => r.id),
      ctx.clock.now(),
    )
  ).map(toBundle);

export const loadBundle = async (ctx: ApiContext, orderId: number): Promise<OrderBundle | null> =>
  (await ordersWithParties(ctx.db, [orderId], ctx.clock.now())).map(toBundle)[0] ?? null;

const toBundle = (o: OrderWithParties): OrderBundle => ({
  row: o.row,
  offers: o.offers,
  drivers: new Map(o.drivers.map((d) => [d.driverId, d])),
  busyDriverIds: new Set(o.busyDriverIds),
  client: o.client,
});

export const partyOfBundle = (b: OrderBundle, actor: Actor): Party =>
  partyOf({ clientId: b.row.client_id, driverId: b.row.driver_id, bidderIds: b.offers.map((o) => o.driver_id) }, actor);

/** The order for a caller who has a part in it; an unknown order and a stranger's get the same 404. */
export const bundleForParty = async (
  ctx: ApiContext,
  orderId: number,
  actor: Actor,
  notFoundError = () => notFound('OrderNotFound', 'Order not found.'),
) => {
  const b = await loadBundle(ctx, orderId);
  if (!b) throw notFoundError();
  const party = partyOfBundle(b, actor);
  if (party === null) throw notFoundError();
  if (party === 'ADMIN') await assertOrderInScope(ctx, actor, orderId);
  return { bundle: b, party };
};
