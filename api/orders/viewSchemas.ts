import { z } from 'zod';
import { orNull } from '../openapi.js';
import { OFFER_STATUSES, ORDER_STATUSES } from '../../domain/order/events.js';
import { BREAKDOWN_CODES, BREAKDOWN_TYPES } from '../../domain/pricing.js';

/**
 * The response schemas of the order views (api/orders/views.ts), for the OpenAPI document: one per
 * role view, so a generated client knows which money families each role receives.
 */

const ts = z.string().openapi({ format: 'date-time' });
const nullableTs = ts.nullable();
const money = <N extends string>(name: N) =>
  ({ [`${name}_cents`]: z.number().int(), [`${name}_usd`]: z.number() }) as Record<
    `${N}_cents` | `${N}_usd`,
    z.ZodNumber
  >;

const usd = <N extends string>(...names: N[]) =>
  Object.fromEntries(names.map((n) => [`${n}_usd`, z.number()])) as Record<`${N}_usd`, z.ZodNumber>;

export const OrderStatus = z.enum(ORDER_STATUSES);

export const BreakdownLine = z.object({
  code: z.enum(BREAKDOWN_CODES),
  type: z.enum(BREAKDOWN_TYPES),
  amount_cents: z.number().int(),
  amount_usd: z.number(),
  applied_fee_prc: z.number().nullable(),
});

const Billing = z
  .object({
    entity_type: z.string(),
    id_number: z.string(),
    name: z.string(),
    address: z.string().nullable(),
    phone: z.string().nullable(),
  })
  .nullable();

export const PublicDriver = z
  .object({
    id: z.number().int(),
    name: z.string().nullable(),
    phone: z.string().nullable().optional().openapi({ description: 'Only for the driver assigned to the order' }),
    avg_rating: z.number(),
    ratings_count: z.number().int(),
    completed_orders: z.number().int(),
    is_certified: z.boolean(),
    vehicle: z.object({ plate: z.string(), capacity_liters: z.number().int().nullable() }).nullable(),
  })
  .openapi('PublicDriver');

const OrderClient = z.object({ id: z.number().int(), name: z.string().nullable(), phone: z.string() });

const common = {
  id: z.number().int(),
  status: OrderStatus,
  latitude: z.number(),
  longitude: z.number(),
  address: z.string(),
  address_reference: z.string().nullable(),
  liters_requested: z.number().int(),
  water_type: z.string(),
  payment_method: z.string(),
  payment_form_id: z.number().int().nullable(),
  notes: z.string().nullable(),
  access_instructions: z.string().nullable(),
  surplus_listing_id: z.number().int().nullable(),
  created_at: ts,
  updated_at: ts,
  expires_at: nullableTs,
  payment_expires_at: nullableTs,
  accepted_at: nullableTs,
  paid_at: nullableTs,
  started_at: nullableTs,
  arrived_at: nullableTs,
  delivered_at: nullableTs,
  actual_liters: z.number().int().nullable(),
  cancelled_at: nullableTs,
  cancellation: z
    .object({ by_role: z.string().nullable(), reason_code: z.string().nullable(), reason: z.string().nullable() })
    .nullable(),
  expired_at: nullableTs,
};

const offerCore = {
  id: z.number().int(),
  order_id: z.number().int(),
  driver_id: z.number().int(),
  ...money('offer_price'),
  estimated_minutes: z.number().int().nullable(),
  available_liters: z.number().int().nullable(),
  status: z.enum(OFFER_STATUSES),
  over_capacity: z.boolean(),
  expires_at: nullableTs,
  created_at: ts,
  updated_at: ts,
};

export const DriverOffer = z
  .object({
    ...offerCore,
    ...money('driver_gross'),
    driver_latitude: z.number().nullable(),
    driver_longitude: z.number().nullable(),
  })
  .openapi('DriverOffer');

const ClientOffer = z.object({
  ...offerCore,
  distance_km: z.number().nullable(),
  eta_minutes: z.number().int().nullable(),
  driver_busy: z.boolean(),
  driver: PublicDriver,
});

export const ClientOrder = z
  .object({
    ...common,
    ...money('base_price'),
    ...money('client_solidary'),
    ...money('client_pays'),
    ...money('promo_credit'),
    ...money('client_charged'),
    is_fully_promoted: z.boolean(),
    delivery_pin: z.string().optional().openapi({ description: 'Once paid: CONFIRMED, IN_PROGRESS, ARRIVED' }),
    billing: Billing,
    driver: orNull(PublicDriver),
    offers: z.array(ClientOffer),
    breakdown: z.array(BreakdownLine),
  })
  .openapi('ClientOrder');

const cashOnly = (s: z.ZodType) => s.optional().openapi({ description: 'Cash orders only (what to collect)' });

export const DriverOrder = z
  .object({
    ...common,
    ...money('base_price'),
    ...money('platform_revenue'),
    ...money('driver_gross'),
    ...money('driver_solidary'),
    ...money('driver_receives'),
    client_pays_cents: cashOnly(z.number().int()),
    client_pays_usd: cashOnly(z.number()),
    promo_credit_cents: cashOnly(z.number().int()),
    promo_credit_usd: cashOnly(z.number()),
    client_charged_cents: cashOnly(z.number().int()),
    client_charged_usd: cashOnly(z.number()),
    is_fully_promoted: cashOnly(z.boolean()),
    client: OrderClient.optional().openapi({ description: 'Only for the assigned driver' }),
    distance_km: z.number().optional(),
    my_offer: orNull(DriverOffer),
    breakdown: z.array(BreakdownLine),
  })
  .openapi('DriverOrder');

export const AdminOrder = z
  .object({
    ...common,
    client_id: z.number().int(),
    client: OrderClient.nullable(),
    driver_id: z.number().int().nullable(),
    accepted_offer_id: z.number().int().nullable(),
    ...money('base_price'),
    ...money('driver_gross'),
    ...money('platform_revenue'),
    ...money('client_solidary'),
    ...money('driver_solidary'),
    ...money('platform_solidary'),
    ...money('solidary_fund'),
    ...money('client_pays'),
    ...money('driver_receives'),
    ...money('promo_credit'),
    ...money('client_charged'),
    ...money('refund_due'),
    is_fully_promoted: z.boolean(),
    is_valid_promotion: z.boolean().nullable(),
    official_rate_cents: z.number().int().nullable(),
    reported_payment_id: z.number().int().nullable(),
    paid_payment_id: z.number().int().nullable(),
    failed_pin_attempts: z.number().int(),
    pin_locked_until: nullableTs,
    billing: Billing,
    driver: orNull(PublicDriver),
    driver_location: z
      .object({ latitude: z.number().nullable(), longitude: z.number().nullable(), at: nullableTs })
      .nullable(),
    offers: z.array(DriverOffer.extend({ driver_busy: z.boolean() })),
    breakdown: z.array(BreakdownLine),
  })
  .openapi('AdminOrder');

/** An order as the caller's role sees it (viewFor). */
export const OrderForRole = z.union([ClientOrder, DriverOrder, AdminOrder]).openapi('OrderForRole');

export const OrderHistoryItem = z.object({
  id: z.number().int(),
  status: OrderStatus,
  liters_requested: z.number().int(),
  water_type: z.string(),
  address: z.string(),
  ...money('client_pays'),
  ...money('promo_credit'),
  ...money('client_charged'),
  payment_method: z.string(),
  driver: z.object({ id: z.number().int(), name: z.string().nullable() }).nullable(),
  expires_at: nullableTs,
  created_at: ts,
  delivered_at: nullableTs,
});

export const Receipt = z.object({
  order_id: z.number().int(),
  status: OrderStatus,
  delivered_at: nullableTs,
  liters_requested: z.number().int(),
  actual_liters: z.number().int().nullable(),
  water_type: z.string(),
  payment_method: z.string(),
  is_fully_promoted: z.boolean(),
  breakdown: z.object({
    ...usd(
      'base_price',
      'client_solidary',
      'client_pays',
      'promo_credit',
      'client_charged',
      'platform_commission',
      'driver_gross',
      'driver_solidary',
      'driver_receives',
      'solidary_fund',
    ),
    is_fully_promoted: z.boolean(),
  }),
  driver: z
    .object({
      id: z.number().int(),
      name: z.string().nullable(),
      phone: z.string().nullable(),
      vehicle: z.object({ plate: z.string().nullable(), capacity_liters: z.number().int().nullable() }),
    })
    .nullable(),
  rating: z
    .object({ score: z.number().int(), comment: z.string().nullable(), tags: z.array(z.string()), created_at: ts })
    .nullable(),
});
