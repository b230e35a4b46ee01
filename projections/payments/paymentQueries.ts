import { sql, type SqlBool } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import type { CityScope } from '../customers/customerQueries.js';
import type { PaymentRow } from './paymentViews.js';

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

/**
 * The admin review queue: PENDING, PROCESSING and FAILED payments, oldest first; only those of orders in the
 * admin's cities (the city the order was created in, as the reports and customers read it).
 */
export const reviewQueue = async (
  db: Db,
  filter: { method?: ReviewMethod; limit: number; page: number; scope: CityScope },
): Promise<{ items: ReviewRow[]; total: number }> => {
  let q = db
    .selectFrom('payments')
    .where('payments.status', 'in', ['PENDING', 'PROCESSING', 'FAILED'])
    .where('payments.method', 'in', filter.method ? [filter.method] : [...REVIEW_METHODS]);
  const { scope } = filter;
  if (!scope.all)
    q = q.where((eb) =>
      scope.cityIds.length === 0
        ? sql<SqlBool>`false`
        : eb.exists(
            eb
              .selectFrom('report_orders as o')
              .select(sql`1`.as('one'))
              .whereRef('o.id', '=', 'payments.order_id')
              .where('o.city_id', 'in', scope.cityIds),
          ),
    );
  const total = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  const rows = await q
    .leftJoin('order_views', 'order_views.id', 'payments.order_id')
    .leftJoin('users', 'users.id', 'payments.user_id')
    .selectAll('payments')
    .select([
      'order_views.status as order_status',
      'order_views.address as order_address',
      'order_views.liters_requested as order_liters_requested',
      'order_views.notes as order_notes',
      'users.name as client_name',
      'users.phone as client_phone',
    ])
    .orderBy('payments.created_at', 'asc')
    .orderBy('payments.id', 'asc')
    .limit(filter.limit)
    .offset((filter.page - 1) * filter.limit)
    .execute();
  return {
    items: rows.map((r) => ({
      ...toRow(r),
      order_status: r.order_status ?? null,
      order_address: r.order_address ?? null,
      order_liters_requested: r.order_liters_requested ?? null,
      order_notes: r.order_notes ?? null,
      client_name: r.client_name ?? null,
      client_phone: r.client_phone ?? null,
    })),
    total: Number(total.n),
  };
};
