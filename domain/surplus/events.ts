import type { DomainEvent } from '../decider.js';

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
export interface SurplusListedData {
  listingId: number;
  driverId: number;
  cityId: number | null;
  availableLiters: number;
  driverGrossCents: number;
  description: string | null;
  latitude: number;
  longitude: number;
  address: string;
  listedAt: string;
  expiresAt: string;
}

export interface SurplusReservedData {
  listingId: number;
  orderId: number;
  clientId: number;
  reservedAt: string;
}

/** The reservation's order could not be created (slot taken, method refused…): the listing is ACTIVA again. */
export interface SurplusReservationReleasedData {
  listingId: number;
  orderId: number;
  releasedAt: string;
}

export interface SurplusCancelledData {
  listingId: number;
  cancelledAt: string;
}

export interface SurplusExpiredData {
  listingId: number;
  expiredAt: string;
}

export type SurplusEvent =
  | DomainEvent<'SurplusListed', SurplusListedData>
  | DomainEvent<'SurplusReserved', SurplusReservedData>
  | DomainEvent<'SurplusReservationReleased', SurplusReservationReleasedData>
  | DomainEvent<'SurplusCancelled', SurplusCancelledData>
  | DomainEvent<'SurplusExpired', SurplusExpiredData>;

/** One stream per listing; its expected revision makes reserve, cancel and expiry race-free. */
export const surplusStream = (listingId: number): string => `surplus-${listingId}`;
