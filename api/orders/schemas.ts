import { PathId } from '../route.js';
import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import { queryInteger } from '../schemas.js';

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

export const limit = (def: number) => queryInteger(1, 100).default(def);

/** A page number of an offset list: bounded, so that no offset runs past what the database can count. */
export const page = queryInteger(1, 1_000_000).default(1);
