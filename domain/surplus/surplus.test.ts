import { describe, expect, it } from 'vitest';
import { errorOf } from '../../tests/support/deciderSpec.js';
import type { SurplusEvent } from './events.js';
import {
  decide,
  evolve,
  initialState,
  pricePerLiterCents,
  surplusClientPrice,
  type SurplusCommand,
  type SurplusState,
} from './surplus.js';

const now = new Date('2026-01-01T12:00:00Z');
const later = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
const settings = { platformCommissionPrc: 10, clientSolidaryPrc: 1, driverSolidaryPrc: 1, platformSolidaryPrc: 0 };

const list = (over: Partial<Extract<SurplusCommand, { type: 'ListSurplus' }>> = {}): SurplusCommand => ({
  type: 'ListSurplus',
  listingId: 7,
  driverId: 3,
  cityId: 1,
  driverHasActiveOrder: false,
  availableLiters: 1500,
  driverGrossCents: 2000,
  description: 'Agua potable',
  latitude: 10.5,
  longitude: -66.9,
  address: 'Av. Urdaneta',
  durationMinutes: 360,
  now,
  ...over,
});

const given = (...cmds: SurplusCommand[]): SurplusState => {
  let s: SurplusState = initialState;
  for (const c of cmds) s = decide(c, s).reduce<SurplusState>((st, e: SurplusEvent) => evolve(st, e), s);
  return s;
};

describe('surplus listing decider', () => {
  it('lists ACTIVA with expires_at = now + duration', () => {
    const [e] = decide(list(), initialState);
    expect(e).toEqual({
      type: 'SurplusListed',
      data: expect.objectContaining({
        listingId: 7,
        driverId: 3,
        availableLiters: 1500,
        driverGrossCents: 2000,
        expiresAt: later(360).toISOString(),
        listedAt: now.toISOString(),
      }),
    });
    expect(evolve(initialState, e)?.status).toBe('ACTIVA');
  });

  it('refuses a driver holding an active order (409 Conflict)', () => {
    expect(errorOf(() => decide(list({ driverHasActiveOrder: true }), initialState))).toMatchObject({
      kind: 'conflict',
      code: 'Conflict',
    });
  });

  it('names every out-of-range field', () => {
    const e = errorOf(() =>
      decide(list({ availableLiters: 499, driverGrossCents: 10_000_001, durationMinutes: 721 }), initialState),
    );
    expect(e.code).toBe('ValidationError');
    expect(Object.keys(e.details?.fieldErrors as object).sort()).toEqual([
      'availableLiters',
      'durationMinutes',
      'totalAmount',
    ]);
  });

  it('reserves an open listing once; a second reservation is 409', () => {
    const s = given(list(), { type: 'ReserveSurplus', orderId: 50, clientId: 9, now });
    expect(s).toMatchObject({ status: 'RESERVADA', orderId: 50, clientId: 9 });
    expect(errorOf(() => decide({ type: 'ReserveSurplus', orderId: 51, clientId: 10, now }, s))).toMatchObject({
      code: 'Conflict',
    });
  });

  it('refuses to reserve past expires_at even before the timer ran', () => {
    expect(
      errorOf(() => decide({ type: 'ReserveSurplus', orderId: 50, clientId: 9, now: later(360) }, given(list()))),
    ).toMatchObject({ code: 'Conflict' });
  });

  it('a released reservation makes the listing ACTIVA again; releasing another order records nothing', () => {
    const reserved = given(list(), { type: 'ReserveSurplus', orderId: 50, clientId: 9, now });
    expect(decide({ type: 'ReleaseReservation', orderId: 49, now }, reserved)).toEqual([]);
    const released = given(
      list(),
      { type: 'ReserveSurplus', orderId: 50, clientId: 9, now },
      { type: 'ReleaseReservation', orderId: 50, now },
    );
    expect(released).toMatchObject({ status: 'ACTIVA', orderId: null });
  });

  it('only the owner cancels, only an open listing (409 otherwise); unknown is 404', () => {
    expect(errorOf(() => decide({ type: 'CancelSurplus', driverId: 4, now }, given(list())))).toMatchObject({
      code: 'Conflict',
    });
    expect(given(list(), { type: 'CancelSurplus', driverId: 3, now })?.status).toBe('CANCELADA');
    const cancelled = given(list(), { type: 'CancelSurplus', driverId: 3, now });
    expect(errorOf(() => decide({ type: 'CancelSurplus', driverId: 3, now }, cancelled))).toMatchObject({
      code: 'Conflict',
    });
    expect(errorOf(() => decide({ type: 'CancelSurplus', driverId: 3, now }, initialState))).toMatchObject({
      kind: 'not_found',
      code: 'NotFound',
    });
  });

  it('expires only an ACTIVA listing that is due; early or repeated timers record nothing', () => {
    expect(decide({ type: 'ExpireSurplus', now: later(359) }, given(list()))).toEqual([]);
    expect(given(list(), { type: 'ExpireSurplus', now: later(360) })?.status).toBe('EXPIRADA');
    expect(
      decide({ type: 'ExpireSurplus', now: later(400) }, given(list(), { type: 'ExpireSurplus', now: later(360) })),
    ).toEqual([]);
    expect(
      decide(
        { type: 'ExpireSurplus', now: later(400) },
        given(list(), { type: 'ReserveSurplus', orderId: 1, clientId: 2, now }),
      ),
    ).toEqual([]);
  });
});

describe('surplus pricing', () => {
  it('grosses the driver’s total up like a counter-offer and adds the solidary share online only', () => {
    // g = 20.01 → W = round(2001 / 0.9) = 2223 (driver gross round(2223 × 0.9) = 2001); online +1 % = 22.23 → 2245.
    expect(surplusClientPrice(2001, 'CASH_USD', settings)).toEqual({ basePriceCents: 2223, clientPaysCents: 2223 });
    expect(surplusClientPrice(2001, 'EXCHANGE_PAY', settings)).toEqual({ basePriceCents: 2223, clientPaysCents: 2245 });
  });

  it('price per liter is rounded half away from zero', () => {
    expect(pricePerLiterCents(2000, 1500)).toBe(1);
    expect(pricePerLiterCents(750, 500)).toBe(2);
  });
});
