import { badRequest, conflict, type DomainError } from '../errors.js';
import { ARRIVAL_RADIUS_METERS, distanceMeters } from '../geo.js';
import { ms, iso, addMinutes } from '../time.js';
import { DELIVERABLE, ON_TRIP, assertAssignedDriver } from './rules.js';
import type { StartTrip, RecordLocation, MarkArrived, Deliver } from './commands.js';
import type { OrderEvent } from './events.js';
import type { Order } from './order.js';

/** The trip: the assigned driver starts, is located, arrives and delivers against the client's PIN. */

/** Wrong delivery PINs allowed before attempts are refused for PIN_LOCK_MINUTES (4 digits: 10 000 guesses). */
export const PIN_MAX_ATTEMPTS = 5;
export const PIN_LOCK_MINUTES = 15;
/** A driver position older than this does not count as "recent" for arrival. */
export const LOCATION_FRESH_MINUTES = 5;

/**
 * Some refusals must be recorded before they are reported (a wrong PIN counts towards the lock), so the
 * decider returns their events instead of throwing. After appending, the handler throws what this returns.
 */
export const failureOf = (events: OrderEvent[]): DomainError | null => {
  for (const e of events) {
    if (e.type === 'DeliveryPinRejected') {
      const attemptsLeft = e.data.lockedUntil ? 0 : PIN_MAX_ATTEMPTS - e.data.failedAttempts;
      return badRequest('DeliveryError', 'Wrong delivery PIN.', { attemptsLeft, lockedUntil: e.data.lockedUntil });
    }
  }
  return null;
};

export const startTrip = (s: Order, cmd: StartTrip): OrderEvent[] => {
  assertAssignedDriver(s, cmd.driverId);
  if (s.status !== 'CONFIRMED') throw conflict('Conflict', 'The trip cannot be started now.');
  return [{ type: 'TripStarted', data: { orderId: s.id, driverId: cmd.driverId, startedAt: iso(cmd.now) } }];
};

export const recordLocation = (s: Order, cmd: RecordLocation): OrderEvent[] => {
  assertAssignedDriver(s, cmd.driverId);
  if (!ON_TRIP.includes(s.status)) throw conflict('WrongStatus', 'Location is accepted only during the trip.');
  return [
    {
      type: 'DriverLocationRecorded',
      data: {
        orderId: s.id,
        driverId: cmd.driverId,
        latitude: cmd.latitude,
        longitude: cmd.longitude,
        recordedAt: iso(cmd.now),
      },
    },
  ];
};

export const markArrived = (s: Order, cmd: MarkArrived): OrderEvent[] => {
  const now = cmd.now.getTime();
  assertAssignedDriver(s, cmd.driverId);
  if (s.status === 'ARRIVED') return [];
  if (s.status !== 'IN_PROGRESS') throw conflict('WrongStatus', 'The order is not in progress.');
  const location = s.driverLocation;
  if (!location || now - ms(location.recordedAt) > LOCATION_FRESH_MINUTES * 60_000) {
    throw conflict('NoLocation', 'No recent driver location.');
  }
  const meters = distanceMeters(location, s);
  if (meters > ARRIVAL_RADIUS_METERS) {
    throw conflict('TooFarFromDestination', 'Too far from the destination.', { distanceKm: Math.round(meters) / 1000 });
  }
  return [
    {
      type: 'DriverArrived',
      data: { orderId: s.id, driverId: cmd.driverId, arrivedAt: iso(cmd.now), distanceMeters: Math.round(meters) },
    },
  ];
};

export const deliver = (s: Order, cmd: Deliver): OrderEvent[] => {
  const now = cmd.now.getTime();
  assertAssignedDriver(s, cmd.driverId);
  if (!DELIVERABLE.includes(s.status)) throw conflict('DeliveryError', 'The order is not deliverable.');
  if (s.pinLockedUntil && now < ms(s.pinLockedUntil)) {
    throw conflict('DeliveryError', 'Too many wrong PINs; try again later.', { lockedUntil: s.pinLockedUntil });
  }
  // The platform pays the credited part (to the driver, as a reimbursement): only credit really redeemed counts.
  const promo = s.pricing.promoCreditCents;
  if (promo > 0 && cmd.redeemedCreditCents !== promo) {
    throw conflict('DeliveryError', 'The promotional credit of this order is not valid.');
  }
  if (cmd.deliveryPin !== s.deliveryPin) {
    const failedAttempts = s.failedPinAttempts + 1;
    return [
      {
        type: 'DeliveryPinRejected',
        data: {
          orderId: s.id,
          driverId: cmd.driverId,
          failedAttempts,
          lockedUntil: failedAttempts >= PIN_MAX_ATTEMPTS ? addMinutes(cmd.now, PIN_LOCK_MINUTES) : null,
          attemptedAt: iso(cmd.now),
        },
      },
    ];
  }
  return [
    {
      type: 'OrderDelivered',
      data: {
        orderId: s.id,
        clientId: s.clientId,
        driverId: cmd.driverId,
        litersRequested: s.litersRequested,
        actualLiters: cmd.actualLiters,
        paymentMethod: s.paymentMethod,
        pricing: s.pricing,
        isValidPromotion: promo > 0,
        deliveredAt: iso(cmd.now),
      },
    },
  ];
};
