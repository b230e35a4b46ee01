import type { Db } from '../../infra/db/database.js';
import { toMethod, type PaymentMethod } from './paymentMethods.js';

export type { PaymentMethod } from './paymentMethods.js';

/** The catalogue entry for `code`, active or not; null for a code the catalogue does not know. */
export const findPaymentMethod = async (db: Db, code: string): Promise<PaymentMethod | null> => {
  const row = await db
    .selectFrom('payment_methods')
    .select(['code', 'name', 'kind', 'active'])
    .where('code', '=', code)
    .executeTakeFirst();
  return row ? toMethod(row) : null;
};

/** Whether a customer may choose `code` now: known and active. */
export const isActiveMethod = async (db: Db, code: string): Promise<boolean> =>
  (await findPaymentMethod(db, code))?.active === true;
