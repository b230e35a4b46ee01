import type { AppModule } from '../context.js';
import { seedExchangeRate } from '../../commands/exchangeRates/setRate.js';
import { exchangeRateMigrations } from '../../stores/exchangeRates/exchangeRates.js';
import { exchangeRatesRoutes } from '../../api/exchangeRates/routes.js';

/** Exchange rates: the official VES series (admin) and its seeds outside production. */
export const exchangeRatesModule: AppModule = {
  name: 'exchangeRates',
  migrations: exchangeRateMigrations,
  async init(ctx) {
    if (ctx.config.APP_ENV === 'production') return;
    const official = ctx.config.OFFICIAL_RATE_VES;
    if (official !== undefined) {
      await seedExchangeRate(ctx, official);
      return;
    }
    // A fresh development start has no rate, and every order would be 422 ExchangeRateUnavailable: a
    // made-up rate keeps the quick start working, written once and logged loudly so nobody mistakes it.
    const development = ctx.config.DEVELOPMENT_RATE_VES;
    if (development > 0 && (await seedExchangeRate(ctx, development))) {
      ctx.logger.warn(
        { rate: development, currency: 'VES' },
        'DEVELOPMENT exchange rate seeded (not a real rate): set ' +
          'OFFICIAL_RATE_VES or POST /api/v1/admin/exchange-rates',
      );
    }
  },
  routes: exchangeRatesRoutes,
};
