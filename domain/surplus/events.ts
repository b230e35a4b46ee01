import { z } from 'zod';
import { instant, type EventsOf } from '../eventSchema.js';

/** A listing's statuses, in the contract's Spanish. */
export const SURPLUS_STATUSES = ['ACTIVA', 'RESERVADA', 'EXPIRADA', 'CANCELADA'] as const;
export type SurplusStatus = (typeof SURPLUS_STATUSES)[number];

/** Limits of a listing (docs/domain-rules.md, limits). */
export const SURPLUS_MIN_LITERS = 500;
export const SURPLUS_MAX_LITERS = 50_000;
export const SURPLUS_MAX_TOTAL_USD = 100_000;
export const SURPLUS_MIN_DURATION_MINUTES = 15;
export const SURPLUS_MAX_DURATION_MINUTES = 720;
export const SURPLUS_DEFAULT_DURATION_MINUTES = 360;
export const SURPLUS_DESCRIPTION_MAX = 280;

/**
 * One stream per listing (`surplus-<id>`). `driverGrossCents` is the driver's `totalAmount`: what the driver
 * receives for the whole listing. The client-facing base price is derived from it with the commission in
 * force when it is shown or reserved, so the driver's gross never moves.
 */
export const SurplusListedData = z.object({
  listingId: z.int(),
  driverId: z.int(),
  cityId: z.int().nullable(),
  availableLiters: z.number(),
  driverGrossCents: z.int(),
  description: z.string().nullable(),
  latitude: z.number(),
  longitude: z.number(),
  address: z.string(),
  listedAt: instant,
  expiresAt: instant,
});
export type SurplusListedData = z.infer<typeof SurplusListedData>;

export const SurplusReservedData = z.object({
  listingId: z.int(),
  orderId: z.int(),
  clientId: z.int(),
  reservedAt: instant,
});
export type SurplusReservedData = z.infer<typeof SurplusReservedData>;

/** The reservation's order could not be created (slot taken, method refused…): the listing is ACTIVA again. */
export const SurplusReservationReleasedData = z.object({
  listingId: z.int(),
  orderId: z.int(),
  releasedAt: instant,
});
export type SurplusReservationReleasedData = z.infer<typeof SurplusReservationReleasedData>;

export const SurplusCancelledData = z.object({
  listingId: z.int(),
  cancelledAt: instant,
});
export type SurplusCancelledData = z.infer<typeof SurplusCancelledData>;

export const SurplusExpiredData = z.object({
  listingId: z.int(),
  expiredAt: instant,
});
export type SurplusExpiredData = z.infer<typeof SurplusExpiredData>;

export const SURPLUS_EVENTS = {
  SurplusListed: SurplusListedData,
  SurplusReserved: SurplusReservedData,
  SurplusReservationReleased: SurplusReservationReleasedData,
  SurplusCancelled: SurplusCancelledData,
  SurplusExpired: SurplusExpiredData,
};
export type SurplusEvent = EventsOf<typeof SURPLUS_EVENTS>;

/** One stream per listing; its expected revision makes reserve, cancel and expiry race-free. */
export const surplusStream = (listingId: number): string => `surplus-${listingId}`;
