import { iso, isoOrNull } from '../../domain/time.js';
import type { z } from 'zod';
import { CONFIRMED_ONWARD, DELIVERABLE } from '../../domain/order/rules.js';
import { centsToUsd } from '../../domain/money.js';
import { distanceKm, etaMinutes } from '../../domain/geo.js';
import type { BreakdownCode, BreakdownLine } from '../../domain/pricing.js';
import { isCash } from '../../domain/pricing.js';
import type { DriverRecord } from '../../projections/drivers/driverQueries.js';
import type { OrderOfferRow, OrderViewRow } from '../../projections/orders/orderTables.js';
import type {
  AdminOrder,
  ClientOrder,
  DriverOffer,
  DriverOrder,
  OrderHistoryItem,
  PublicDriver,
  Receipt,
} from './viewSchemas.js';

/**
 * The three role views of an order. Every field family is written out per view, so what a
 * role may not see is simply never copied:
 * - CLIENT omits platform_revenue_*, solidary_fund_*, driver_solidary_*, driver_gross_*, driver_receives_*;
 * - DRIVER omits client_solidary_*, client_pays_*, promo_credit_*, client_charged_*, solidary_fund_*,
 *   delivery_pin and billing, except that a CASH_USD order shows client_pays_*, promo_credit_* and
 *   client_charged_* (what to collect);
 * - ADMIN shows every money family and billing. The delivery PIN is the client's proof of delivery and
 *   appears only in the CLIENT view, only once paid (CONFIRMED, IN_PROGRESS, ARRIVED).
 */
export interface OrderBundle {
  row: OrderViewRow;
  /** Every offer of the order, oldest first. */
  offers: OrderOfferRow[];
  /** The drivers named by the order and its offers. */
  drivers: Map<number, DriverRecord>;
  /** Drivers (among the offers') that hold another active order. */
  busyDriverIds: Set<number>;
  client: { id: number; name: string | null; phone: string } | null;
}

/**
 * Each mapper returns its response schema's type (viewSchemas.ts), so a field added, dropped or retyped on
 * one side and not the other fails the build.
 */
const money = <N extends string>(name: N, cents: number) =>
  ({ [`${name}_cents`]: cents, [`${name}_usd`]: centsToUsd(cents) }) as Record<`${N}_cents` | `${N}_usd`, number>;

const lines = (row: OrderViewRow, codes: readonly BreakdownCode[]) =>
  (row.breakdown as BreakdownLine[])
    .filter((l) => codes.includes(l.code))
    .map((l) => ({
      code: l.code,
      type: l.type,
      amount_cents: l.amount_cents,
      amount_usd: centsToUsd(l.amount_cents),
      applied_fee_prc: l.applied_fee_prc,
    }));

const billingOf = (row: OrderViewRow) =>
  row.billing
    ? {
        entity_type: row.billing.entityType,
        id_number: row.billing.idNumber,
        name: row.billing.name,
        address: row.billing.address,
        phone: row.billing.phone,
      }
    : null;

/** A driver as customers may see them: no position, no phone until assigned. */
export const publicDriver = (
  d: DriverRecord | undefined,
  id: number,
  withPhone = false,
): z.infer<typeof PublicDriver> =>
  d
    ? {
        id: d.driverId,
        name: d.name,
        ...(withPhone ? { phone: d.phone } : {}),
        avg_rating: d.avgRating,
        ratings_count: d.ratingsCount,
        completed_orders: d.completedOrders,
        is_certified: d.isCertified,
        vehicle: d.plate ? { plate: d.plate, capacity_liters: d.capacityLiters } : null,
      }
    : {
        id,
        name: null,
        ...(withPhone ? { phone: null } : {}),
        avg_rating: 0,
        ratings_count: 0,
        completed_orders: 0,
        is_certified: false,
        vehicle: null,
      };

const common = (row: OrderViewRow) => ({
  id: row.id,
  status: row.status,
  latitude: row.latitude,
  longitude: row.longitude,
  address: row.address,
  address_reference: row.address_reference,
  liters_requested: row.liters_requested,
  water_type: row.water_type,
  payment_method: row.payment_method,
  payment_form_id: row.payment_form_id,
  notes: row.notes,
  access_instructions: row.access_instructions,
  surplus_listing_id: row.surplus_listing_id,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
  expires_at: isoOrNull(row.expires_at),
  payment_expires_at: isoOrNull(row.payment_expires_at),
  accepted_at: isoOrNull(row.accepted_at),
  paid_at: isoOrNull(row.paid_at),
  started_at: isoOrNull(row.started_at),
  arrived_at: isoOrNull(row.arrived_at),
  delivered_at: isoOrNull(row.delivered_at),
  actual_liters: row.actual_liters,
  cancelled_at: isoOrNull(row.cancelled_at),
  cancellation: row.cancelled_at
    ? { by_role: row.cancelled_by_role, reason_code: row.cancel_reason_code, reason: row.cancel_reason }
    : null,
  expired_at: isoOrNull(row.expired_at),
});

const offerCore = (o: OrderOfferRow) => ({
  id: o.id,
  order_id: o.order_id,
  driver_id: o.driver_id,
  offer_price_cents: o.offer_price_cents,
  offer_price_usd: centsToUsd(o.offer_price_cents),
  estimated_minutes: o.estimated_minutes,
  available_liters: o.available_liters,
  status: o.status,
  over_capacity: o.over_capacity,
  expires_at: isoOrNull(o.expires_at),
  created_at: iso(o.created_at),
  updated_at: iso(o.updated_at),
});

/** An offer as its driver sees it: with the driver's gross and the bid-time position. */
export const toDriverOfferView = (o: OrderOfferRow): z.infer<typeof DriverOffer> => ({
  ...offerCore(o),
  driver_gross_cents: o.driver_gross_cents,
  driver_gross_usd: centsToUsd(o.driver_gross_cents),
  driver_latitude: o.driver_latitude,
  driver_longitude: o.driver_longitude,
});

/** A pending offer as the client sees it: distance and ETA instead of the driver's coordinates. */
const toClientOfferView = (b: OrderBundle, o: OrderOfferRow) => {
  const km =
    o.driver_latitude !== null && o.driver_longitude !== null
      ? distanceKm({ latitude: o.driver_latitude, longitude: o.driver_longitude }, b.row)
      : null;
  return {
    ...offerCore(o),
    distance_km: km === null ? null : Math.round(km * 100) / 100,
    eta_minutes: o.estimated_minutes ?? (km === null ? null : etaMinutes(km)),
    driver_busy: b.busyDriverIds.has(o.driver_id),
    driver: publicDriver(b.drivers.get(o.driver_id), o.driver_id),
  };
};

const assignedDriver = (b: OrderBundle) =>
  b.row.driver_id === null ? null : publicDriver(b.drivers.get(b.row.driver_id), b.row.driver_id, true);

export const toClientView = (b: OrderBundle): z.infer<typeof ClientOrder> => {
  const r = b.row;
  return {
    ...common(r),
    ...money('base_price', r.base_price_cents),
    ...money('client_solidary', r.client_solidary_cents),
    ...money('client_pays', r.client_pays_cents),
    ...money('promo_credit', r.promo_credit_cents),
    ...money('client_charged', r.client_charged_cents),
    is_fully_promoted: r.is_fully_promoted,
    ...(DELIVERABLE.includes(r.status) ? { delivery_pin: r.delivery_pin } : {}),
    billing: billingOf(r),
    driver: assignedDriver(b),
    offers: b.offers.filter((o) => o.status === 'PENDING').map((o) => toClientOfferView(b, o)),
    breakdown: lines(r, ['base_price', 'client_solidary', 'promo_credit']),
  };
};

/**
 * `driverId` is the caller: the assigned driver also sees the client's contact; a bidding driver sees its
 * own latest offer (my_offer) and, with `from`, how far the order is.
 */
export const toDriverView = (
  b: OrderBundle,
  driverId: number,
  from?: { latitude: number; longitude: number } | null,
): z.infer<typeof DriverOrder> => {
  const r = b.row;
  const cash = isCash(r.payment_method);
  const mine = b.offers.filter((o) => o.driver_id === driverId).at(-1);
  const assigned = r.driver_id === driverId;
  return {
    ...common(r),
    // Gate codes and the like are for the driver who will come, once the order is paid (or confirmed cash).
    access_instructions: assigned && CONFIRMED_ONWARD.includes(r.status) ? r.access_instructions : null,
    ...money('base_price', r.base_price_cents),
    ...money('platform_revenue', r.platform_revenue_cents),
    ...money('driver_gross', r.driver_gross_cents),
    ...money('driver_solidary', r.driver_solidary_cents),
    ...money('driver_receives', r.driver_receives_cents),
    ...(cash
      ? {
          ...money('client_pays', r.client_pays_cents),
          ...money('promo_credit', r.promo_credit_cents),
          ...money('client_charged', r.client_charged_cents),
          is_fully_promoted: r.is_fully_promoted,
        }
      : {}),
    ...(assigned && b.client ? { client: b.client } : {}),
    ...(from ? { distance_km: Math.round(distanceKm(from, r) * 100) / 100 } : {}),
    my_offer: mine ? toDriverOfferView(mine) : null,
    breakdown: lines(
      r,
      cash
        ? ['base_price', 'platform_revenue', 'driver_solidary', 'promo_credit']
        : ['base_price', 'platform_revenue', 'driver_solidary'],
    ),
  };
};

export const toAdminView = (b: OrderBundle): z.infer<typeof AdminOrder> => {
  const r = b.row;
  return {
    ...common(r),
    client_id: r.client_id,
    client: b.client,
    driver_id: r.driver_id,
    accepted_offer_id: r.accepted_offer_id,
    ...money('base_price', r.base_price_cents),
    ...money('driver_gross', r.driver_gross_cents),
    ...money('platform_revenue', r.platform_revenue_cents),
    ...money('client_solidary', r.client_solidary_cents),
    ...money('driver_solidary', r.driver_solidary_cents),
    ...money('platform_solidary', r.platform_solidary_cents),
    ...money('solidary_fund', r.solidary_fund_cents),
    ...money('client_pays', r.client_pays_cents),
    ...money('driver_receives', r.driver_receives_cents),
    ...money('promo_credit', r.promo_credit_cents),
    ...money('client_charged', r.client_charged_cents),
    ...money('refund_due', r.refund_due_cents),
    is_fully_promoted: r.is_fully_promoted,
    is_valid_promotion: r.is_valid_promotion,
    official_rate_cents: r.official_rate_cents,
    reported_payment_id: r.reported_payment_id,
    paid_payment_id: r.paid_payment_id,
    failed_pin_attempts: r.failed_pin_attempts,
    pin_locked_until: isoOrNull(r.pin_locked_until),
    billing: billingOf(r),
    driver: assignedDriver(b),
    driver_location: r.driver_location_at
      ? { latitude: r.driver_latitude, longitude: r.driver_longitude, at: isoOrNull(r.driver_location_at) }
      : null,
    offers: b.offers.map((o) => ({ ...toDriverOfferView(o), driver_busy: b.busyDriverIds.has(o.driver_id) })),
    breakdown: lines(r, [
      'base_price',
      'client_solidary',
      'platform_revenue',
      'driver_solidary',
      'platform_solidary',
      'promo_credit',
    ]),
  };
};

/** GET /orders (cursor history) item. */
export const toHistoryItem = (b: OrderBundle): z.infer<typeof OrderHistoryItem> => {
  const r = b.row;
  const d = r.driver_id === null ? undefined : b.drivers.get(r.driver_id);
  return {
    id: r.id,
    status: r.status,
    liters_requested: r.liters_requested,
    water_type: r.water_type,
    address: r.address,
    ...money('client_pays', r.client_pays_cents),
    ...money('promo_credit', r.promo_credit_cents),
    ...money('client_charged', r.client_charged_cents),
    payment_method: r.payment_method,
    driver: r.driver_id === null ? null : { id: r.driver_id, name: d?.name ?? null },
    expires_at: isoOrNull(r.expires_at),
    created_at: iso(r.created_at),
    delivered_at: isoOrNull(r.delivered_at),
  };
};

export interface ReceiptRating {
  score: number;
  comment: string | null;
  tags: string[];
  created_at: string;
}

/** GET /orders/{id}/receipt. */
export const toReceipt = (b: OrderBundle, rating: ReceiptRating | null): z.infer<typeof Receipt> => {
  const r = b.row;
  const d = r.driver_id === null ? undefined : b.drivers.get(r.driver_id);
  return {
    order_id: r.id,
    status: r.status,
    delivered_at: isoOrNull(r.delivered_at),
    liters_requested: r.liters_requested,
    actual_liters: r.actual_liters,
    water_type: r.water_type,
    payment_method: r.payment_method,
    is_fully_promoted: r.is_fully_promoted,
    breakdown: {
      base_price_usd: centsToUsd(r.base_price_cents),
      client_solidary_usd: centsToUsd(r.client_solidary_cents),
      client_pays_usd: centsToUsd(r.client_pays_cents),
      promo_credit_usd: centsToUsd(r.promo_credit_cents),
      client_charged_usd: centsToUsd(r.client_charged_cents),
      is_fully_promoted: r.is_fully_promoted,
      platform_commission_usd: centsToUsd(r.platform_revenue_cents),
      driver_gross_usd: centsToUsd(r.driver_gross_cents),
      driver_solidary_usd: centsToUsd(r.driver_solidary_cents),
      driver_receives_usd: centsToUsd(r.driver_receives_cents),
      solidary_fund_usd: centsToUsd(r.solidary_fund_cents),
    },
    driver:
      r.driver_id === null
        ? null
        : {
            id: r.driver_id,
            name: d?.name ?? null,
            phone: d?.phone ?? null,
            vehicle: { plate: d?.plate ?? null, capacity_liters: d?.capacityLiters ?? null },
          },
    rating,
  };
};
