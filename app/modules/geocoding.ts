import type { AppModule } from '../context.js';
import { withMapsCache } from '../../infra/maps/cachedMapsProvider.js';
import { createHttpMapsProvider } from '../../infra/maps/httpMapsProvider.js';
import { geocodingRoutes } from '../../api/geocoding/routes.js';

/**
 * The geocoding proxy (spec 4.14). Without a maps key there is deliberately no simulator: the spec says
 * geocoding answers 503 GeocodingNotConfigured then (config refuses a key without MAPS_PROVIDER_URL).
 */
export const geocodingModule: AppModule = {
  name: 'geocoding',
  init(ctx) {
    const {
      MAPS_API_KEY: apiKey,
      MAPS_PROVIDER_URL: baseUrl,
      MAPS_TIMEOUT_MS: timeoutMs,
      MAPS_CACHE_TTL_SECONDS: ttlSeconds,
    } = ctx.config;
    if (!apiKey || !baseUrl) {
      ctx.providers.maps = null;
      return;
    }
    const http = createHttpMapsProvider({ baseUrl, apiKey, timeoutMs, logger: ctx.logger });
    ctx.providers.maps = ttlSeconds > 0 ? withMapsCache(http, ttlSeconds * 1000, ctx.clock) : http;
  },
  routes: geocodingRoutes,
};
