import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES } from '../order/events.js';
import { claimConflictOf, isAppMember, isWithinWindow, roomIdOfChannel } from './rules.js';

describe('chat rules', () => {
  const order = { client_id: 10, driver_id: 7 };
  const client = { id: 10, role: 'CLIENT' as const };
  const driver = { id: 33, role: 'DRIVER' as const, driverId: 7 };
  const otherDriver = { id: 34, role: 'DRIVER' as const, driverId: 8 };
  const admin = { id: 10, role: 'ADMIN' as const };

  it('makes the client and the assigned driver (by profile id) members of the rooms of their role', () => {
    expect(isAppMember('ORDER_CLIENT_DRIVER', order, client)).toBe(true);
    expect(isAppMember('ORDER_CLIENT_DRIVER', order, driver)).toBe(true);
    expect(isAppMember('ORDER_ADMIN_SUPPORT', order, driver)).toBe(true);
    expect(isAppMember('ORDER_ADMIN_SUPPORT', order, client)).toBe(false);
    expect(isAppMember('ORDER_ADMIN_CLIENT_SUPPORT', order, client)).toBe(true);
    expect(isAppMember('ORDER_ADMIN_CLIENT_SUPPORT', order, driver)).toBe(false);
    expect(isAppMember('ORDER_CLIENT_DRIVER', order, otherDriver)).toBe(false);
    // An admin whose id equals the client's user id is still not the client.
    expect(isAppMember('ORDER_CLIENT_DRIVER', order, admin)).toBe(false);
    // No driver assigned yet: a driver without a profile is not a member either.
    expect(
      isAppMember('ORDER_CLIENT_DRIVER', { client_id: 10, driver_id: null }, { id: 1, role: 'DRIVER', driverId: null }),
    ).toBe(false);
  });

  it(
    'opens client-driver rooms from CONFIRMED through DELIVERED ' +
      'and support rooms from WAITING_FOR_PAYMENT through ARRIVED',
    () => {
      const statuses = ORDER_STATUSES;
      expect(statuses.filter((s) => isWithinWindow('ORDER_CLIENT_DRIVER', s))).toEqual([
        'CONFIRMED',
        'IN_PROGRESS',
        'ARRIVED',
        'DELIVERED',
      ]);
      for (const type of ['ORDER_ADMIN_SUPPORT', 'ORDER_ADMIN_CLIENT_SUPPORT']) {
        expect(statuses.filter((s) => isWithinWindow(type, s))).toEqual([
          'WAITING_FOR_PAYMENT',
          'CONFIRMED',
          'IN_PROGRESS',
          'ARRIVED',
        ]);
      }
    },
  );

  it('tells a lost race (claimed by another within the race window) from a room already taken', () => {
    const now = new Date('2026-01-01T10:00:00.000Z');
    const claimed = (by: number, at: string) => ({
      support_state: 'claimed',
      assigned_admin_id: by,
      claimed_at: new Date(at),
    });
    expect(
      claimConflictOf({ support_state: 'pool', assigned_admin_id: null, claimed_at: null }, 1, now, 5000),
    ).toBeNull();
    expect(claimConflictOf(claimed(1, '2026-01-01T09:00:00.000Z'), 1, now, 5000)).toBeNull();
    expect(claimConflictOf(claimed(2, '2026-01-01T09:59:55.001Z'), 1, now, 5000)).toBe('lost_race');
    expect(claimConflictOf(claimed(2, '2026-01-01T10:00:00.000Z'), 1, now, 5000)).toBe('lost_race');
    expect(claimConflictOf(claimed(2, '2026-01-01T09:59:55.000Z'), 1, now, 5000)).toBe('claimed_by_other');
  });

  it('reads the room id of a channel name', () => {
    expect(roomIdOfChannel('chat.rooms.42')).toBe(42);
    for (const c of ['chat.rooms.0', 'chat.rooms.abc', 'chat.rooms.4.2', 'chat.rooms.', 'notifications.42'])
      expect(roomIdOfChannel(c)).toBeNull();
  });
});
