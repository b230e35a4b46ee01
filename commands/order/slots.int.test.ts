import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStream } from '../../domain/order/events.js';
import { driverSlot, slotDecider } from '../../domain/order/slots.js';
import { createLogger } from '../../infra/logger.js';
import { streamsOnEmbedded, type StreamsUnderTest } from '../../tests/support/streams.js';
import { createHandle, loadState } from '../handle.js';
import { driverSlotFor } from './slots.js';

/**
 * A slot taken through the state cache: two instances share the log, each with its own cache. What one
 * instance cached can be stale once the other moved the slot; a stale slot must never pass for ours, nor
 * refuse a taker, without being read again.
 */

let t: StreamsUnderTest;
let n = 0;
const clock = { now: () => new Date() };
const logger = createLogger('silent');

beforeAll(async () => {
  t = await streamsOnEmbedded();
});
afterAll(() => t.close());

const instance = () => ({ store: t.store, handle: createHandle(t.store), clock, logger });
const holderOf = async (driverId: number) =>
  (await loadState(t.store, driverSlot(driverId), slotDecider)).state.orderId;

describe("a driver's slot taken on a cached state", () => {
  it('a slot cached as ours but released elsewhere is read again and taken', async () => {
    const driverId = 9000 + ++n;
    const [a, b] = [instance(), instance()];
    await driverSlotFor(a, driverId, 10).take();
    await driverSlotFor(b, driverId, 10).release();
    expect(await holderOf(driverId)).toBeNull();

    await driverSlotFor(a, driverId, 10).take();

    expect(await holderOf(driverId)).toBe(10);
  });

  it('a slot cached as held by a live order but freed elsewhere is read again, not refused', async () => {
    const driverId = 9000 + ++n;
    const [a, b] = [instance(), instance()];
    await driverSlotFor(a, driverId, 20).take();
    await driverSlotFor(b, driverId, 20).release();

    await driverSlotFor(a, driverId, 21).take();

    expect(await holderOf(driverId)).toBe(21);
  });

  it('a slot held by an order still in flight elsewhere is refused after reading it', async () => {
    const driverId = 9000 + ++n;
    const [a, b] = [instance(), instance()];
    await driverSlotFor(a, driverId, 30).take();
    await driverSlotFor(b, driverId, 30).release();
    await driverSlotFor(b, driverId, 31).take();
    t.resetReads();

    await expect(driverSlotFor(a, driverId, 32).take()).rejects.toMatchObject({ code: 'Conflict' });

    expect(t.readsOf(driverSlot(driverId))).toBeGreaterThan(0);
    expect(t.readsOf(orderStream(31))).toBeGreaterThan(0);
    expect(await holderOf(driverId)).toBe(31);
  });
});
