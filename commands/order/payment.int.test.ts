import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateOrder, OrderCommand } from '../../domain/order/commands.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { ManualClock } from '../../infra/clock.js';
import { spec } from '../../tests/support/deciderSpec.js';
import { streamsOnEmbedded, type StreamsUnderTest } from '../../tests/support/streams.js';
import type { CommandDeps } from '../deps.js';
import { createHandle } from '../handle.js';
import { confirmPayment } from './payment.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../../tests/support/orderCommands.js';

/** The order's side of payments, as the payments area calls it, against a real event store (a test database of the embedded PostgreSQL). */

const clock = new ManualClock('2026-01-01T12:05:00Z');
const at = (minutes: number) => new Date(Date.parse('2026-01-01T12:00:00Z') + minutes * 60_000);
const create: CreateOrder = createOrderCommand(1, at(0), {
  waterPriceCents: 1005,
  paymentMethod: 'PAYPROV_DI',
  deliveryPin: '4821',
  cityId: 1,
});
const waiting: OrderCommand[] = [create, placeOfferCommand(100, 21, at(1)), acceptOfferCommand(100, at(2))];

let t: StreamsUnderTest;
let ctx: Pick<CommandDeps, 'handle' | 'clock'>;
beforeAll(async () => {
  t = await streamsOnEmbedded();
  ctx = { handle: createHandle(t.store), clock };
});
afterAll(() => t?.close());

describe('confirmPayment', () => {
  it(
    'confirms a waiting order once: a repeated confirmation of ' +
      'the same payment appends nothing and answers position 0',
    async () => {
      await t.existingStream(orderStream(1), spec(orderDecider).history(waiting));
      const first = await confirmPayment(ctx, 1, 77);
      expect(first.position).toBeGreaterThan(0);
      expect(first.state).toMatchObject({ status: 'CONFIRMED', paidPaymentId: 77 });
      expect((await confirmPayment(ctx, 1, 77)).position).toBe(0);
      await t.expectNewEvents(orderStream(1), [
        { type: 'OrderPaid', data: { orderId: 1, paymentId: 77, paidAt: clock.now().toISOString() } },
      ]);
    },
  );
});
