import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditDecider } from '../domain/credit/credit.js';
import { DomainError } from '../domain/errors.js';
import type { CreateOrder, OrderCommand } from '../domain/order/commands.js';
import { orderDecider } from '../domain/order/order.js';
import { spec } from '../tests/support/deciderSpec.js';
import { adjustCreditCommand } from '../tests/support/creditCommands.js';
import { streamsOnEmbedded, type StreamsUnderTest } from '../tests/support/streams.js';
import { createHandle, type Appended, type Handle, type Reservation } from './handle.js';
import { derivedEventIds } from './origin.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../tests/support/orderCommands.js';

/** The one command handler against a real event store (a test database of the embedded PostgreSQL). */

const at = (minutes: number) => new Date(Date.parse('2030-01-01T12:00:00Z') + minutes * 60_000);
let t: StreamsUnderTest;
let handle: Handle;
let n = 0;
const fresh = (prefix: string) => `${prefix}-${++n}`;

beforeAll(async () => {
  t = await streamsOnEmbedded();
  handle = createHandle(t.store);
});
afterAll(() => t.close());

const adjust = (amountCents: number) => adjustCreditCommand(amountCents, at(0));

const create: CreateOrder = createOrderCommand(1, at(0));
const bid = (offerId: number, driverId: number) => placeOfferCommand(offerId, driverId, at(1));
const accept = (offerId: number) => acceptOfferCommand(offerId, at(2));
const orderHistory = (...commands: OrderCommand[]) => spec(orderDecider).history(commands);

describe('the one command handler', () => {
  it(
    'reads the stream once, decides, appends, and returns ' + 'the events with their ids and the state after them',
    async () => {
      const stream = fresh('credit');
      await t.existingStream(stream, [
        { type: 'CreditAdjusted', data: creditDecider.decide(adjust(100), creditDecider.initialState)[0].data },
      ]);
      t.resetReads();
      const r = await handle(creditDecider, stream, adjust(250), { metadata: { actor: { id: 1, role: 'ADMIN' } } });
      expect(t.readsOf(stream)).toBe(1);
      expect(r.position).toBeGreaterThan(0);
      expect(r.version).toBe(2);
      expect(r.events).toMatchObject([
        { type: 'CreditAdjusted', data: { amountCents: 250, balanceAfterCents: 350 }, eventId: expect.any(String) },
      ]);
      expect(r.state.balances.ANY).toBe(350);
      await t.expectNewEvents(stream, [{ type: 'CreditAdjusted', data: { amountCents: 250 } }]);
    },
  );

  it(
    'decides on a stream the caller already read without reading ' +
      'it again; a stale one is read again and decided again',
    async () => {
      const stream = fresh('credit');
      const first = await handle(creditDecider, stream, adjust(100));
      t.resetReads();
      await handle(creditDecider, stream, adjust(50), { loaded: first });
      expect(t.readsOf(stream)).toBe(0);
      // `first` is now one event behind: the append conflicts, the handler reads and decides on the real state.
      const late = await handle(creditDecider, stream, adjust(25), { loaded: first });
      expect(t.readsOf(stream)).toBe(1);
      expect(late.state.balances.ANY).toBe(175);
      await t.expectNewEvents(stream, [
        { type: 'CreditAdjusted' },
        { type: 'CreditAdjusted' },
        { type: 'CreditAdjusted', data: { balanceAfterCents: 175 } },
      ]);
    },
  );

  it(
    'runs access checks and no-ops in the command on the loaded ' +
      'state: a thrown error appends nothing, null decides nothing',
    async () => {
      const stream = fresh('credit');
      await expect(
        handle(creditDecider, stream, () => {
          throw new DomainError('forbidden', 'Forbidden', 'not yours');
        }),
      ).rejects.toMatchObject({ code: 'Forbidden' });
      const nothing = await handle(creditDecider, stream, () => null);
      expect(nothing).toMatchObject({ position: 0, events: [], version: 0 });
      await t.expectNewEvents(stream, []);
    },
  );

  it('of two concurrent accepts of one order exactly one wins; the other decides again and is refused', async () => {
    const stream = fresh('order');
    await t.existingStream(stream, orderHistory(create, bid(10, 21), bid(11, 22)));
    const results = await Promise.allSettled([
      handle(orderDecider, stream, accept(10)),
      handle(orderDecider, stream, accept(11)),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'Conflict' });
    await t.expectNewEvents(stream, [{ type: 'OfferAccepted' }]);
  });

  it('appends nothing for a redelivered cause: the derived event ids are already stored', async () => {
    const stream = fresh('credit');
    const ids = derivedEventIds({ eventId: '00000000-0000-4000-8000-000000000001' }, 'credit');
    const once = await handle(creditDecider, stream, adjust(100), { eventIds: ids });
    const again = await handle(creditDecider, stream, adjust(100), { eventIds: ids });
    expect(again.events[0].eventId).toBe(once.events[0].eventId);
    await t.expectNewEvents(stream, [{ type: 'CreditAdjusted' }]);
  });

  it(
    'takes its reservations once the decision has events, ' + 'before the append; a refused decision takes none',
    async () => {
      const stream = fresh('order');
      await t.existingStream(stream, orderHistory(create, bid(10, 21)));
      const log: string[] = [];
      const slot = (name: string): Reservation => ({
        take: async () => void log.push(`take ${name}`),
        release: async () => void log.push(`release ${name}`),
      });
      await expect(handle(orderDecider, stream, accept(99), { reservations: [slot('driver')] })).rejects.toBeInstanceOf(
        DomainError,
      );
      expect(log).toEqual([]);
      await handle(orderDecider, stream, accept(10), { reservations: [slot('driver'), slot('customer')] });
      expect(log).toEqual(['take driver', 'take customer']);
    },
  );

  it(
    'gives back what it took, in reverse order, when the ' + 'command then fails; a refused reservation is the answer',
    async () => {
      const stream = fresh('credit');
      const log: string[] = [];
      const free = (name: string): Reservation => ({
        take: async () => void log.push(`take ${name}`),
        release: async () => void log.push(`release ${name}`),
      });
      const held: Reservation = {
        take: async () => {
          throw new DomainError('conflict', 'ActiveOrderExists', 'held');
        },
        release: async () => void log.push('release held'),
      };
      await expect(
        handle(creditDecider, stream, adjust(100), { reservations: [free('driver'), free('customer'), held] }),
      ).rejects.toMatchObject({ code: 'ActiveOrderExists' });
      expect(log).toEqual(['take driver', 'take customer', 'release customer', 'release driver']);
      await t.expectNewEvents(stream, []);
    },
  );

  it(
    'runs the reactions registered for the stream category ' + 'on the events it appended and the state it decided',
    async () => {
      const own = createHandle(t.store);
      const seen: { events: Appended[]; known: string[] }[] = [];
      own.register({
        name: 'credit-follower',
        categories: ['credit'],
        react: async (events, known) => (seen.push({ events, known: known.map(([id]) => id) }), 0),
      });
      const stream = fresh('credit');
      const handled = await own(creditDecider, stream, adjust(100), {
        read: [['order-1', { state: null, version: 0 }]],
      });
      expect(seen).toEqual([{ events: [{ ...handled.events[0], streamId: stream }], known: [stream, 'order-1'] }]);
      await own(orderDecider, fresh('order'), create);
      await own(creditDecider, stream, () => null);
      await own(creditDecider, stream, adjust(5), { react: false });
      expect(seen).toHaveLength(1);
    },
  );
});
