import type { DriverOnlineGate } from '../driver/handlers.js';
import { isUnderCashDebtCap } from '../../domain/wallet/balance.js';
import { usdToCents } from '../../domain/money.js';
import type { CommandDeps } from '../deps.js';
import { loadWallet } from './handlers.js';

/**
 * The cash-debt cap behind POST /driver/online: the wallet stream (not the read model) decides, so a
 * driver whose debt an admin credit just brought under the cap may go online at once.
 */
export const cashDebtOnlineGate = (ctx: Pick<CommandDeps, 'store' | 'config'>): DriverOnlineGate => ({
  async canGoOnline(driverId) {
    const wallet = await loadWallet(ctx, driverId);
    return isUnderCashDebtCap(wallet.balanceCents, usdToCents(ctx.config.CASH_DEBT_CAP_USD));
  },
});
