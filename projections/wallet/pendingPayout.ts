import type { Db } from '../../infra/db/database.js';

/**
 * pendingPayoutUSD: the payable of the driver's settlement receipts that are GENERATED, IN_PAYMENT or
 * FAILED (DOMAIN.md "Wallet"). Settlement receipts do not exist yet: 0 until #11 replaces this read with
 * one on its receipts read model, as of the same instant for the admin's `as_of` view.
 */
export const pendingPayoutCents = async (_db: Db, _driverId: number, _asOf?: Date): Promise<number> => 0;
