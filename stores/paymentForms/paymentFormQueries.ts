import type { Db } from '../../infra/db/database.js';
import { formFromRow, type PaymentForm } from './paymentForms.js';

export type { PaymentForm } from './paymentForms.js';
export { checkFormValues, type ReportedValue } from './paymentFormValues.js';

/** The form with this id, active or not (an order keeps pointing at a form an admin later switched off). */
export const findPaymentForm = async (db: Db, id: number): Promise<PaymentForm | null> => {
  const row = await db.selectFrom('payment_forms').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? formFromRow(row) : null;
};

/** The form with this id only while it is active: what a customer may choose now. */
export const activePaymentForm = async (db: Db, id: number): Promise<PaymentForm | null> => {
  const form = await findPaymentForm(db, id);
  return form?.active ? form : null;
};
