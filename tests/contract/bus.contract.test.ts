import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createInProcessBus } from '../../infra/bus/inProcessBus.js';
import { connectNatsBus } from '../../infra/bus/natsBus.js';
import { subjectMatches, type Bus, type BusMessage } from '../../infra/bus/port.js';

/** A way to open buses that share one message space (one NATS prefix; one process for in-process). */
interface BusWorld {
  connect(): Promise<Bus>;
}

/**
 * Records what a subscription receives; `waitFor(n)` resolves once n messages arrived. The timeout only
 * turns a hang into a readable failure.
 */
const listen = (bus: Bus, pattern: string) => {
  const messages: BusMessage[] = [];
  const waiters = new Set<() => void>();
  const subscription = bus.subscribe(pattern, (m) => {
    messages.push(m);
    for (const w of waiters) w();
    waiters.clear();
  });
  return {
    messages,
    subscription,
    async waitFor(n: number, timeoutMs = 10_000) {
      await bus.flush();
      const deadline = Date.now() + timeoutMs;
      while (messages.length < n) {
        if (Date.now() > deadline) throw new Error(`${pattern} received ${messages.length} of ${n} messages`);
        await new Promise<void>((resolve) => {
          waiters.add(resolve);
          setTimeout(resolve, 100);
        });
      }
      return messages.slice();
    },
  };
};

/** The one contract both bus adapters pass. */
const busContract = (world: BusWorld) => {
  const open: Bus[] = [];
  const connect = async () => {
    const bus = await world.connect();
    open.push(bus);
    return bus;
  };
  afterAll(async () => {
    await Promise.all(open.map((b) => b.close()));
  });
  const root = () => `r${randomBytes(4).toString('hex')}`;

  /**
   * Publishes a sentinel after `act` on a subject the test listens to: once it arrives, everything
   * published before it has been routed, so what did not arrive will not.
   */
  const settled = async (bus: Bus, r: string, act: () => Promise<void>) => {
    const sentinel = listen(bus, `${r}.sentinel`);
    await act();
    await bus.publish(`${r}.sentinel`, { done: true });
    await sentinel.waitFor(1);
    sentinel.subscription.unsubscribe();
  };

  it('delivers to an exact subject and round-trips the payload', async () => {
    const bus = await connect();
    const r = root();
    const got = listen(bus, `${r}.orders.created`);
    const payload = {
      id: 7,
      text: 'eau potable — 1 000 L ✓',
      cents: 123_456,
      ok: false,
      none: null,
      list: [1, 'two', { three: 3 }],
    };
    await bus.publish(`${r}.orders.created`, payload);
    const [m] = await got.waitFor(1);
    expect(m).toEqual({ subject: `${r}.orders.created`, data: payload });
  });

  it('matches * against exactly one token', async () => {
    const bus = await connect();
    const r = root();
    const got = listen(bus, `${r}.orders.*.created`);
    await settled(bus, r, async () => {
      for (const s of [
        'orders.1.created',
        'orders.1.2.created',
        'orders.created',
        'orders.1.updated',
        'orders.2.created',
      ]) {
        await bus.publish(`${r}.${s}`, s);
      }
    });
    expect(got.messages.map((m) => m.subject)).toEqual([`${r}.orders.1.created`, `${r}.orders.2.created`]);
  });

  it('matches > against one or more trailing tokens', async () => {
    const bus = await connect();
    const r = root();
    const got = listen(bus, `${r}.orders.>`);
    await settled(bus, r, async () => {
      for (const s of ['orders', 'orders.1', 'orders.1.created', 'other.1']) await bus.publish(`${r}.${s}`, s);
    });
    expect(got.messages.map((m) => m.data)).toEqual(['orders.1', 'orders.1.created']);
  });

  it('delivers to every matching subscription', async () => {
    const bus = await connect();
    const r = root();
    const exact = listen(bus, `${r}.chat.9`);
    const star = listen(bus, `${r}.chat.*`);
    const rest = listen(bus, `${r}.>`);
    await bus.publish(`${r}.chat.9`, { text: 'hi' });
    for (const l of [exact, star, rest]) expect((await l.waitFor(1))[0].data).toEqual({ text: 'hi' });
  });

  it('stops delivery to a subscription once it unsubscribes', async () => {
    const bus = await connect();
    const r = root();
    const got = listen(bus, `${r}.news`);
    await bus.publish(`${r}.news`, 1);
    await got.waitFor(1);
    got.subscription.unsubscribe();
    await settled(bus, r, () => bus.publish(`${r}.news`, 2));
    expect(got.messages.map((m) => m.data)).toEqual([1]);
  });

  it('keeps the order of one publisher', async () => {
    const bus = await connect();
    const r = root();
    const got = listen(bus, `${r}.seq.*`);
    for (let i = 0; i < 500; i++) await bus.publish(`${r}.seq.${i % 3}`, i);
    const all = await got.waitFor(500);
    expect(all.map((m) => m.data)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  it('keeps delivering to others when one handler throws', async () => {
    const bus = await connect();
    const r = root();
    bus.subscribe(`${r}.x`, () => {
      throw new Error('subscriber bug');
    });
    const got = listen(bus, `${r}.x`);
    await bus.publish(`${r}.x`, 1);
    await bus.publish(`${r}.x`, 2);
    expect((await got.waitFor(2)).map((m) => m.data)).toEqual([1, 2]);
  });

  it('delivers nothing once closed, and refuses to publish', async () => {
    const closing = await world.connect();
    const r = root();
    const got = listen(closing, `${r}.>`);
    for (let i = 0; i < 50; i++) await closing.publish(`${r}.before`, i);
    await closing.close();
    const atClose = got.messages.length;
    await expect(closing.publish(`${r}.after`, 1)).rejects.toThrow();

    // Another bus of the same world publishes to that subject; once it sees its own message, so would
    // the closed one have.
    const other = await connect();
    await settled(other, r, () => other.publish(`${r}.after`, 2));
    expect(got.messages.length).toBe(atClose);
  });
};

describe('Bus contract: in-process', () => {
  busContract({ connect: async () => createInProcessBus() });
});

describe.skipIf(!process.env.NATS_URL)('Bus contract: NATS', () => {
  const prefix = `t${randomBytes(5).toString('hex')}`;
  busContract({ connect: () => connectNatsBus(process.env.NATS_URL!, prefix) });
});

describe('subjectMatches', () => {
  it.each([
    ['a.b.c', 'a.b.c', true],
    ['a.b.c', 'a.b', false],
    ['a.b', 'a.b.c', false],
    ['a.*.c', 'a.b.c', true],
    ['a.*.c', 'a.b.x.c', false],
    ['a.*', 'a', false],
    ['*', 'a', true],
    ['*', 'a.b', false],
    ['a.>', 'a.b', true],
    ['a.>', 'a.b.c.d', true],
    ['a.>', 'a', false],
    ['>', 'a.b', true],
    ['a.*.>', 'a.b.c', true],
    ['a.*.>', 'a.b', false],
    ['a.b', 'a.c', false],
  ])('%s matches %s: %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});
