import { boundingBox, distanceKm } from '../../domain/geo.js';
import type { OrderStatus } from '../../domain/order/events.js';
import type { MilestoneDelivery } from '../../domain/promotion/milestoneCounting.js';
import { sql } from 'kysely';
import { ACTIVE, BIDDING, DRIVER_ASSIGNED } from '../../domain/order/rules.js';
import type { Db } from '../../infra/db/database.js';
import { driversFromJson, driversAsJson, type DriverRecord } from '../drivers/driverQueries.js';
import type { OrderOfferRow, OrderViewRow } from './orderTables.js';
import { newestFirstPage } from '../../infra/db/keyset.js';

/** An order's row and everything its answers read beside it (api/orders/views.ts). */
export interface OrderWithParties {
  row: OrderViewRow;
  /** Oldest first. */
  offers: OrderOfferRow[];
  client: { id: number; name: string | null; phone: string } | null;
  /** The drivers named by the order and its offers. */
  drivers: DriverRecord[];
  /** Drivers with a pending offer here who hold another active order. */
  busyDriverIds: number[];
}

type OfferJson = Omit<OrderOfferRow, 'created_at' | 'updated_at' | 'expires_at'> &
  Record<'created_at' | 'updated_at' | 'expires_at', string>;

/**
 * Orders with their offers, client, drivers and busy bidders in one statement, in the order of `orderIds`
 * (unknown ids are left out): an order write's answer is a single round trip.
 */
export const ordersWithParties = async (db: Db, orderIds: number[], today: Date): Promise<OrderWithParties[]> => {
  if (orderIds.length === 0) return [];
  const { rows } = await sql<
    OrderViewRow & {
      p_offers: OfferJson[];
      p_client: OrderWithParties['client'];
      p_drivers: unknown[];
      p_busy: number[];
    }
  >`
    SELECT ov.*,
      coalesce((SELECT json_agg(o ORDER BY o.created_at, o.id) FROM order_offers o
        WHERE o.order_id = ov.id), '[]') AS p_offers,
      (SELECT json_build_object('id', u.id, 'name', u.name, 'phone', u.phone) FROM users u
        WHERE u.id = ov.client_id) AS p_client,
      ${driversAsJson(
        db,
        today,
        // One array, so the drivers' primary key answers it (an OR of the two would scan drivers).
        sql<boolean>`d.driver_id = ANY(ARRAY(SELECT o.driver_id FROM order_offers o WHERE o.order_id = ov.id)
          || ov.driver_id)`,
      )} AS p_drivers,
      coalesce((SELECT json_agg(DISTINCT b.driver_id) FROM order_offers o JOIN order_views b
        ON b.driver_id = o.driver_id
        WHERE o.order_id = ov.id AND o.status = 'PENDING' AND b.id <> ov.id
        AND b.status IN (${sql.join(DRIVER_ASSIGNED)})), '[]') AS p_busy
    FROM order_views ov WHERE ${
      // One order (every write's answer) by its key: a plan PostgreSQL keeps, where `= ANY` of one id was planned
      // again on every call.
      orderIds.length === 1 ? sql`ov.id = ${orderIds[0]}` : sql`ov.id = ANY(${orderIds}::bigint[])`
    }`.execute(db);
  const byId = new Map(
    rows.map(({ p_offers, p_client, p_drivers, p_busy, ...row }) => [
      row.id,
      {
        row: row as OrderViewRow,
        offers: p_offers.map((o) => ({
          ...o,
          created_at: new Date(o.created_at),
          updated_at: new Date(o.updated_at),
          expires_at: new Date(o.expires_at),
        })),
        client: p_client,
        drivers: driversFromJson(p_drivers as Parameters<typeof driversFromJson>[0]),
        busyDriverIds: p_busy,
      },
    ]),
  );
  return orderIds.flatMap((id) => byId.get(id) ?? []);
};

export const findOrderRow = async (db: Db, orderId: number): Promise<OrderViewRow | null> =>
  (await db.selectFrom('order_views').selectAll().where('id', '=', orderId).executeTakeFirst()) ?? null;

export const findOfferRow = async (db: Db, offerId: number): Promise<OrderOfferRow | null> =>
  (await db.selectFrom('order_offers').selectAll().where('id', '=', offerId).executeTakeFirst()) ?? null;

export const activeOrderOfClient = async (db: Db, clientId: number): Promise<OrderViewRow | null> =>
  (await db
    .selectFrom('order_views')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('status', 'in', ACTIVE)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst()) ?? null;

export const activeOrderOfDriver = async (db: Db, driverId: number): Promise<OrderViewRow | null> =>
  (await db
    .selectFrom('order_views')
    .selectAll()
    .where('driver_id', '=', driverId)
    .where('status', 'in', DRIVER_ASSIGNED)
    .orderBy('accepted_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst()) ?? null;

export const recentOrdersOfClient = async (db: Db, clientId: number, limit: number): Promise<OrderViewRow[]> =>
  db
    .selectFrom('order_views')
    .selectAll()
    .where('client_id', '=', clientId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

export interface OrderHistoryFilter {
  status?: OrderStatus;
  /** Inclusive calendar days (UTC). */
  dateFrom?: string;
  dateTo?: string;
  limit: number;
  after?: { at: Date; id: number };
}

/** Newest first, keyset on (created_at, id); one row more than the limit tells whether there is more. */
export const orderHistoryOfClient = async (
  db: Db,
  clientId: number,
  f: OrderHistoryFilter,
): Promise<{ rows: OrderViewRow[]; hasMore: boolean }> => {
  let q = db.selectFrom('order_views').selectAll().where('client_id', '=', clientId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.dateFrom) q = q.where('created_at', '>=', new Date(`${f.dateFrom}T00:00:00Z`));
  if (f.dateTo) q = q.where('created_at', '<', new Date(new Date(`${f.dateTo}T00:00:00Z`).getTime() + 86_400_000));
  return newestFirstPage(q, ['created_at', 'id'], f.after && [f.after.at, f.after.id], f.limit);
};

/** Orders open for bids within radiusKm of a point, nearest first. */
/** Whether a driver standing at `near` may bid on the order: open to bids, not past its expiry, within the radius. */
export const isBiddableNear = (
  row: OrderViewRow,
  near: { latitude: number; longitude: number; radiusKm: number; now: Date },
): boolean => BIDDING.includes(row.status) && row.expires_at > near.now && distanceKm(near, row) <= near.radiusKm;

export const biddableOrdersNear = async (
  db: Db,
  near: { latitude: number; longitude: number; radiusKm: number; now: Date; limit: number },
): Promise<{ row: OrderViewRow; distanceKm: number }[]> => {
  const box = boundingBox(near, near.radiusKm);
  const rows = await db
    .selectFrom('order_views')
    .selectAll()
    .where('status', 'in', BIDDING)
    .where('expires_at', '>', near.now)
    .where('latitude', '>=', box.minLatitude)
    .where('latitude', '<=', box.maxLatitude)
    .where('longitude', '>=', box.minLongitude)
    .where('longitude', '<=', box.maxLongitude)
    .execute();
  return rows
    .filter((row) => isBiddableNear(row, near))
    .map((row) => ({ row, distanceKm: distanceKm(near, row) }))
    .sort((a, b) => a.distanceKm - b.distanceKm || b.row.id - a.row.id)
    .slice(0, near.limit);
};

/** What the expiry timers must look at: bidding past expires_at, payment windows past, offers past their TTL. */
export const dueTimers = async (db: Db, now: Date, limit: number) => {
  const orders = await db
    .selectFrom('order_views')
    .select('id')
    .where((eb) =>
      eb.or([
        eb.and([eb('status', 'in', BIDDING), eb('expires_at', '<=', now)]),
        eb.and([
          eb('status', '=', 'WAITING_FOR_PAYMENT'),
          eb('payment_expires_at', '<=', now),
          eb('reported_payment_id', 'is', null),
        ]),
      ]),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
  const offers = await db
    .selectFrom('order_offers')
    .select(['id', 'order_id'])
    .where('status', '=', 'PENDING')
    .where('expires_at', '<=', now)
    .orderBy('id')
    .limit(limit)
    .execute();
  return { orderIds: orders.map((o) => o.id), offers: offers.map((o) => ({ offerId: o.id, orderId: o.order_id })) };
};

/** What a settlement receipt's ORDER line shows of each order: its agreed price, commission and delivery. */
export interface OrderFigures {
  priceCents: number;
  commissionCents: number;
  deliveredAt: string | null;
}

export const orderFiguresOf = async (db: Db, orderIds: readonly number[]): Promise<Map<number, OrderFigures>> => {
  if (orderIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('order_views')
    .select(['id', 'base_price_cents', 'platform_revenue_cents', 'delivered_at'])
    .where('id', 'in', [...new Set(orderIds)])
    .execute();
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        priceCents: Number(r.base_price_cents),
        commissionCents: Number(r.platform_revenue_cents),
        deliveredAt: r.delivered_at ? new Date(r.delivered_at).toISOString() : null,
      },
    ]),
  );
};

export interface DeliveryFilter {
  who: { clientId: number } | { driverId: number };
  /** Delivered at or before. */
  upTo: Date;
  /** Delivered at or after, when set. */
  from: Date | null;
  /** Only drivers of this city, when set. */
  cityId: number | null;
}

/** What the milestone rule (domain/promotion/milestoneCounting.ts) needs of a delivery: its type, not a twin. */
export type DeliveryFacts = MilestoneDelivery;

export const deliveriesOf = async (db: Db, f: DeliveryFilter): Promise<DeliveryFacts[]> => {
  let q = db
    .selectFrom('order_views as o')
    .select(['o.id', 'o.client_id', 'o.driver_id', 'o.actual_liters', 'o.client_pays_cents', 'o.delivered_at'])
    .where('o.status', '=', 'DELIVERED')
    .where('o.delivered_at', '<=', f.upTo);
  q = 'clientId' in f.who ? q.where('o.client_id', '=', f.who.clientId) : q.where('o.driver_id', '=', f.who.driverId);
  if (f.from) q = q.where('o.delivered_at', '>=', f.from);
  if (f.cityId !== null)
    q = q.innerJoin('drivers as d', 'd.driver_id', 'o.driver_id').where('d.city_id', '=', f.cityId);
  return (await q.execute()).map((r) => ({
    orderId: Number(r.id),
    clientId: Number(r.client_id),
    driverId: Number(r.driver_id),
    actualLiters: Number(r.actual_liters ?? 0),
    clientPaysCents: Number(r.client_pays_cents),
    deliveredAt: new Date(r.delivered_at!),
  }));
};
