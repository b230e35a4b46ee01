import type { Decider } from '../decider.js';
import { roundHalfAwayFromZero } from '../money.js';
import { offerPriceFromDriverGross, priceOrder, type PricingSettings } from '../pricing.js';
import { conflict, notFound, validationError } from '../errors.js';
import {
  SURPLUS_MAX_DURATION_MINUTES,
  SURPLUS_MAX_LITERS,
  SURPLUS_MAX_TOTAL_USD,
  SURPLUS_MIN_DURATION_MINUTES,
  SURPLUS_MIN_LITERS,
  type SurplusEvent,
  type SurplusListedData,
  type SurplusStatus,
} from './events.js';

export interface Surplus extends SurplusListedData {
  status: SurplusStatus;
  /** The order of the live reservation (RESERVADA), else null. */
  orderId: number | null;
  clientId: number | null;
}

export type SurplusState = Surplus | null;
export const initialState: SurplusState = null;

export const evolve = (s: SurplusState, e: SurplusEvent): SurplusState => {
  if (e.type === 'SurplusListed') return { ...e.data, status: 'ACTIVA', orderId: null, clientId: null };
  if (!s) return s;
  switch (e.type) {
    case 'SurplusReserved':
      return { ...s, status: 'RESERVADA', orderId: e.data.orderId, clientId: e.data.clientId };
    case 'SurplusReservationReleased':
      return s.orderId === e.data.orderId ? { ...s, status: 'ACTIVA', orderId: null, clientId: null } : s;
    case 'SurplusCancelled':
      return { ...s, status: 'CANCELADA' };
    case 'SurplusExpired':
      return { ...s, status: 'EXPIRADA' };
  }
};

export type SurplusCommand =
  | {
      type: 'ListSurplus';
      listingId: number;
      driverId: number;
      cityId: number | null;
      /** The driver holds an order (WAITING_FOR_PAYMENT through ARRIVED): publishing is refused. */
      driverHasActiveOrder: boolean;
      availableLiters: number;
      driverGrossCents: number;
      description: string | null;
      latitude: number;
      longitude: number;
      address: string;
      durationMinutes: number;
      now: Date;
    }
  | { type: 'ReserveSurplus'; orderId: number; clientId: number; now: Date }
  | { type: 'ReleaseReservation'; orderId: number; now: Date }
  | { type: 'CancelSurplus'; driverId: number; now: Date }
  | { type: 'ExpireSurplus'; now: Date };

/** ACTIVA and its time not yet up: a listing whose expires_at passed is expired even before the timer runs. */
export const isOpen = (s: Surplus, now: Date): boolean =>
  s.status === 'ACTIVA' && now.getTime() < Date.parse(s.expiresAt);

const NOT_FOUND = () => notFound('NotFound', 'Surplus listing not found.');

export const decide = (cmd: SurplusCommand, s: SurplusState): SurplusEvent[] => {
  if (cmd.type === 'ListSurplus') {
    if (s) throw conflict('Conflict', 'This listing already exists.');
    if (cmd.driverHasActiveOrder)
      throw conflict('Conflict', 'You cannot publish surplus while you have an active order.');
    const errors: Record<string, string[]> = {};
    if (
      !Number.isInteger(cmd.availableLiters) ||
      cmd.availableLiters < SURPLUS_MIN_LITERS ||
      cmd.availableLiters > SURPLUS_MAX_LITERS
    ) {
      errors.availableLiters = [`must be an integer from ${SURPLUS_MIN_LITERS} to ${SURPLUS_MAX_LITERS}`];
    }
    if (
      !Number.isInteger(cmd.driverGrossCents) ||
      cmd.driverGrossCents <= 0 ||
      cmd.driverGrossCents > SURPLUS_MAX_TOTAL_USD * 100
    ) {
      errors.totalAmount = [`must be greater than 0 and at most ${SURPLUS_MAX_TOTAL_USD}`];
    }
    if (
      !Number.isInteger(cmd.durationMinutes) ||
      cmd.durationMinutes < SURPLUS_MIN_DURATION_MINUTES ||
      cmd.durationMinutes > SURPLUS_MAX_DURATION_MINUTES
    ) {
      errors.durationMinutes = [
        `must be an integer from ${SURPLUS_MIN_DURATION_MINUTES} to ${SURPLUS_MAX_DURATION_MINUTES}`,
      ];
    }
    if (Object.keys(errors).length > 0) throw validationError(errors);
    return [
      {
        type: 'SurplusListed',
        data: {
          listingId: cmd.listingId,
          driverId: cmd.driverId,
          cityId: cmd.cityId,
          availableLiters: cmd.availableLiters,
          driverGrossCents: cmd.driverGrossCents,
          description: cmd.description,
          latitude: cmd.latitude,
          longitude: cmd.longitude,
          address: cmd.address,
          listedAt: cmd.now.toISOString(),
          expiresAt: new Date(cmd.now.getTime() + cmd.durationMinutes * 60_000).toISOString(),
        },
      },
    ];
  }
  if (!s) throw NOT_FOUND();
  switch (cmd.type) {
    case 'ReserveSurplus':
      if (!isOpen(s, cmd.now))
        throw conflict('Conflict', 'This listing is no longer available (sold, cancelled or expired).');
      return [
        {
          type: 'SurplusReserved',
          data: {
            listingId: s.listingId,
            orderId: cmd.orderId,
            clientId: cmd.clientId,
            reservedAt: cmd.now.toISOString(),
          },
        },
      ];
    case 'ReleaseReservation':
      if (s.status !== 'RESERVADA' || s.orderId !== cmd.orderId) return [];
      return [
        {
          type: 'SurplusReservationReleased',
          data: { listingId: s.listingId, orderId: cmd.orderId, releasedAt: cmd.now.toISOString() },
        },
      ];
    case 'CancelSurplus':
      // The spec answers 409 (not 403/404) to a driver cancelling someone else's listing.
      if (s.driverId !== cmd.driverId) throw conflict('Conflict', 'This listing is not yours.');
      if (!isOpen(s, cmd.now)) throw conflict('Conflict', 'Only an active listing can be cancelled.');
      return [{ type: 'SurplusCancelled', data: { listingId: s.listingId, cancelledAt: cmd.now.toISOString() } }];
    case 'ExpireSurplus':
      // A timer may fire early or twice: nothing to record unless the listing is ACTIVA and due.
      if (s.status !== 'ACTIVA' || cmd.now.getTime() < Date.parse(s.expiresAt)) return [];
      return [{ type: 'SurplusExpired', data: { listingId: s.listingId, expiredAt: cmd.now.toISOString() } }];
  }
};

/**
 * The listing's client-facing price for a payment method (docs/domain-rules.md): the base price is the driver's gross
 * grossed up like a counter-offer, so the reserved order gives the driver exactly `totalAmount`; the client
 * pays it plus the method's solidary share. No credit: this is the preview before the client is known.
 */
export const surplusClientPrice = (driverGrossCents: number, paymentMethod: string, settings: PricingSettings) => {
  const basePriceCents = offerPriceFromDriverGross(driverGrossCents, settings.platformCommissionPrc);
  return {
    basePriceCents,
    clientPaysCents: priceOrder({ waterPriceCents: basePriceCents, paymentMethod, settings, creditAvailableCents: 0 })
      .clientPaysCents,
  };
};

/** Informative only (the listing is sold whole): the total over the liters, rounded to whole cents. */
export const pricePerLiterCents = (totalCents: number, liters: number): number =>
  roundHalfAwayFromZero(totalCents / liters);

export const surplusDecider: Decider<SurplusCommand, SurplusState, SurplusEvent> = { initialState, evolve, decide };
