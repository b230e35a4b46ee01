import { driverDecider } from '../../domain/driver/driver.js';
import { driverStream } from '../../domain/driver/events.js';
import { usdToCents } from '../../domain/money.js';
import { balanceSummary, type BalanceSummary } from '../../domain/wallet/balance.js';
import { walletStream } from '../../domain/wallet/events.js';
import { walletDecider } from '../../domain/wallet/wallet.js';
import { loadAsOf } from '../../commands/wallet/handlers.js';
import type { ApiContext } from '../apiContext.js';
import { pendingPayoutCents } from '../../projections/wallet/pendingPayout.js';
import { isActiveDriver, walletBalanceCents } from '../../projections/wallet/walletQueries.js';

type Ctx = Pick<ApiContext, 'db' | 'store' | 'config'>;

const capCents = (ctx: Ctx) => usdToCents(ctx.config.CASH_DEBT_CAP_USD);

/** The summary now, from the read models. */
export const currentBalance = async (ctx: Ctx, driverId: number): Promise<BalanceSummary> =>
  balanceSummary({
    balanceCents: (await walletBalanceCents(ctx.db, driverId)) ?? 0,
    pendingPayoutCents: await pendingPayoutCents(ctx.db, driverId),
    cashDebtCapCents: capCents(ctx),
    driverActive: await isActiveDriver(ctx.db, driverId),
  });

/** The summary as it stood at `asOf`: the wallet and the driver's status folded from their streams up to then. */
export const balanceAsOf = async (ctx: Ctx, driverId: number, asOf: Date): Promise<BalanceSummary> => {
  const [wallet, driver] = await Promise.all([
    loadAsOf(ctx, walletStream(driverId), walletDecider, asOf),
    loadAsOf(ctx, driverStream(driverId), driverDecider, asOf),
  ]);
  return balanceSummary({
    balanceCents: wallet.balanceCents,
    pendingPayoutCents: await pendingPayoutCents(ctx.db, driverId, asOf),
    cashDebtCapCents: capCents(ctx),
    driverActive: driver.status === 'ACTIVE',
  });
};

/** A caller without a driver profile has no wallet: a summary of zeros that cannot go online. */
export const noWallet = (ctx: Ctx): BalanceSummary =>
  balanceSummary({ balanceCents: 0, pendingPayoutCents: 0, cashDebtCapCents: capCents(ctx), driverActive: false });
