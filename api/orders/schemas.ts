import { PathId } from '../route.js';
import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import { usdToCents } from '../../domain/money.js';

/** A path id that is not a positive integer names nothing: the same 404 as an unknown id. */
export const idFrom = (raw: unknown, error: () => Error): number => {
  const s = String(raw ?? '');
  if (!/^[1-9][0-9]{0,14}$/.test(s)) throw error();
  return Number(s);
};

/** Path ids are checked by idFrom (a malformed id is a 404, not a 422); the schemas only document them. */
export const OrderParams = z.object({ orderId: PathId });
export const OfferParams = z.object({ offerId: PathId });
export const CustomerParams = z.object({ customerId: PathId });

export const orderIdFrom = (params: Record<string, unknown>): number =>
  idFrom(params.orderId, () => notFound('OrderNotFound', 'Order not found.'));

/** USD amounts arrive as JSON numbers with at most two decimals; inside they are cents. */
export const usdAmount = (max: number) =>
  z
    .number()
    .gt(0, `must be greater than 0`)
    .max(max, `must be at most ${max}`)
    .refine((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, 'at most 2 decimals')
    .transform(usdToCents);

export const latitude = z.number().min(-90).max(90);
export const longitude = z.number().min(-180).max(180);

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
export const isoDate = z
  .string()
  .regex(ISO_DATE, 'must be a date (YYYY-MM-DD)')
  .refine(
    (s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
    'must be a real date',
  );

export const limit = (def: number) => z.coerce.number().int().min(1).max(100).default(def);

/** A page number of an offset list: bounded, so that no offset runs past what the database can count. */
export const page = z.coerce.number().int().min(1).max(1_000_000).default(1);
