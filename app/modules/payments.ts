import type { AppModule } from '../context.js';
import { startPaymentReactions } from '../../commands/payment/reactions.js';
import { createHttpPaymentProviders, simulatedPaymentProviders } from '../../infra/payments/paymentProviders.js';
import { paymentViewMigrations, paymentViewsProjector } from '../../projections/payments/paymentViews.js';
import { paymentReviewMigrations, paymentReviewsProjector } from '../../projections/payments/paymentReviews.js';
import { adminPaymentRoutes } from '../../api/admin/payments/routes.js';
import { paymentRoutes } from '../../api/payments/routes.js';

/** Payments: intents, immediate debit, manual forms, provider webhooks, admin review (issue #5). */
export const paymentsModule: AppModule = {
  name: 'payments',
  migrations: { ...paymentViewMigrations, ...paymentReviewMigrations },
  projectors: [paymentViewsProjector, paymentReviewsProjector],
  init(ctx) {
    const c = ctx.config;
    ctx.providers.payments = c.PAYMENT_PROVIDER_URL
      ? createHttpPaymentProviders(c.PAYMENT_PROVIDER_URL, c.PAYMENT_PROVIDER_KEY)
      : simulatedPaymentProviders;
    startPaymentReactions(ctx);
  },
  routes(ctx, router) {
    paymentRoutes(ctx, router);
    adminPaymentRoutes(ctx, router);
  },
};
