import { startSettlementEffects } from '../../commands/settlement/effects.js';
import { startPayeeEnrollment } from '../../commands/settlement/payees.js';
import { settlementScheduleJob } from '../../commands/settlement/schedule.js';
import type { AppModule } from '../context.js';
import { HttpPayoutProvider } from '../../infra/payouts/httpPayoutProvider.js';
import { SimulatedPayoutProvider } from '../../infra/payouts/simulatedPayoutProvider.js';
import { settlementProjector } from '../../projections/settlement/settlementProjector.js';
import { settlementMigrations } from '../../projections/settlement/tables.js';
import { settlementStoreMigrations } from '../../stores/settlement/settlementTables.js';
import { settlementRoutes } from '../../api/settlements/routes.js';
import { orderHistoryRoutes } from '../../api/admin/history/routes.js';
import { settlementConfigRoutes } from '../../api/admin/settlements/configRoutes.js';
import { settlementReceiptRoutes } from '../../api/admin/settlements/receiptRoutes.js';

/** Settlement receipts, payouts and the auditor's replay (#11). */
export const settlementModule: AppModule = {
  name: 'settlement',
  migrations: { ...settlementMigrations, ...settlementStoreMigrations },
  projectors: [settlementProjector],
  init(ctx) {
    ctx.providers.payouts = ctx.config.PAYOUT_PROVIDER_URL
      ? new HttpPayoutProvider({
          url: ctx.config.PAYOUT_PROVIDER_URL,
          key: ctx.config.PAYOUT_PROVIDER_KEY,
          timeoutMs: ctx.config.PAYOUT_TIMEOUT_MS,
        })
      : new SimulatedPayoutProvider();
    ctx.scheduler.register(settlementScheduleJob(ctx));
    startSettlementEffects(ctx);
    startPayeeEnrollment(ctx);
  },
  routes(ctx, router) {
    settlementConfigRoutes(ctx, router);
    settlementReceiptRoutes(ctx, router);
    settlementRoutes(ctx, router);
    orderHistoryRoutes(ctx, router);
  },
};
