import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditDecider } from '../domain/credit/credit.js';
import { conflict } from '../domain/errors.js';
import { orderDecider } from '../domain/order/order.js';
import { ConcurrencyError, type ExpectedRevision } from '../infra/eventStore/port.js';
import { adjustCreditCommand } from '../tests/support/creditCommands.js';
import { streamsOnEmbedded, type StreamsUnderTest } from '../tests/support/streams.js';
import { acceptOfferCommand, createOrderCommand, placeOfferCommand } from '../tests/support/orderCommands.js';
import { createHandle, type Handle } from './handle.js';

/**
 * The handler's state cache (commands/stateCache.ts) against a real event store. Two handlers on one store
 * stand for two instances of the service on one database: each caches what it appended, neither hears of
 * the other's appends. The appends are recorded with the revision they expected and how they ended, so a
 * test can show that a stale entry never became an append on an old revision.
 */

const at = (minutes: number) => new Date(Date.parse('2030-01-01T12:00:00Z') + minutes * 60_000);
let t: StreamsUnderTest;
let n = 0;
const fresh = (prefix: string) => `${prefix}-cache-${++n}`;
const appends: { streamId: string; expected: ExpectedRevision; outcome: 'appended' | 'conflict' }[] = [];

beforeAll(async () => {
  t = await streamsOnEmbedded();
  const append = t.store.appendToStreams.bind(t.store);
  t.store.appendToStreams = async (batch) => {
    const outcome = (o: 'appended' | 'conflict') =>
      batch.forEach((a) => appends.push({ streamId: a.streamId, expected: a.expectedRevision, outcome: o }));
    try {
      const r = await append(batch);
      outcome('appended');
      return r;
    } catch (err) {
      if (err instanceof ConcurrencyError) outcome('conflict');
      throw err;
    }
  };
});
afterAll(() => t.close());

const adjust = (amountCents: number) => adjustCreditCommand(amountCents, at(0));

const instances = (): [Handle, Handle] => [createHandle(t.store), createHandle(t.store)];

describe('the state cache of the one command handler', () => {
  it('decides on the state it appended, without reading the stream again', async () => {
    const [a] = instances();
    const stream = fresh('credit');
    await a(creditDecider, stream, adjust(100));
    t.resetReads();
    const second = await a(creditDecider, stream, adjust(50));
    const third = await a(creditDecider, stream, adjust(25));
    expect(t.readsOf(stream)).toBe(0);
    expect([second.state.balances.ANY, third.state.balances.ANY]).toEqual([150, 175]);
  });

  it(
    'on another instance a stale entry fails its append (wrong expected revision), is read again and ' +
      'the command decided on the real head: never an append on the old revision',
    async () => {
      const [a, b] = instances();
      const stream = fresh('credit');
      await a(creditDecider, stream, adjust(100)); // a caches revision 0
      await b(creditDecider, stream, adjust(50)); // the stream moves to revision 1; a does not hear of it
      appends.length = 0;
      t.resetReads();
      const late = await a(creditDecider, stream, adjust(25));
      expect(appends).toEqual([
        { streamId: stream, expected: 0, outcome: 'conflict' },
        { streamId: stream, expected: 1, outcome: 'appended' },
      ]);
      expect(t.readsOf(stream)).toBe(1);
      expect(late.state.balances.ANY).toBe(175);
      await t.expectNewEvents(stream, [
        { type: 'CreditAdjusted', data: { balanceAfterCents: 100 } },
        { type: 'CreditAdjusted', data: { balanceAfterCents: 150 } },
        { type: 'CreditAdjusted', data: { balanceAfterCents: 175 } },
      ]);
      // Its entry is the real head again: the next command reads nothing.
      t.resetReads();
      await a(creditDecider, stream, adjust(1));
      expect(t.readsOf(stream)).toBe(0);
    },
  );

  it('two instances writing one stream concurrently: every balance follows from the one before it', async () => {
    const [a, b] = instances();
    const stream = fresh('credit');
    await a(creditDecider, stream, adjust(1));
    await b(creditDecider, stream, adjust(1));
    const amounts = Array.from({ length: 24 }, (_, i) => 1 + ((i * 7) % 11));
    const results = await Promise.allSettled(
      amounts.map((cents, i) => (i % 2 === 0 ? a : b)(creditDecider, stream, adjust(cents), { attempts: 50 })),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const events = await t.store.readStream(stream);
    let balance = 0;
    for (const e of events) {
      const d = e.data as { amountCents: number; balanceAfterCents: number };
      balance += d.amountCents;
      expect(d.balanceAfterCents).toBe(balance);
    }
    expect(balance).toBe(2 + amounts.reduce((x, y) => x + y, 0));
  });

  it('a refusal decided on a cached state is not the answer: the stream is read and the command decided again', async () => {
    const [a, b] = instances();
    const stream = fresh('order');
    await a(orderDecider, stream, createOrderCommand(1, at(0))); // a caches the order with no offer
    await b(orderDecider, stream, placeOfferCommand(10, 21, at(1)));
    t.resetReads();
    const accepted = await a(orderDecider, stream, acceptOfferCommand(10, at(2)));
    expect(t.readsOf(stream)).toBe(1);
    expect(accepted.events).toMatchObject([{ type: 'OfferAccepted' }]);
  });

  it('nothing to do on a cached state is not the answer either: the stream is read and decided again', async () => {
    const [a, b] = instances();
    const stream = fresh('credit');
    await a(creditDecider, stream, adjust(100));
    await b(creditDecider, stream, adjust(50));
    // Only once the balance is 150 is there something to do; a's cache still says 100.
    const topUp = await a(creditDecider, stream, (s) => (s.balances.ANY === 150 ? adjust(1) : null));
    expect(topUp.state.balances.ANY).toBe(151);
  });

  it('load: a cached state that passes the check is not read; one that fails it is read and checked again', async () => {
    const [a, b] = instances();
    const stream = fresh('order');
    await a(orderDecider, stream, createOrderCommand(2, at(0)));
    const hasOffer = (s: Parameters<typeof orderDecider.evolve>[0]) => {
      if (!s?.offers[10]) throw conflict('Conflict', 'no such offer');
    };
    t.resetReads();
    expect(await a.load(orderDecider, stream)).toMatchObject({ version: 1, cached: true });
    expect(t.readsOf(stream)).toBe(0);
    await b(orderDecider, stream, placeOfferCommand(10, 21, at(1)));
    t.resetReads();
    const loaded = await a.load(orderDecider, stream, hasOffer);
    expect(t.readsOf(stream)).toBe(1);
    expect(loaded).toMatchObject({ version: 2 });
    expect(loaded.cached).toBeUndefined();
    await expect(b.load(orderDecider, fresh('order'), hasOffer)).rejects.toMatchObject({ code: 'Conflict' });
  });
});
