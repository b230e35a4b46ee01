import { validationError } from '../../domain/errors.js';
import type { Db } from '../../infra/db/database.js';

/** What an order copies at creation (the spec's billing object); it never changes afterwards. */
export interface BillingSnapshot {
  entity_type: string;
  id_number: string;
  name: string;
  address: string;
  phone: string;
}

/**
 * The billing snapshot for a new order of `clientId`, from the order's `billingProfileId`:
 * - a number: that profile, which must be the client's own (otherwise 422 on billingProfileId);
 * - undefined (omitted): the client's default profile, or null when the client has none;
 * - null: no billing.
 * With `required` (the BILLING_REQUIRED setting) an order without billing is refused with 422 on
 * billingProfileId. Pass `ctx.config.BILLING_REQUIRED`.
 */
export const billingSnapshotFor = async (
  db: Db,
  clientId: number,
  billingProfileId: number | null | undefined,
  options: { required: boolean },
): Promise<BillingSnapshot | null> => {
  if (billingProfileId === null) {
    if (options.required)
      throw validationError({ billingProfileId: ['is required: orders must carry billing details'] });
    return null;
  }
  if (billingProfileId !== undefined && !(Number.isSafeInteger(billingProfileId) && billingProfileId > 0))
    throw validationError({ billingProfileId: ['is not one of your billing profiles'] });
  let query = db
    .selectFrom('billing_profiles')
    .select(['entity_type', 'id_number', 'name', 'address', 'phone'])
    .where('client_id', '=', clientId);
  query =
    billingProfileId === undefined ? query.where('is_default', '=', true) : query.where('id', '=', billingProfileId);
  const row = await query.executeTakeFirst();
  if (row)
    return {
      entity_type: row.entity_type,
      id_number: row.id_number,
      name: row.name,
      address: row.address,
      phone: row.phone,
    };
  if (billingProfileId !== undefined)
    throw validationError({ billingProfileId: ['is not one of your billing profiles'] });
  if (options.required) throw validationError({ billingProfileId: ['is required: add a billing profile first'] });
  return null;
};
