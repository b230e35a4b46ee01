import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { decide, evolve, initialState, type DriverCommand, type DriverState } from './driver.js';
import type { DriverEvent } from './events.js';

const now = new Date('2026-03-01T12:00:00Z');
const given = (...events: DriverEvent[]): DriverState => events.reduce(evolve, initialState);
type Cmd = DriverCommand extends infer C ? (C extends DriverCommand ? Omit<C, 'now'> : never) : never;
const when = (s: DriverState, cmd: Cmd) => decide({ ...cmd, now } as DriverCommand, s);
const errorOf = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err instanceof DomainError ? err.code : String(err);
  }
  return null;
};

const registered: DriverEvent = {
  type: 'DriverRegistered',
  data: { driverId: 1, userId: 9, phone: '+584121234567', name: null, registeredAt: now.toISOString() },
};
const profile: DriverEvent = {
  type: 'DriverProfileUpdated',
  data: { driverId: 1, plate: 'AB123CD', capacityLiters: 8000, cityId: 1, at: now.toISOString() },
};
const doc = (type: 'ID_FRONT' | 'LICENSE', expiresAt: string | null = null): DriverEvent => ({
  type: 'DriverDocumentRecorded',
  data: { driverId: 1, type, expiresAt, fileUrl: null, recordedAt: now.toISOString() },
});
const submitted: DriverEvent = { type: 'DriverKycSubmitted', data: { driverId: 1, at: now.toISOString() } };
const approved: DriverEvent = { type: 'DriverApproved', data: { driverId: 1, adminId: 2, at: now.toISOString() } };

describe('driver decider', () => {
  it('registers once', () => {
    expect(
      when(initialState, { type: 'RegisterDriver', driverId: 1, userId: 9, phone: '+584121234567', name: null }).map(
        (e) => e.type,
      ),
    ).toEqual(['DriverRegistered']);
    expect(
      when(given(registered), { type: 'RegisterDriver', driverId: 1, userId: 9, phone: '+584121234567', name: null }),
    ).toEqual([]);
  });

  it('the last required document submits the application for review', () => {
    const s = given(registered, profile, doc('ID_FRONT'));
    expect(
      when(s, { type: 'RecordDocument', documentType: 'LICENSE', expiresAt: '2030-01-01', fileUrl: null }).map(
        (e) => e.type,
      ),
    ).toEqual(['DriverDocumentRecorded', 'DriverKycSubmitted']);
    expect(
      when(given(registered, doc('ID_FRONT')), {
        type: 'RecordDocument',
        documentType: 'LICENSE',
        expiresAt: null,
        fileUrl: null,
      }).map((e) => e.type),
    ).toEqual(['DriverDocumentRecorded']);
  });

  it('approval needs a complete, current application', () => {
    expect(errorOf(() => when(given(registered, profile), { type: 'ApproveDriver', adminId: 2 }))).toBe('WrongStatus');
    const expiredSince = given(registered, profile, doc('ID_FRONT', '2026-02-01'), doc('LICENSE'), submitted);
    expect(errorOf(() => when(expiredSince, { type: 'ApproveDriver', adminId: 2 }))).toBe('WrongStatus');
    const ready = given(registered, profile, doc('ID_FRONT'), doc('LICENSE'), submitted);
    expect(when(ready, { type: 'ApproveDriver', adminId: 2 })).toEqual([approved]);
  });

  it('online only when ACTIVE and allowed; suspension goes offline', () => {
    const active = given(registered, profile, doc('ID_FRONT'), doc('LICENSE'), submitted, approved);
    expect(errorOf(() => when(active, { type: 'SetOnline', online: true, allowed: false }))).toBe('NotAllowed');
    const online = given(registered, profile, doc('ID_FRONT'), doc('LICENSE'), submitted, approved, {
      type: 'DriverWentOnline',
      data: { driverId: 1, at: now.toISOString() },
    });
    expect(when(online, { type: 'SetOnline', online: true, allowed: true })).toEqual([]);
    const [suspended] = when(online, { type: 'SuspendDriver', adminId: 2, reason: 'x' });
    expect(evolve(online, suspended)).toMatchObject({ status: 'SUSPENDED', isOnline: false });
    expect(errorOf(() => when(initialState, { type: 'SetOnline', online: false, allowed: true }))).toBe(
      'DriverNotFound',
    );
  });
});
