import { sql, type Kysely, type Migration } from 'kysely';
import type { BillingSnapshot, OfferStatus, OrderStatus } from '../../domain/order/events.js';
import type { BreakdownLine } from '../../domain/pricing.js';

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
      await sql`CREATE INDEX order_views_bidding_geo ON order_views (latitude, longitude)
        WHERE status IN ('BROADCASTING', 'COUNTER_OFFERED')`.execute(db);
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
