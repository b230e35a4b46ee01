import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStream } from '../../domain/order/events.js';
import { driverSlot, slotDecider } from '../../domain/order/slots.js';
import { streamsOnEmbedded, type StreamsUnderTest } from '../../tests/support/streams.js';
import { createHandle, loadState } from '../handle.js';
import { orderDecider } from '../../domain/order/order.js';
import { spec } from '../../tests/support/deciderSpec.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../../tests/support/orderCommands.js';
import { driverSlotFor } from './slots.js';

/**
 * A slot taken through the state cache: two instances share the log, each with its own cache. What one
 * instance cached can be stale once the other moved the slot; a stale slot must never pass for ours, nor
 * refuse a taker, without being read again.
 */

let t: StreamsUnderTest;
let n = 0;
const clock = { now: () => new Date() };

beforeAll(async () => {
  t = await streamsOnEmbedded();
});
afterAll(() => t.close());

const instance = () => ({ store: t.store, handle: createHandle(t.store), clock });
const holderOf = async (driverId: number) =>
  (await loadState(t.store, driverSlot(driverId), slotDecider)).state.orderId;

const at = (minutes: number) => new Date(Date.parse('2030-01-01T12:00:00Z') + minutes * 60_000);
/** An order assigned to the driver: it holds the driver's slot until it ends. */
const assigned = (orderId: number, driverId: number) =>
  t.existingStream(
    orderStream(orderId),
    spec(orderDecider).history([
      createOrderCommand(orderId, at(0)),
      placeOfferCommand(100 + orderId, driverId, at(1)),
      acceptOfferCommand(100 + orderId, at(2)),
    ]),
  );

describe("a driver's slot taken on a cached state", () => {
  it('a slot cached as ours but taken elsewhere since is read again and taken back', async () => {
    const driverId = 9000 + ++n;
    const [a, b] = [instance(), instance()];
    await driverSlotFor(a, driverId, 10).take();
    // Order 10 was never stored (its command would have stored it with the slot): b finds the slot free.
    await driverSlotFor(b, driverId, 11).take();
    expect(await holderOf(driverId)).toBe(11);

    await driverSlotFor(a, driverId, 10).take();

    expect(await holderOf(driverId)).toBe(10);
  });

  it('a slot held by a live order elsewhere is refused after reading it, however the cache judged it', async () => {
    const driverId = 9000 + ++n;
    const [a, b] = [instance(), instance()];
    await driverSlotFor(a, driverId, 30).take();
    await assigned(31, driverId);
    await driverSlotFor(b, driverId, 31).take();
    t.resetReads();

    await expect(driverSlotFor(a, driverId, 32).take()).rejects.toMatchObject({ code: 'Conflict' });

    expect(t.readsOf(driverSlot(driverId))).toBeGreaterThan(0);
    expect(await holderOf(driverId)).toBe(31);
  });
});
