import { sql, type Kysely, type Migration } from 'kysely';
import { dailyRollupMigrations } from './dailyRollup.js';

/**
 * The report read models: one row per order with every figure the orders,
 * cancellations and intents reports show, its offers, one row per driver and one per recorded driver
 * document. The daily operational and performance reports and the orders and intents list totals add
 * up report_orders, summed per day in report_daily (dailyRollup.ts). Money is integer cents; minutes are
 * rounded to one decimal when written. Names (client, driver, city) are joined at query time from their
 * own homes, so a rename never leaves a stale copy here.
 */
export interface ReportOrderRow {
  id: number;
  city_id: number | null;
  client_id: number;
  driver_id: number | null;
  status: string;
  origin: 'app' | 'remate';
  address: string;
  water_type: string;
  payment_method: string;
  payment_status: 'confirmed' | 'pending' | 'failed';
  liters_requested: number;
  liters_delivered: number | null;
  liters_diff: number | null;
  /** The client's published price; final_price_cents is the agreed one (null before acceptance). */
  base_price_cents: number;
  final_price_cents: number | null;
  driver_gross_cents: number;
  platform_revenue_cents: number;
  driver_solidary_cents: number;
  solidary_fund_cents: number;
  driver_receives_cents: number;
  client_pays_cents: number;
  promo_credit_cents: number;
  has_counter_offer: boolean;
  offers_count: number;
  best_offer_cents: number | null;
  offers_at_base_price: number;
  had_accepted_offer: boolean;
  rating: number | null;
  incidents: number;
  created_at: Date;
  accepted_at: Date | null;
  delivered_at: Date | null;
  acceptance_minutes: number | null;
  delivery_minutes: number | null;
  /** Cancellation or expiry. */
  ended_at: Date | null;
  minutes_to_outcome: number | null;
  cancelled_by_role: 'CLIENT' | 'DRIVER' | 'ADMIN' | 'SYSTEM' | null;
  cancelled_by_id: number | null;
  status_at_cancel: string | null;
  cancel_reason_code: string | null;
  cancel_reason: string | null;
  charged_before: boolean;
  refund_due_cents: number;
  recovered: boolean;
}

export interface ReportOfferRow {
  id: number;
  order_id: number;
  driver_id: number;
  offer_price_cents: number;
  at_base_price: boolean;
  status: string;
  created_at: Date;
}

export interface ReportDriverRow {
  driver_id: number;
  name: string | null;
  /** The national id of the driver's payout account (the wallet's PayoutAccountSet), the last one recorded. */
  id_number: string | null;
  phone: string;
  registered_at: Date;
  status: string;
  kyc_state: string;
  kyc_approved_at: Date | null;
  block_reason: string | null;
  is_online: boolean;
  plate: string | null;
  capacity_liters: number | null;
  city_id: number | null;
  deliveries: number;
  own_cancellations: number;
  liters_delivered: number;
  gross_earnings_cents: number;
  commission_paid_cents: number;
  solidary_cents: number;
  balance_cents: number;
  rating_sum: number;
  ratings_count: number;
  incidents: number;
  last_activity_at: Date;
}

export interface ReportDocumentRow {
  driver_id: number;
  type: string;
  /** YYYY-MM-DD as recorded (text: a calendar date, never shifted by a time zone). */
  expires_at: string | null;
  recorded_at: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    report_orders: ReportOrderRow;
    report_order_offers: ReportOfferRow;
    report_drivers: ReportDriverRow;
    report_driver_documents: ReportDocumentRow;
  }
}

export const reportTableMigrations: Record<string, Migration> = {
  '0300_reports_read_models': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE report_orders (
        id bigint PRIMARY KEY,
        city_id integer,
        client_id bigint NOT NULL,
        driver_id bigint,
        status text NOT NULL,
        origin text NOT NULL,
        address text NOT NULL,
        water_type text NOT NULL,
        payment_method text NOT NULL,
        payment_status text NOT NULL,
        liters_requested integer NOT NULL,
        liters_delivered integer,
        liters_diff integer,
        base_price_cents integer NOT NULL,
        final_price_cents integer,
        driver_gross_cents integer NOT NULL,
        platform_revenue_cents integer NOT NULL,
        driver_solidary_cents integer NOT NULL,
        solidary_fund_cents integer NOT NULL,
        driver_receives_cents integer NOT NULL,
        client_pays_cents integer NOT NULL,
        promo_credit_cents integer NOT NULL,
        has_counter_offer boolean NOT NULL DEFAULT false,
        offers_count integer NOT NULL DEFAULT 0,
        best_offer_cents integer,
        offers_at_base_price integer NOT NULL DEFAULT 0,
        had_accepted_offer boolean NOT NULL DEFAULT false,
        rating integer,
        incidents integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        accepted_at timestamptz,
        delivered_at timestamptz,
        acceptance_minutes double precision,
        delivery_minutes double precision,
        ended_at timestamptz,
        minutes_to_outcome double precision,
        cancelled_by_role text,
        cancelled_by_id bigint,
        status_at_cancel text,
        cancel_reason_code text,
        cancel_reason text,
        charged_before boolean NOT NULL DEFAULT false,
        refund_due_cents integer NOT NULL DEFAULT 0,
        recovered boolean NOT NULL DEFAULT false
      )`.execute(db);
      // Every order report filters a creation (or end) window, with or without a city.
      await sql`CREATE INDEX report_orders_created ON report_orders (created_at, id)`.execute(db);
      await sql`CREATE INDEX report_orders_city_created ON report_orders (city_id, created_at, id)`.execute(db);
      await sql`CREATE INDEX report_orders_ended ON report_orders (ended_at, id) WHERE ended_at IS NOT NULL`.execute(
        db,
      );
      await sql`CREATE INDEX report_orders_client ON report_orders (client_id, city_id)`.execute(db);
      await sql`CREATE INDEX report_orders_driver ON report_orders (driver_id, created_at)`.execute(db);
      await sql`CREATE TABLE report_order_offers (
        id bigint PRIMARY KEY,
        order_id bigint NOT NULL,
        driver_id bigint NOT NULL,
        offer_price_cents integer NOT NULL,
        at_base_price boolean NOT NULL,
        status text NOT NULL,
        created_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX report_order_offers_order ON report_order_offers (order_id, id)`.execute(db);
      await sql`CREATE TABLE report_drivers (
        driver_id bigint PRIMARY KEY,
        name text,
        phone text NOT NULL,
        registered_at timestamptz NOT NULL,
        status text NOT NULL,
        kyc_state text NOT NULL,
        kyc_approved_at timestamptz,
        block_reason text,
        is_online boolean NOT NULL DEFAULT false,
        plate text,
        capacity_liters integer,
        city_id integer,
        deliveries integer NOT NULL DEFAULT 0,
        own_cancellations integer NOT NULL DEFAULT 0,
        liters_delivered bigint NOT NULL DEFAULT 0,
        gross_earnings_cents bigint NOT NULL DEFAULT 0,
        commission_paid_cents bigint NOT NULL DEFAULT 0,
        solidary_cents bigint NOT NULL DEFAULT 0,
        balance_cents bigint NOT NULL DEFAULT 0,
        rating_sum integer NOT NULL DEFAULT 0,
        ratings_count integer NOT NULL DEFAULT 0,
        incidents integer NOT NULL DEFAULT 0,
        last_activity_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX report_drivers_city ON report_drivers (city_id)`.execute(db);
      await sql`CREATE TABLE report_driver_documents (
        driver_id bigint NOT NULL,
        type text NOT NULL,
        expires_at text,
        recorded_at timestamptz NOT NULL,
        PRIMARY KEY (driver_id, type)
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE report_driver_documents, report_drivers, report_order_offers, report_orders`.execute(db);
    },
  },
  ...dailyRollupMigrations,
  '0302_report_drivers_id_number': {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE report_drivers ADD COLUMN id_number text`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`ALTER TABLE report_drivers DROP COLUMN id_number`.execute(db);
    },
  },
};
