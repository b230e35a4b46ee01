import { describe, expect, it } from 'vitest';
import { spec } from '../../tests/support/deciderSpec.js';
import type { OrderCommand } from './commands.js';
import { orderDecider, type Order } from './order.js';
import { holdsCustomer, holdsDriver, slotDecider } from './slots.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../../tests/support/orderCommands.js';

/** One active order per customer and per driver: the slot stream's decider and who still holds a slot. */

const at = (minutes: number) => new Date(Date.parse('2026-01-01T12:00:00Z') + minutes * 60_000);
const taken = (orderId: number, minutes = 0) => ({
  type: 'OrderSlotTaken' as const,
  data: { orderId, at: at(minutes).toISOString() },
});

describe('the slot stream', () => {
  const slots = spec(slotDecider);

  it('is taken from a free slot, or over the holder the taker judged no longer holding it', () => {
    slots
      .given()
      .when({ type: 'TakeSlot', orderId: 1, holder: null, at: at(0).toISOString() })
      .then([taken(1)]);
    slots
      .given(taken(1))
      .when({ type: 'TakeSlot', orderId: 2, holder: 1, at: at(1).toISOString() })
      .then([taken(2, 1)]);
  });

  it('taken again by its holder changes nothing', () => {
    slots
      .given(taken(1))
      .when({ type: 'TakeSlot', orderId: 1, holder: null, at: at(1).toISOString() })
      .thenNothing();
  });

  it('refuses a taker whose judged holder is no longer the one named (the slot changed hands meanwhile)', () => {
    slots
      .given(taken(1), taken(2))
      .when({ type: 'TakeSlot', orderId: 3, holder: 1, at: at(2).toISOString() })
      .thenThrows('Conflict');
  });

  it('folds an OrderSlotReleased of its holder (appended by an earlier design) as free', () => {
    expect(
      slots.given(taken(1), { type: 'OrderSlotReleased', data: { orderId: 1, at: at(1).toISOString() } }).state(),
    ).toEqual({ orderId: null, takenAt: null });
  });
});

const create = createOrderCommand(1, at(0));
/** Each driver bids with offer 10 + driverId. */
const bid = (driverId: number) => placeOfferCommand(10 + driverId, driverId, at(1));
const accept = (driverId: number) => acceptOfferCommand(10 + driverId, at(2));
const orderAfter = (...commands: OrderCommand[]) =>
  spec(orderDecider)
    .givenCommands(...commands)
    .state() as Order;

const broadcasting = orderAfter(create);
const assignedTo21 = orderAfter(create, bid(21), accept(21));
const cancelled = orderAfter(create, {
  type: 'CancelOrder',
  actor: { role: 'CLIENT', userId: 7 },
  reasonCode: null,
  reason: null,
  now: at(3),
});

describe('who holds a customer slot', () => {
  it('an order holds its client until it ends', () => {
    expect(holdsCustomer(broadcasting)).toBe(true);
    expect(holdsCustomer(assignedTo21)).toBe(true);
    expect(holdsCustomer(cancelled)).toBe(false);
  });

  it("a slot naming no stored order holds nothing (a slot is taken in its order command's own append)", () => {
    expect(holdsCustomer(null)).toBe(false);
  });
});

describe('who holds a driver slot', () => {
  it('an order assigned to the driver holds the driver from acceptance until it ends', () => {
    expect(holdsDriver(21)(assignedTo21)).toBe(true);
    const delivered = { ...assignedTo21, status: 'DELIVERED' } as Order;
    expect(holdsDriver(21)(delivered)).toBe(false);
  });

  it('an order assigned to another driver, or still bidding, does not hold it', () => {
    expect(holdsDriver(22)(assignedTo21)).toBe(false);
    expect(holdsDriver(21)(broadcasting)).toBe(false);
    expect(holdsDriver(21)(null)).toBe(false);
    expect(holdsDriver(21)(cancelled)).toBe(false);
  });
});
