import { sql, type SqlBool } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import { nameHasWords, phoneHasDigits } from '../textSearch.js';
import '../reports/reportTables.js';

/**
 * Back-office customer reads, aggregated at query time from the orders read model (a customer's totals
 * are a GROUP BY over their own orders, indexed by client). Totals count DELIVERED orders only: spend is
 * what was actually bought; total_spent is client_charged (what the client paid, promotional credit not
 * included) and total_solidary the client's solidary contribution.
 */

/** Every city, or only customers who ordered in these (an order's city: the nearest city centre). */
export type CityScope = { all: true } | { all: false; cityIds: number[] };

export interface CustomerRow {
  id: number;
  name: string | null;
  phone: string;
  email: string | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
  total_orders: number;
  total_liters_ordered: number;
  total_solidary_cents: number;
  total_spent_cents: number;
}

const totals = (db: Db) =>
  db
    .selectFrom('order_views')
    .select((eb) => [
      'client_id',
      eb.fn.countAll<number>().as('total_orders'),
      eb.fn.sum<number>('liters_requested').as('total_liters_ordered'),
      eb.fn.sum<number>('client_solidary_cents').as('total_solidary_cents'),
      eb.fn.sum<number>('client_charged_cents').as('total_spent_cents'),
    ])
    .where('status', '=', 'DELIVERED')
    .groupBy('client_id');

const customers = (db: Db, scope: CityScope) => {
  let q = db
    .selectFrom('users as u')
    .leftJoin(totals(db).as('t'), 't.client_id', 'u.id')
    .where('u.role', '=', 'CLIENT');
  if (!scope.all) {
    const cityIds = scope.cityIds;
    q = q.where((eb) =>
      cityIds.length === 0
        ? sql<SqlBool>`false`
        : eb.exists(
            eb
              .selectFrom('report_orders as o')
              .select(sql`1`.as('one'))
              .whereRef('o.client_id', '=', 'u.id')
              .where('o.city_id', 'in', cityIds),
          ),
    );
  }
  return q.select([
    'u.id',
    'u.name',
    'u.phone',
    'u.email',
    'u.is_active',
    'u.created_at',
    'u.updated_at',
    sql<number>`coalesce(t.total_orders, 0)`.as('total_orders'),
    sql<number>`coalesce(t.total_liters_ordered, 0)`.as('total_liters_ordered'),
    sql<number>`coalesce(t.total_solidary_cents, 0)`.as('total_solidary_cents'),
    sql<number>`coalesce(t.total_spent_cents, 0)`.as('total_spent_cents'),
  ]);
};

const numeric = (r: CustomerRow): CustomerRow => ({
  ...r,
  total_orders: Number(r.total_orders),
  total_liters_ordered: Number(r.total_liters_ordered),
  total_solidary_cents: Number(r.total_solidary_cents),
  total_spent_cents: Number(r.total_spent_cents),
});

export interface CustomerFilter {
  isActive?: boolean;
  minSpentCents?: number;
  maxSpentCents?: number;
  q?: string;
  limit: number;
  page: number;
}

/** Newest first; `total` counts every match for the page meta. */
export const listCustomers = async (
  db: Db,
  scope: CityScope,
  f: CustomerFilter,
): Promise<{ rows: CustomerRow[]; total: number }> => {
  let q = customers(db, scope);
  if (f.isActive !== undefined) q = q.where('u.is_active', '=', f.isActive);
  if (f.minSpentCents !== undefined) q = q.where(sql`coalesce(t.total_spent_cents, 0)`, '>=', f.minSpentCents);
  if (f.maxSpentCents !== undefined) q = q.where(sql`coalesce(t.total_spent_cents, 0)`, '<=', f.maxSpentCents);
  if (f.q?.trim()) {
    // The name by its words, the phone by its digits, as the drivers' search (projections/textSearch.ts).
    const conditions = [nameHasWords(sql.ref('u.name'), f.q), phoneHasDigits(sql.ref('u.phone'), f.q)].filter(
      (c) => c !== null,
    );
    q = q.where(sql<boolean>`(${sql.join(conditions, sql` OR `)})`);
  }
  const [rows, count] = await Promise.all([
    q
      .orderBy('u.created_at', 'desc')
      .orderBy('u.id', 'desc')
      .limit(f.limit)
      .offset((f.page - 1) * f.limit)
      .execute(),
    db
      .selectFrom(q.as('m'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: (rows as CustomerRow[]).map(numeric), total: Number(count.n) };
};

export const customerById = async (db: Db, scope: CityScope, id: number): Promise<CustomerRow | undefined> => {
  const row = await customers(db, scope).where('u.id', '=', id).executeTakeFirst();
  return row ? numeric(row as CustomerRow) : undefined;
};

export interface CustomerOrderRow {
  id: number;
  status: string;
  latitude: number;
  longitude: number;
  address: string;
  liters_requested: number;
  client_pays_cents: number;
  created_at: Date;
  delivered_at: Date | null;
  driver_id: number | null;
  driver_name: string | null;
  driver_phone: string | null;
}

/** Every order of the customer, newest first. */
export const ordersOfCustomer = async (
  db: Db,
  clientId: number,
  page: { limit: number; page: number },
): Promise<{ rows: CustomerOrderRow[]; total: number }> => {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('order_views as o')
      .leftJoin('drivers as d', 'd.driver_id', 'o.driver_id')
      .select([
        'o.id',
        'o.status',
        'o.latitude',
        'o.longitude',
        'o.address',
        'o.liters_requested',
        'o.client_pays_cents',
        'o.created_at',
        'o.delivered_at',
        'o.driver_id',
        'd.name as driver_name',
        'd.phone as driver_phone',
      ])
      .where('o.client_id', '=', clientId)
      .orderBy('o.created_at', 'desc')
      .orderBy('o.id', 'desc')
      .limit(page.limit)
      .offset((page.page - 1) * page.limit)
      .execute(),
    db
      .selectFrom('order_views')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
};
