import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditDecider } from '../domain/credit/credit.js';
import { DomainError } from '../domain/errors.js';
import type { CreateOrder, OrderCommand } from '../domain/order/commands.js';
import { orderDecider } from '../domain/order/order.js';
import { spec } from '../tests/support/deciderSpec.js';
import { adjustCreditCommand } from '../tests/support/creditCommands.js';
import { streamsOnEmbedded, type StreamsUnderTest } from '../tests/support/streams.js';
import { createHandle, type Appended, type Handle, type Loaded, type Reservation } from './handle.js';
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

  it('writes the rows sent alongside in the append of a decision with events, and for no other decision', async () => {
    const stream = fresh('credit');
    const seen: number[] = [];
    // What the write sees of its stream inside its transaction: the events it is appended with.
    const alongside = [
      async (client: { query: (sql: string, p?: unknown[]) => Promise<{ rows: { n: number }[] }> }) => {
        const { rows } = await client.query('SELECT count(*)::int AS n FROM events WHERE stream_id = $1', [stream]);
        seen.push(rows[0].n);
      },
    ];
    await handle(creditDecider, stream, adjust(100), { alongside });
    expect(seen).toEqual([1]);
    await expect(handle(creditDecider, stream, adjust(-500), { alongside })).rejects.toBeInstanceOf(DomainError);
    await handle(creditDecider, stream, () => null, { alongside });
    expect(seen).toEqual([1]);
    const refusal = new Error('refused alongside');
    await expect(handle(creditDecider, stream, adjust(5), { alongside: [() => Promise.reject(refusal)] })).rejects.toBe(
      refusal,
    );
    await t.expectNewEvents(stream, [{ type: 'CreditAdjusted', data: { amountCents: 100 } }]);
  });

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
    'takes its reservations once the decision has events, ' + 'in the same append; a refused decision takes none',
    async () => {
      const stream = fresh('order');
      await t.existingStream(stream, orderHistory(create, bid(10, 21)));
      const log: string[] = [];
      const slot = (name: string): Reservation => ({ take: async () => void log.push(`take ${name}`) });
      await expect(handle(orderDecider, stream, accept(99), { reservations: [slot('driver')] })).rejects.toBeInstanceOf(
        DomainError,
      );
      expect(log).toEqual([]);
      await handle(orderDecider, stream, accept(10), { reservations: [slot('driver'), slot('customer')] });
      expect(log).toEqual(['take driver', 'take customer']);
    },
  );

  it('stores nothing of a command whose reservation is refused: not its decision, not what it already took', async () => {
    const stream = fresh('credit');
    const taken = fresh('credit');
    const takes = (streamId: string): Reservation => ({
      take: async () => void (await handle(creditDecider, streamId, adjust(1))),
    });
    const held: Reservation = {
      take: async () => {
        throw new DomainError('conflict', 'ActiveOrderExists', 'held');
      },
    };
    await expect(
      handle(creditDecider, stream, adjust(100), { reservations: [takes(taken), held] }),
    ).rejects.toMatchObject({ code: 'ActiveOrderExists' });
    await t.expectNewEvents(stream, []);
    await t.expectNewEvents(taken, []);
  });

  it('appends what the command and its reservations decided on every stream in one append, read by none twice', async () => {
    const stream = fresh('credit');
    const other = fresh('credit');
    const appends: string[][] = [];
    const counting = Object.assign(Object.create(t.store) as typeof t.store, {
      appendToStreams: (batch: Parameters<typeof t.store.appendToStreams>[0]) => {
        appends.push(batch.map((a) => a.streamId));
        return t.store.appendToStreams(batch);
      },
    });
    const own = createHandle(counting);
    const takes: Reservation = { take: async () => void (await own(creditDecider, other, adjust(7))) };
    const handled = await own(creditDecider, stream, adjust(100), { reservations: [takes] });
    expect(appends).toEqual([[stream, other]]);
    expect(handled.position).toBe((await t.store.readStream(other))[0].globalPosition);
    await t.expectNewEvents(stream, [{ type: 'CreditAdjusted', data: { amountCents: 100 } }]);
    await t.expectNewEvents(other, [{ type: 'CreditAdjusted', data: { amountCents: 7 } }]);
  });

  it('runs the whole command again when a stream it joined moved on meanwhile, and stores it once', async () => {
    const stream = fresh('credit');
    const other = fresh('credit');
    await handle(creditDecider, other, adjust(1));
    let runs = 0;
    const takes: Reservation = {
      take: async () => {
        runs++;
        // Another instance appends to the joined stream between this command's read and its append.
        if (runs === 1) await createHandle(t.store)(creditDecider, other, adjust(2));
        await handle(creditDecider, other, adjust(3));
      },
    };
    await handle(creditDecider, stream, adjust(100), { reservations: [takes] });
    expect(runs).toBe(2);
    await t.expectNewEvents(stream, [{ type: 'CreditAdjusted', data: { amountCents: 100 } }]);
    await t.expectNewEvents(other, [
      { type: 'CreditAdjusted', data: { amountCents: 1 } },
      { type: 'CreditAdjusted', data: { amountCents: 2 } },
      { type: 'CreditAdjusted', data: { amountCents: 3, balanceAfterCents: 6 } },
    ]);
  });

  it('reruns a command whose reaction decided on a stale stream the caller read, from fresh reads', async () => {
    const own = createHandle(t.store);
    const other = fresh('credit');
    own.register({
      name: 'follows-the-read',
      categories: ['credit'],
      react: async (events, known) => {
        if (events[0].streamId === other) return;
        const read = known.find(([id]) => id === other)?.[1] as Loaded<typeof creditDecider.initialState> | undefined;
        await own(creditDecider, other, adjust(3), { loaded: read, react: false });
      },
    });
    const staleRead = await own(creditDecider, other, adjust(1));
    await own(creditDecider, other, adjust(2));
    const stream = fresh('credit');
    await own(creditDecider, stream, adjust(100), { read: [[other, staleRead]] });
    await t.expectNewEvents(other, [
      { type: 'CreditAdjusted', data: { amountCents: 1 } },
      { type: 'CreditAdjusted', data: { amountCents: 2 } },
      { type: 'CreditAdjusted', data: { amountCents: 3, balanceAfterCents: 6 } },
    ]);
  });

  it('takes back what a failing inline reaction added, and the command stands', async () => {
    const own = createHandle(t.store);
    const joined = fresh('credit');
    own.register({
      name: 'half-way',
      categories: ['credit'],
      react: async (events) => {
        if (events[0].streamId === joined) return;
        await own(creditDecider, joined, adjust(9), { react: false });
        throw new Error('the reaction broke half-way');
      },
    });
    const stream = fresh('credit');
    await own(creditDecider, stream, adjust(100));
    await t.expectNewEvents(stream, [{ type: 'CreditAdjusted' }]);
    await t.expectNewEvents(joined, []);
  });

  it(
    'runs the reactions registered for the stream category ' + 'on the events it appended and the state it decided',
    async () => {
      const own = createHandle(t.store);
      const seen: { events: Appended[]; known: string[] }[] = [];
      own.register({
        name: 'credit-follower',
        categories: ['credit'],
        react: async (events, known) => void seen.push({ events, known: known.map(([id]) => id) }),
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
