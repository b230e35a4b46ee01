import { sql, type Kysely, type Migration } from 'kysely';
import type {
  BillingSnapshot,
  DeliveryPinRejectedData,
  DriverArrivedData,
  DriverLocationRecordedData,
  OfferAcceptedData,
  OfferExpiredData,
  OfferPlacedData,
  OfferRejectedData,
  OfferStatus,
  OrderCancelledData,
  OrderCreatedData,
  OrderDeliveredData,
  OrderExpiredData,
  OrderPaidData,
  OrderStatus,
  PaymentMethodChangedData,
  PaymentRejectedData,
  PaymentReportedData,
  TripStartedData,
} from '../../domain/order/events.js';
import type { BreakdownLine, Pricing } from '../../domain/pricing.js';
import type { Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector } from '../projector.js';

/**
 * The orders read model: one row per order with every field the CLIENT, DRIVER and ADMIN views need
 * (api/orders/views.ts filters them), and one row per offer. Money is integer cents.
 */
export interface OrderViewRow {
  id: number;
  client_id: number;
  driver_id: number | null;
  accepted_offer_id: number | null;
  surplus_listing_id: number | null;
  status: OrderStatus;
  latitude: number;
  longitude: number;
  address: string;
  address_reference: string | null;
  liters_requested: number;
  water_type: string;
  payment_method: string;
  payment_form_id: number | null;
  notes: string | null;
  access_instructions: string | null;
  billing: BillingSnapshot | null;
  official_rate_cents: number;
  base_price_cents: number;
  driver_gross_cents: number;
  platform_revenue_cents: number;
  client_solidary_cents: number;
  driver_solidary_cents: number;
  platform_solidary_cents: number;
  client_pays_cents: number;
  driver_receives_cents: number;
  solidary_fund_cents: number;
  promo_credit_cents: number;
  client_charged_cents: number;
  is_fully_promoted: boolean;
  breakdown: BreakdownLine[];
  delivery_pin: string;
  created_at: Date;
  updated_at: Date;
  expires_at: Date;
  payment_expires_at: Date | null;
  accepted_at: Date | null;
  reported_payment_id: number | null;
  paid_payment_id: number | null;
  paid_at: Date | null;
  driver_latitude: number | null;
  driver_longitude: number | null;
  driver_location_at: Date | null;
  started_at: Date | null;
  arrived_at: Date | null;
  arrival_distance_meters: number | null;
  failed_pin_attempts: number;
  pin_locked_until: Date | null;
  delivered_at: Date | null;
  actual_liters: number | null;
  is_valid_promotion: boolean;
  cancelled_at: Date | null;
  cancelled_by_role: string | null;
  cancelled_by_id: number | null;
  cancel_reason_code: string | null;
  cancel_reason: string | null;
  refund_due_cents: number;
  expired_at: Date | null;
}

export interface OrderOfferRow {
  id: number;
  order_id: number;
  driver_id: number;
  offer_price_cents: number;
  driver_gross_cents: number;
  estimated_minutes: number | null;
  available_liters: number;
  over_capacity: boolean;
  status: OfferStatus;
  driver_latitude: number | null;
  driver_longitude: number | null;
  created_at: Date;
  updated_at: Date;
  expires_at: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    order_views: OrderViewRow;
    order_offers: OrderOfferRow;
  }
}

export const orderViewMigrations: Record<string, Migration> = {
  '0300_order_views': {
    async up(db: Kysely<unknown>) {
      // Ids are the spec's integers, handed out by the command side before the first event.
      await sql`CREATE SEQUENCE IF NOT EXISTS order_id_seq`.execute(db);
      await sql`CREATE SEQUENCE IF NOT EXISTS offer_id_seq`.execute(db);
      await sql`CREATE TABLE order_views (
        id bigint PRIMARY KEY,
        client_id bigint NOT NULL,
        driver_id bigint,
        accepted_offer_id bigint,
        surplus_listing_id bigint,
        status text NOT NULL,
        latitude double precision NOT NULL,
        longitude double precision NOT NULL,
        address text NOT NULL,
        address_reference text,
        liters_requested integer NOT NULL,
        water_type text NOT NULL,
        payment_method text NOT NULL,
        payment_form_id bigint,
        notes text,
        access_instructions text,
        billing jsonb,
        official_rate_cents bigint NOT NULL,
        base_price_cents integer NOT NULL,
        driver_gross_cents integer NOT NULL,
        platform_revenue_cents integer NOT NULL,
        client_solidary_cents integer NOT NULL,
        driver_solidary_cents integer NOT NULL,
        platform_solidary_cents integer NOT NULL,
        client_pays_cents integer NOT NULL,
        driver_receives_cents integer NOT NULL,
        solidary_fund_cents integer NOT NULL,
        promo_credit_cents integer NOT NULL,
        client_charged_cents integer NOT NULL,
        is_fully_promoted boolean NOT NULL,
        breakdown jsonb NOT NULL,
        delivery_pin text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        payment_expires_at timestamptz,
        accepted_at timestamptz,
        reported_payment_id bigint,
        paid_payment_id bigint,
        paid_at timestamptz,
        driver_latitude double precision,
        driver_longitude double precision,
        driver_location_at timestamptz,
        started_at timestamptz,
        arrived_at timestamptz,
        arrival_distance_meters integer,
        failed_pin_attempts integer NOT NULL DEFAULT 0,
        pin_locked_until timestamptz,
        delivered_at timestamptz,
        actual_liters integer,
        is_valid_promotion boolean NOT NULL DEFAULT false,
        cancelled_at timestamptz,
        cancelled_by_role text,
        cancelled_by_id bigint,
        cancel_reason_code text,
        cancel_reason text,
        refund_due_cents integer NOT NULL DEFAULT 0,
        expired_at timestamptz
      )`.execute(db);
      await sql`CREATE INDEX order_views_client ON order_views (client_id, created_at DESC, id DESC)`.execute(db);
      await sql`CREATE INDEX order_views_driver ON order_views (driver_id, status)`.execute(db);
      await sql`CREATE INDEX order_views_open ON order_views (status, expires_at)`.execute(db);
      await sql`CREATE INDEX order_views_bidding_geo ON order_views (latitude, longitude) WHERE status IN ('BROADCASTING', 'COUNTER_OFFERED')`.execute(db);
      await sql`CREATE TABLE order_offers (
        id bigint PRIMARY KEY,
        order_id bigint NOT NULL,
        driver_id bigint NOT NULL,
        offer_price_cents integer NOT NULL,
        driver_gross_cents integer NOT NULL,
        estimated_minutes integer,
        available_liters integer NOT NULL,
        over_capacity boolean NOT NULL,
        status text NOT NULL,
        driver_latitude double precision,
        driver_longitude double precision,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX order_offers_order ON order_offers (order_id, status)`.execute(db);
      await sql`CREATE INDEX order_offers_driver ON order_offers (driver_id, status)`.execute(db);
      await sql`CREATE INDEX order_offers_pending ON order_offers (expires_at) WHERE status = 'PENDING'`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE order_offers, order_views`.execute(db);
      await sql`DROP SEQUENCE offer_id_seq`.execute(db);
      await sql`DROP SEQUENCE order_id_seq`.execute(db);
    },
  },
};

const pricingColumns = (p: Pricing) => ({
  base_price_cents: p.basePriceCents,
  driver_gross_cents: p.driverGrossCents,
  platform_revenue_cents: p.platformRevenueCents,
  client_solidary_cents: p.clientSolidaryCents,
  driver_solidary_cents: p.driverSolidaryCents,
  platform_solidary_cents: p.platformSolidaryCents,
  client_pays_cents: p.clientPaysCents,
  driver_receives_cents: p.driverReceivesCents,
  solidary_fund_cents: p.solidaryFundCents,
  promo_credit_cents: p.promoCreditCents,
  client_charged_cents: p.clientChargedCents,
  is_fully_promoted: p.isFullyPromoted,
  breakdown: JSON.stringify(p.breakdown) as unknown as BreakdownLine[],
});

type E<D> = RecordedEvent<string, D>;

const updateOrder = (trx: Trx, orderId: number, at: string, set: Partial<OrderViewRow>) =>
  trx
    .updateTable('order_views')
    .set({ ...set, updated_at: new Date(at) } as never)
    .where('id', '=', orderId)
    .execute();

const setOffer = (trx: Trx, offerId: number, status: OfferStatus, at: string) =>
  trx.updateTable('order_offers').set({ status, updated_at: new Date(at) }).where('id', '=', offerId).execute();

/** Offers still pending when the order leaves bidding close without a verdict (domain/order/order.ts). */
const withdrawPending = (trx: Trx, orderId: number, at: string) =>
  trx
    .updateTable('order_offers')
    .set({ status: 'WITHDRAWN', updated_at: new Date(at) })
    .where('order_id', '=', orderId)
    .where('status', '=', 'PENDING')
    .execute();

const date = (iso: string | null): Date | null => (iso === null ? null : new Date(iso));

export const orderViewsProjector = projector('order_views', {
  tables: ['order_views', 'order_offers'],
  handlers: {
    OrderCreated: async (trx, { data: d }: E<OrderCreatedData>) => {
      await trx
        .insertInto('order_views')
        .values({
          id: d.orderId,
          client_id: d.clientId,
          driver_id: d.driverId,
          accepted_offer_id: null,
          surplus_listing_id: d.surplusListingId,
          status: d.status,
          latitude: d.latitude,
          longitude: d.longitude,
          address: d.address,
          address_reference: d.addressReference,
          liters_requested: d.litersRequested,
          water_type: d.waterType,
          payment_method: d.paymentMethod,
          payment_form_id: d.paymentFormId,
          notes: d.notes,
          access_instructions: d.accessInstructions,
          billing: (d.billing ? JSON.stringify(d.billing) : null) as unknown as BillingSnapshot | null,
          official_rate_cents: d.officialRateCents,
          ...pricingColumns(d.pricing),
          delivery_pin: d.deliveryPin,
          created_at: new Date(d.createdAt),
          updated_at: new Date(d.createdAt),
          expires_at: new Date(d.expiresAt),
          payment_expires_at: date(d.paymentExpiresAt),
          accepted_at: d.driverId === null ? null : new Date(d.createdAt),
          reported_payment_id: null,
          paid_payment_id: null,
          paid_at: null,
          driver_latitude: null,
          driver_longitude: null,
          driver_location_at: null,
          started_at: null,
          arrived_at: null,
          arrival_distance_meters: null,
          failed_pin_attempts: 0,
          pin_locked_until: null,
          delivered_at: null,
          actual_liters: null,
          is_valid_promotion: false,
          cancelled_at: null,
          cancelled_by_role: null,
          cancelled_by_id: null,
          cancel_reason_code: null,
          cancel_reason: null,
          refund_due_cents: 0,
          expired_at: null,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    },
    OfferPlaced: async (trx, { data: d }: E<OfferPlacedData>) => {
      if (d.withdrawnOfferId !== null) await setOffer(trx, d.withdrawnOfferId, 'WITHDRAWN', d.createdAt);
      await trx
        .insertInto('order_offers')
        .values({
          id: d.offerId,
          order_id: d.orderId,
          driver_id: d.driverId,
          offer_price_cents: d.offerPriceCents,
          driver_gross_cents: d.driverGrossCents,
          estimated_minutes: d.estimatedMinutes,
          available_liters: d.availableLiters,
          over_capacity: d.overCapacity,
          status: 'PENDING',
          driver_latitude: d.driverLatitude,
          driver_longitude: d.driverLongitude,
          created_at: new Date(d.createdAt),
          updated_at: new Date(d.createdAt),
          expires_at: new Date(d.expiresAt),
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      await updateOrder(trx, d.orderId, d.createdAt, { status: d.orderStatus });
    },
    OfferAccepted: async (trx, { data: d }: E<OfferAcceptedData>) => {
      await setOffer(trx, d.offerId, 'ACCEPTED', d.acceptedAt);
      await withdrawPending(trx, d.orderId, d.acceptedAt);
      await updateOrder(trx, d.orderId, d.acceptedAt, {
        status: d.status,
        driver_id: d.driverId,
        accepted_offer_id: d.offerId,
        accepted_at: new Date(d.acceptedAt),
        payment_expires_at: date(d.paymentExpiresAt),
        ...pricingColumns(d.pricing),
      });
    },
    OfferRejected: async (trx, { data: d }: E<OfferRejectedData>) => {
      await setOffer(trx, d.offerId, 'REJECTED', d.rejectedAt);
      await updateOrder(trx, d.orderId, d.rejectedAt, { status: d.orderStatus });
    },
    OfferExpired: async (trx, { data: d }: E<OfferExpiredData>) => {
      await setOffer(trx, d.offerId, 'EXPIRED', d.expiredAt);
      await updateOrder(trx, d.orderId, d.expiredAt, { status: d.orderStatus });
    },
    PaymentMethodChanged: (trx, { data: d }: E<PaymentMethodChangedData>) =>
      updateOrder(trx, d.orderId, d.changedAt, {
        status: d.status,
        payment_method: d.paymentMethod,
        payment_form_id: d.paymentFormId,
        ...pricingColumns(d.pricing),
      }),
    PaymentReported: (trx, { data: d }: E<PaymentReportedData>) => updateOrder(trx, d.orderId, d.reportedAt, { reported_payment_id: d.paymentId }),
    PaymentRejected: (trx, { data: d }: E<PaymentRejectedData>) => updateOrder(trx, d.orderId, d.rejectedAt, { reported_payment_id: null }),
    OrderPaid: (trx, { data: d }: E<OrderPaidData>) =>
      updateOrder(trx, d.orderId, d.paidAt, { status: 'CONFIRMED', paid_payment_id: d.paymentId, paid_at: new Date(d.paidAt) }),
    TripStarted: (trx, { data: d }: E<TripStartedData>) => updateOrder(trx, d.orderId, d.startedAt, { status: 'IN_PROGRESS', started_at: new Date(d.startedAt) }),
    DriverLocationRecorded: (trx, { data: d }: E<DriverLocationRecordedData>) =>
      updateOrder(trx, d.orderId, d.recordedAt, {
        driver_latitude: d.latitude,
        driver_longitude: d.longitude,
        driver_location_at: new Date(d.recordedAt),
      }),
    DriverArrived: (trx, { data: d }: E<DriverArrivedData>) =>
      updateOrder(trx, d.orderId, d.arrivedAt, { status: 'ARRIVED', arrived_at: new Date(d.arrivedAt), arrival_distance_meters: d.distanceMeters }),
    DeliveryPinRejected: (trx, { data: d }: E<DeliveryPinRejectedData>) =>
      updateOrder(trx, d.orderId, d.attemptedAt, d.lockedUntil ? { failed_pin_attempts: 0, pin_locked_until: new Date(d.lockedUntil) } : { failed_pin_attempts: d.failedAttempts }),
    OrderDelivered: (trx, { data: d }: E<OrderDeliveredData>) =>
      updateOrder(trx, d.orderId, d.deliveredAt, {
        status: 'DELIVERED',
        delivered_at: new Date(d.deliveredAt),
        actual_liters: d.actualLiters,
        is_valid_promotion: d.isValidPromotion,
      }),
    OrderCancelled: async (trx, { data: d }: E<OrderCancelledData>) => {
      await withdrawPending(trx, d.orderId, d.cancelledAt);
      await updateOrder(trx, d.orderId, d.cancelledAt, {
        status: 'CANCELLED',
        cancelled_at: new Date(d.cancelledAt),
        cancelled_by_role: d.cancelledByRole,
        cancelled_by_id: d.cancelledById,
        cancel_reason_code: d.reasonCode,
        cancel_reason: d.reason,
        refund_due_cents: d.refundDueCents,
      });
    },
    OrderExpired: async (trx, { data: d }: E<OrderExpiredData>) => {
      if (d.releasedOfferId !== null) await setOffer(trx, d.releasedOfferId, 'EXPIRED', d.expiredAt);
      await withdrawPending(trx, d.orderId, d.expiredAt);
      await updateOrder(trx, d.orderId, d.expiredAt, { status: 'EXPIRED', expired_at: new Date(d.expiredAt) });
    },
  },
  publish: (e) => {
    const d = e.data as { orderId?: number; clientId?: number; driverId?: number | null; offerId?: number };
    return [{ subject: `events.order.${e.type}`, data: { orderId: d.orderId, clientId: d.clientId ?? null, driverId: d.driverId ?? null, offerId: d.offerId ?? null } }];
  },
});
