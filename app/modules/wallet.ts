import { startWalletEarnings } from '../../commands/wallet/walletReactions.js';
import type { AppModule } from '../context.js';
import { adminWalletRoutes } from '../../api/admin/wallet/routes.js';
import { walletRoutes } from '../../api/wallet/routes.js';
import { walletLedgerProjector, walletMigrations } from '../../projections/wallet/walletLedger.js';

/** The driver's wallet: ledger, balance, payout account and the cash-debt cap (issue #10). */
export const walletModule: AppModule = {
  name: 'wallet',
  migrations: walletMigrations,
  projectors: [walletLedgerProjector],
  init(ctx) {
    startWalletEarnings(ctx);
  },
  routes(ctx, router) {
    walletRoutes(ctx, router);
    adminWalletRoutes(ctx, router);
  },
};
