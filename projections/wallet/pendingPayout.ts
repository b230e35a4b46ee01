import type { Db } from '../../infra/db/database.js';

/**
 * pendingPayoutUSD: the payable of the driver's settlement receipts that are GENERATED, IN_PAYMENT or
 * FAILED (docs/domain-rules.md, wallet), from the settlement receipts read model (#11). As of an instant: the
 * receipts issued by then and not yet paid or voided by then.
 */
export const pendingPayoutCents = async (db: Db, driverId: number, asOf?: Date): Promise<number> => {
  let q = db
    .selectFrom('settlement_receipts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('payable_cents'), eb.lit(0)).as('cents'))
    .where('driver_id', '=', driverId);
  q = asOf
    ? q.where('issued_at', '<=', asOf).where((eb) => eb.or([eb('settled_at', 'is', null), eb('settled_at', '>', asOf)]))
    : q.where('status', 'in', ['GENERATED', 'IN_PAYMENT', 'FAILED']);
  return Number((await q.executeTakeFirstOrThrow()).cents);
};
