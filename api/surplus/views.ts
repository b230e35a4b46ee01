import type { z } from 'zod';
import { centsToUsd } from '../../domain/money.js';
import type { PricingSettings } from '../../domain/pricing.js';
import { pricePerLiterCents, surplusClientPrice } from '../../domain/surplus/surplus.js';
import type { SurplusListingRow } from '../../projections/surplus/surplusListings.js';
import type { NearbySurplusListing, SurplusListing } from './routes.js';

/** total_price is the driver's totalAmount; price_per_liter is informative (rounded to whole cents). */
export const surplusView = (r: SurplusListingRow): z.infer<typeof SurplusListing> => {
  const perLiterCents = pricePerLiterCents(r.total_price_cents, r.available_liters);
  return {
    id: r.id,
    driver_id: r.driver_id,
    city_id: r.city_id,
    available_liters: r.available_liters,
    price_per_liter_cents: perLiterCents,
    total_price_cents: r.total_price_cents,
    price_per_liter_usd: centsToUsd(perLiterCents),
    total_price_usd: centsToUsd(r.total_price_cents),
    description: r.description,
    latitude: r.latitude,
    longitude: r.longitude,
    address: r.address,
    status: r.status,
    sold_liters: r.sold_liters,
    remaining_liters: r.available_liters - r.sold_liters,
    expires_at: new Date(r.expires_at).toISOString(),
    created_at: new Date(r.created_at).toISOString(),
  };
};

/** A nearby listing: the client-facing price previewed for one payment method, and how far it is. */
export const nearbySurplusView = (
  r: SurplusListingRow,
  distanceKm: number,
  paymentMethod: string,
  settings: PricingSettings,
): z.infer<typeof NearbySurplusListing> => {
  const { basePriceCents, clientPaysCents } = surplusClientPrice(r.total_price_cents, paymentMethod, settings);
  return {
    ...surplusView(r),
    distance_km: Math.round(distanceKm * 1000) / 1000,
    payment_method: paymentMethod,
    base_price_cents: basePriceCents,
    base_price_usd: centsToUsd(basePriceCents),
    client_pays_cents: clientPaysCents,
    client_pays_usd: centsToUsd(clientPaysCents),
  };
};
