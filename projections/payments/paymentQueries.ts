import { sql, type SqlBool } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import type { CityScope } from '../customers/customerQueries.js';
import type { PaymentRow } from './paymentViews.js';
import type { ReviewOutcome } from './paymentReviews.js';

export type { PaymentRow } from './paymentViews.js';

/** Postgres returns bigint as text: rows leave here with numbers. */
const toRow = (r: PaymentRow): PaymentRow => ({
  ...r,
  id: Number(r.id),
  order_id: Number(r.order_id),
  user_id: Number(r.user_id),
  payment_form_id: r.payment_form_id === null ? null : Number(r.payment_form_id),
  amount_cents: Number(r.amount_cents),
  amount_bs_cents: r.amount_bs_cents === null ? null : Number(r.amount_bs_cents),
  official_rate_cents: r.official_rate_cents === null ? null : Number(r.official_rate_cents),
  platform_revenue_cents: Number(r.platform_revenue_cents),
  solidary_fund_cents: Number(r.solidary_fund_cents),
  reported_values: typeof r.reported_values === 'string' ? JSON.parse(r.reported_values) : r.reported_values,
});

export const findPaymentRow = async (db: Db, paymentId: number): Promise<PaymentRow | null> => {
  const row = await db.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirst();
  return row ? toRow(row) : null;
};

/** The order's payment: its latest attempt. */
export const latestPaymentOfOrder = async (db: Db, orderId: number): Promise<PaymentRow | null> => {
  const row = await db
    .selectFrom('payments')
    .selectAll()
    .where('order_id', '=', orderId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? toRow(row) : null;
};

/** The payment a provider's webhook names by its reference. */
export const paymentIdByProviderRef = async (db: Db, provider: string, providerRef: string): Promise<number | null> => {
  const row = await db
    .selectFrom('payments')
    .select('id')
    .where('provider', '=', provider)
    .where('provider_ref', '=', providerRef)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.id) : null;
};

export const REVIEW_METHODS = ['CASH_USD', 'EXCHANGE_PAY', 'PAYPROV_DI', 'PAYMENT_FORM'] as const;
export type ReviewMethod = (typeof REVIEW_METHODS)[number];

/** A review queue row: the payment with what the reviewer needs of its order and its client. */
export type ReviewRow = PaymentRow & {
  order_status: string | null;
  order_address: string | null;
  order_liters_requested: number | null;
  order_notes: string | null;
  client_name: string | null;
  client_phone: string | null;
};

/** What the reviewer reads of the payment's order and client, beside the payment. */
const orderAndClient = (r: {
  order_status?: string | null;
  order_address?: string | null;
  order_liters_requested?: number | null;
  order_notes?: string | null;
  client_name?: string | null;
  client_phone?: string | null;
}) => ({
  order_status: r.order_status ?? null,
  order_address: r.order_address ?? null,
  order_liters_requested: r.order_liters_requested ?? null,
  order_notes: r.order_notes ?? null,
  client_name: r.client_name ?? null,
  client_phone: r.client_phone ?? null,
});

/**
 * Payments of orders in the admin's cities only (the city the order was created in, as the reports and
 * customers read it); an order the reports do not place is for all-cities admins only.
 */
const inScope = (scope: CityScope) =>
  scope.all
    ? sql<SqlBool>`true`
    : scope.cityIds.length === 0
      ? sql<SqlBool>`false`
      : sql<SqlBool>`EXISTS (SELECT 1 FROM report_orders o
          WHERE o.id = payments.order_id AND o.city_id IN (${sql.join(scope.cityIds)}))`;

/** What an item of either list shows of its order and its client beside the payment. */
const ITEM_COLUMNS = [
  'order_views.status as order_status',
  'order_views.address as order_address',
  'order_views.liters_requested as order_liters_requested',
  'order_views.notes as order_notes',
  'users.name as client_name',
  'users.phone as client_phone',
] as const;

/** The admin review queue: PENDING, PROCESSING and FAILED payments, oldest first, in the admin's cities. */
export const reviewQueue = async (
  db: Db,
  filter: { method?: ReviewMethod; limit: number; page: number; scope: CityScope },
): Promise<{ items: ReviewRow[]; total: number }> => {
  const q = db
    .selectFrom('payments')
    .where('payments.status', 'in', ['PENDING', 'PROCESSING', 'FAILED'])
    .where('payments.method', 'in', filter.method ? [filter.method] : [...REVIEW_METHODS])
    .where(inScope(filter.scope));
  const total = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  const rows = await q
    .leftJoin('order_views', 'order_views.id', 'payments.order_id')
    .leftJoin('users', 'users.id', 'payments.user_id')
    .selectAll('payments')
    .select(ITEM_COLUMNS)
    .orderBy('payments.created_at', 'asc')
    .orderBy('payments.id', 'asc')
    .limit(filter.limit)
    .offset((filter.page - 1) * filter.limit)
    .execute();
  return { items: rows.map((r) => ({ ...toRow(r), ...orderAndClient(r) })), total: Number(total.n) };
};

/** A reviewed payment: the payment as it is now, its order and client, and the admin's decision on it. */
export type ReviewedRow = ReviewRow & {
  outcome: ReviewOutcome;
  review_reason: string | null;
  reviewed_at: Date;
  admin_id: number;
  admin_name: string | null;
};

/**
 * The payments an admin approved or rejected, newest decision first, in the admin's cities: by outcome,
 * method and the instants the decisions fall between (`fromAt` included, `beforeAt` excluded).
 */
export const reviewedPayments = async (
  db: Db,
  filter: {
    outcome?: ReviewOutcome;
    method?: ReviewMethod;
    fromAt?: Date;
    beforeAt?: Date;
    limit: number;
    page: number;
    scope: CityScope;
  },
): Promise<{ items: ReviewedRow[]; total: number }> => {
  let q = db
    .selectFrom('payment_reviews as r')
    .innerJoin('payments', 'payments.id', 'r.payment_id')
    .where('payments.method', 'in', filter.method ? [filter.method] : [...REVIEW_METHODS])
    .where(inScope(filter.scope));
  if (filter.outcome) q = q.where('r.outcome', '=', filter.outcome);
  if (filter.fromAt) q = q.where('r.reviewed_at', '>=', filter.fromAt);
  if (filter.beforeAt) q = q.where('r.reviewed_at', '<', filter.beforeAt);
  const total = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  const rows = await q
    .leftJoin('order_views', 'order_views.id', 'payments.order_id')
    .leftJoin('users', 'users.id', 'payments.user_id')
    .leftJoin('admins', 'admins.id', 'r.admin_id')
    .selectAll('payments')
    .select([
      ...ITEM_COLUMNS,
      'r.outcome',
      'r.reason as review_reason',
      'r.reviewed_at',
      'r.admin_id',
      'admins.name as admin_name',
    ])
    .orderBy('r.reviewed_at', 'desc')
    .orderBy('r.payment_id', 'desc')
    .limit(filter.limit)
    .offset((filter.page - 1) * filter.limit)
    .execute();
  return {
    items: rows.map((r) => ({
      ...toRow(r),
      ...orderAndClient(r),
      outcome: r.outcome,
      review_reason: r.review_reason,
      reviewed_at: r.reviewed_at,
      admin_id: Number(r.admin_id),
      admin_name: r.admin_name ?? null,
    })),
    total: Number(total.n),
  };
};
