import type { Router } from 'express';
import { z } from 'zod';
import { notFound } from '../../../domain/errors.js';
import { centsToUsd, usdToCents } from '../../../domain/money.js';
import type { ApiContext } from '../../apiContext.js';
import {
  bankAccountOf,
  deleteBankAccount,
  saveBankAccount,
  type BankAccountRow,
} from '../../../stores/customers/bankAccounts.js';
import { reportsProjector } from '../../../projections/reports/reportsProjector.js';
import {
  customerById,
  listCustomers,
  ordersOfCustomer,
  type CustomerOrderRow,
  type CustomerRow,
} from '../../../projections/customers/customerQueries.js';
import { creditBalanceOf } from '../../../projections/credit/creditViews.js';
import { requireRole, type Actor } from '../../auth.js';
import { CreditSummary, toCreditSummary } from '../../credit/routes.js';
import { CustomerParams, idFrom, limit, page } from '../../orders/schemas.js';
import { orNull, PageMeta, pageOf } from '../../openapi.js';
import { defineRoute, type ErrorAnswers } from '../../route.js';
import { cityScopeOf } from '../cityScope.js';
import { queryNumber } from '../../schemas.js';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const spent = queryNumber(0, 1e12).transform(usdToCents);

const ListQuery = z.object({
  is_active: bool.optional(),
  min_spent: spent.optional(),
  max_spent: spent.optional(),
  q: z.string().trim().max(80).optional(),
  limit: limit(25),
  page,
});

const DetailQuery = z.object({ limit: limit(10), page });

/** National id: optional V, E, J, G or P, then 6-10 digits; stored upper-case without separators. */
const idNumber = z
  .string()
  .transform((s) => s.replace(/[\s.-]/g, '').toUpperCase())
  .refine((s) => /^[VEJGP]?\d{6,10}$/.test(s), 'must be an optional V, E, J, G or P followed by 6 to 10 digits')
  .openapi({ pattern: '^[\\s.-]*([VEJGPvejgp][\\s.-]*)?(\\d[\\s.-]*){6,10}$' });

/** What may stand between the characters of a phone number: spaces, hyphens, parentheses and dots. */
const SEPARATORS = /[\s\-().]/g;
const SEP = `${SEPARATORS.source}*`;

/**
 * Venezuelan mobile (0412, 0414, 0416, 0422, 0424, 0426), local or +58, separators anywhere; stored as +58 and
 * 10 digits. One pattern for the check and the document (the same rule with the separators taken out first
 * left the document with a bare string).
 */
const MOBILE = new RegExp(
  `^${SEP}(?:(?:\\+${SEP}5|0${SEP}0${SEP}5|5)${SEP}8${SEP}|0${SEP})?4${SEP}[12]${SEP}[246]${SEP}(?:\\d${SEP}){7}$`,
);
const mobile = z
  .string()
  .regex(MOBILE, 'must be a Venezuelan mobile number (e.g. 04141234567 or +584141234567)')
  .transform((s) => `+58${s.replace(SEPARATORS, '').slice(-10)}`);

const BankAccountBody = z.object({
  idNumber,
  phone: mobile,
  bankCode: z.string().regex(/^\d{4}$/, 'must be exactly 4 digits'),
});

const meta = (total: number, perPage: number, currentPage: number) => ({
  total,
  per_page: perPage,
  current_page: currentPage,
  last_page: Math.max(1, Math.ceil(total / perPage)),
});

const toCustomer = (c: CustomerRow): z.infer<typeof Customer> => ({
  id: c.id,
  name: c.name,
  phone: c.phone,
  email: c.email,
  is_active: c.is_active,
  total_orders: c.total_orders,
  total_liters_ordered: c.total_liters_ordered,
  total_solidary_usd: centsToUsd(c.total_solidary_cents),
  created_at: c.created_at.toISOString(),
});

const toCustomerOrder = (o: CustomerOrderRow): z.infer<typeof CustomerOrder> => ({
  id: o.id,
  status: o.status,
  location_from: { lat: o.latitude, lng: o.longitude, text: o.address },
  location_to: { lat: null, lng: null, text: null },
  liters: o.liters_requested,
  price_usd: centsToUsd(o.client_pays_cents),
  driver: o.driver_id === null ? null : { id: o.driver_id, name: o.driver_name, phone: o.driver_phone },
  created_at: o.created_at.toISOString(),
  completed_at: o.delivered_at?.toISOString() ?? null,
});

const toBankAccount = (a: BankAccountRow): z.infer<typeof BankAccount> => ({
  id: a.id,
  id_number: a.id_number,
  phone: a.phone,
  bank_code: a.bank_code,
  updated_at: a.updated_at.toISOString(),
});

const Customer = z
  .object({
    id: z.number().int(),
    name: z.string().nullable(),
    phone: z.string(),
    email: z.string().nullable(),
    is_active: z.boolean(),
    total_orders: z.number().int(),
    total_liters_ordered: z.number().int(),
    total_solidary_usd: z.number(),
    created_at: z.string(),
  })
  .openapi('Customer');
const CustomerOrder = z.object({
  id: z.number().int(),
  status: z.string(),
  location_from: z.object({ lat: z.number(), lng: z.number(), text: z.string() }),
  location_to: z.object({ lat: z.null(), lng: z.null(), text: z.null() }),
  liters: z.number().int(),
  price_usd: z.number(),
  driver: z.object({ id: z.number().int(), name: z.string().nullable(), phone: z.string().nullable() }).nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});
const BankAccount = z
  .object({
    id: z.number().int(),
    id_number: z.string(),
    phone: z.string(),
    bank_code: z.string(),
    updated_at: z.string(),
  })
  .openapi('CustomerBankAccount');
const ERRORS: ErrorAnswers = { 403: ['Forbidden'], 404: ['CustomerNotFound'] };

const customerNotFound = () => notFound('CustomerNotFound', 'Customer not found.');

/**
 * The admin's cities. A customer belongs to the cities of their orders, which the reports' read model
 * records; commands do not wait for it, so a city-limited admin's read (or credit adjustment) does (ctx.caughtUp).
 */
const customerScopeOf = async (ctx: ApiContext, actor: Actor) => {
  const scope = await cityScopeOf(ctx, actor);
  if (!scope.all) await ctx.caughtUp(reportsProjector.name);
  return scope;
};

/** The customer named by a path id, within the admin's cities; 404 CustomerNotFound otherwise. */
export const visibleCustomerOf = async (ctx: ApiContext, actor: Actor, raw: unknown): Promise<CustomerRow> => {
  const id = idFrom(raw, customerNotFound);
  const customer = await customerById(ctx.db, await customerScopeOf(ctx, actor), id);
  if (!customer) throw customerNotFound();
  return customer;
};

/** Customers, scoped to the admin's cities, and their saved bank account. */
export const adminCustomerRoutes = (ctx: ApiContext, router: Router): void => {
  const admin = requireRole(ctx.auth, 'ADMIN');
  const tags = ['admin-customers'];
  const visibleCustomer = (actor: Actor, raw: unknown) => visibleCustomerOf(ctx, actor, raw);

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/customers',
      summary: 'Customers with spend totals, newest first',
      tags,
      guards: admin,
      query: ListQuery,
      responses: { 200: { description: 'One page', schema: pageOf(Customer) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query, actor }) => {
      const { rows, total } = await listCustomers(ctx.db, await customerScopeOf(ctx, actor), {
        isActive: query.is_active,
        minSpentCents: query.min_spent,
        maxSpentCents: query.max_spent,
        q: query.q || undefined,
        limit: query.limit,
        page: query.page,
      });
      return { items: rows.map(toCustomer), meta: meta(total, query.limit, query.page) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/customers/:customerId',
      summary: 'A customer: profile, totals, credit and a page of orders',
      tags,
      guards: admin,
      params: CustomerParams,
      query: DetailQuery,
      responses: {
        200: {
          description: 'The customer',
          schema: z.object({
            customer: Customer.extend({ updated_at: z.string() }),
            totals: z.object({
              total_orders: z.number().int(),
              total_liters_ordered: z.number().int(),
              total_spent_usd: z.number(),
            }),
            credit: CreditSummary,
            orders: z.array(CustomerOrder),
            meta: PageMeta,
          }),
        },
      },
      errors: ERRORS,
    },
    async ({ params, query, actor }) => {
      const c = await visibleCustomer(actor, params.customerId);
      const [credit, orders] = await Promise.all([
        creditBalanceOf(ctx.db, c.id),
        ordersOfCustomer(ctx.db, c.id, query),
      ]);
      return {
        customer: { ...toCustomer(c), updated_at: c.updated_at.toISOString() },
        totals: {
          total_orders: c.total_orders,
          total_liters_ordered: c.total_liters_ordered,
          total_spent_usd: centsToUsd(c.total_spent_cents),
        },
        credit: toCreditSummary(credit),
        orders: orders.rows.map(toCustomerOrder),
        meta: meta(orders.total, query.limit, query.page),
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/customers/:customerId/bank-account',
      summary: 'A customer’s saved bank account (null when none)',
      tags,
      guards: admin,
      params: CustomerParams,
      responses: { 200: { description: 'The account or null', schema: z.object({ account: orNull(BankAccount) }) } },
      errors: ERRORS,
    },
    async ({ params, actor }) => {
      const c = await visibleCustomer(actor, params.customerId);
      const account = await bankAccountOf(ctx.db, c.id);
      return { account: account ? toBankAccount(account) : null };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'put',
      path: '/admin/customers/:customerId/bank-account',
      summary: 'Create or replace a customer’s saved bank account',
      tags,
      guards: admin,
      params: CustomerParams,
      body: BankAccountBody,
      responses: { 200: { description: 'The account', schema: z.object({ account: BankAccount }) } },
      errors: ERRORS,
    },
    async ({ params, body, actor }) => {
      const c = await visibleCustomer(actor, params.customerId);
      const account = await saveBankAccount(
        ctx.db,
        c.id,
        { id_number: body.idNumber, phone: body.phone, bank_code: body.bankCode },
        ctx.clock.now(),
      );
      return { account: toBankAccount(account) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'delete',
      path: '/admin/customers/:customerId/bank-account',
      summary: 'Remove a customer’s saved bank account',
      tags,
      guards: admin,
      params: CustomerParams,
      responses: { 204: { description: 'Removed', schema: null } },
      errors: ERRORS,
    },
    async ({ params, actor }) => {
      const c = await visibleCustomer(actor, params.customerId);
      await deleteBankAccount(ctx.db, c.id);
      return undefined;
    },
  );
};
