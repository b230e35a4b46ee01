import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { call, confirmedOrder } from '../support/orderFlows.js';
import { startInstanceBeside, startTestService, type TestService } from '../support/testService.js';

/**
 * Chat message POST → websocket receipt latency, with SOCKETS sockets connected across ROOMS client-driver
 * rooms (half of each room's sockets the client's, half the driver's). In each room one message at a time,
 * the next once every socket of the room has it; first one room at a time (latency without load), then
 * every room side by side. A sample is the time from just before the POST to one socket's receipt. Once on the embedded
 * default (embedded PostgreSQL, in-process bus); once on PostgreSQL + NATS with the sockets on a second instance (the message
 * crosses NATS), when those servers answer.
 */

const ROOMS = Number(process.env.BENCH_CHAT_ROOMS ?? 10);
const SOCKETS = Number(process.env.BENCH_CHAT_SOCKETS ?? 100);
const MESSAGES_PER_ROOM = Number(process.env.BENCH_CHAT_MESSAGES ?? 30);
const RECEIPT_TIMEOUT_MS = 10_000;
const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/test';
const DEFAULT_NATS = 'nats://127.0.0.1:4222';
// Every socket comes from this host and a room's sockets share two tokens: lift the per-address and per-user caps.
const ENV = {
  OFFICIAL_RATE_VES: '36.5',
  WS_MAX_SOCKETS_PER_IP: String(SOCKETS),
  WS_MAX_SOCKETS_PER_USER: String(SOCKETS),
};

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

interface Room {
  id: number;
  clientToken: string;
  sockets: WebSocket[];
}

const openSocket = (t: TestService, token: string, channel: string): Promise<WebSocket> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${t.port}/ws`, { headers: { authorization: `Bearer ${token}` } });
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ type: 'subscribe', channel })));
    const onFrame = (raw: WebSocket.RawData) => {
      const f = JSON.parse(raw.toString());
      if (f.channel !== channel) return;
      ws.off('message', onFrame);
      if (f.type === 'subscribed') resolve(ws);
      else reject(new Error(`subscribe ${channel}: ${JSON.stringify(f)}`));
    };
    ws.on('message', onFrame);
  });

/** `api` takes the POSTs; `gateway` holds the sockets (the same instance, or another one on the same bus). */
const connect = async (api: TestService, gateway: TestService): Promise<Room[]> =>
  Promise.all(
    Array.from({ length: ROOMS }, async (_, r) => {
      const f = await confirmedOrder(api);
      const resolved = await call(api).post(`/orders/${f.orderId}/chat-rooms`, f.client.token, {
        type: 'ORDER_CLIENT_DRIVER',
      });
      if (resolved.status !== 200) throw new Error(`resolve answered ${resolved.status}`);
      const id: number = resolved.body.room.id;
      const perRoom = Math.floor(SOCKETS / ROOMS) + (r < SOCKETS % ROOMS ? 1 : 0);
      const sockets = await Promise.all(
        Array.from({ length: perRoom }, (_, i) =>
          openSocket(gateway, i % 2 ? f.driver.token : f.client.token, `chat.rooms.${id}`),
        ),
      );
      return { id, clientToken: f.client.token, sockets };
    }),
  );

/** One message, sent to the room, timed until every socket of the room has it. */
const sendOne = async (api: TestService, room: Room, content: string, out: { receipts: number[]; posts: number[] }) => {
  let t0 = 0;
  const arrived = Promise.all(
    room.sockets.map(
      (ws) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`no receipt of "${content}" within ${RECEIPT_TIMEOUT_MS} ms`)),
            RECEIPT_TIMEOUT_MS,
          );
          const onFrame = (raw: WebSocket.RawData) => {
            const f = JSON.parse(raw.toString());
            if (f.event !== 'message.created' || f.data?.content !== content) return;
            out.receipts.push(performance.now() - t0);
            clearTimeout(timer);
            ws.off('message', onFrame);
            resolve();
          };
          ws.on('message', onFrame);
        }),
    ),
  );
  t0 = performance.now();
  const sent = await api.request('POST', `/api/v1/chat-rooms/${room.id}/messages`, {
    token: room.clientToken,
    body: { content },
  });
  out.posts.push(performance.now() - t0);
  if (sent.status !== 201) throw new Error(`send answered ${sent.status}: ${JSON.stringify(sent.body)}`);
  await arrived;
};

/** Every room sends MESSAGES_PER_ROOM messages, the rooms one after the other (senders = 1) or side by side. */
const measure = async (api: TestService, rooms: Room[], senders: 1 | 'all', tag: string) => {
  const out = { receipts: [] as number[], posts: [] as number[] };
  const roomRun = async (room: Room) => {
    for (let i = 0; i < MESSAGES_PER_ROOM; i++) await sendOne(api, room, `bench ${tag} ${room.id} ${i}`, out);
  };
  const started = performance.now();
  if (senders === 1) for (const room of rooms) await roomRun(room);
  else await Promise.all(rooms.map(roomRun));
  return { ...out, senders: senders === 1 ? 1 : rooms.length, seconds: (performance.now() - started) / 1000 };
};

const closeAll = (rooms: Room[]) =>
  Promise.all(
    rooms.flatMap((r) =>
      r.sockets.map((ws) => new Promise<void>((resolve) => (ws.once('close', () => resolve()), ws.close()))),
    ),
  );

const report = (label: string, rooms: Room[], r: Awaited<ReturnType<typeof measure>>) => {
  const rec = [...r.receipts].sort((a, b) => a - b);
  const post = [...r.posts].sort((a, b) => a - b);
  const sockets = rooms.reduce((n, room) => n + room.sockets.length, 0);
  console.log(
    `\n${label}, ${r.senders} sender(s) at a time: ${r.posts.length} messages, ${sockets} ` +
      `sockets in ${rooms.length} rooms, ${rec.length} receipts in ${r.seconds.toFixed(1)} s`,
  );
  console.log('                         p50 ms   p99 ms   max ms');
  console.log(
    `POST → socket receipt  ${percentile(rec, 50).toFixed(1).padStart(7)}  ` +
      `${percentile(rec, 99).toFixed(1).padStart(7)}  ${rec[rec.length - 1].toFixed(1).padStart(7)}`,
  );
  console.log(
    `POST response          ${percentile(post, 50).toFixed(1).padStart(7)}  ` +
      `${percentile(post, 99).toFixed(1).padStart(7)}  ${post[post.length - 1].toFixed(1).padStart(7)}`,
  );
};

const both = async (label: string, api: TestService, gateway: TestService) => {
  const rooms = await connect(api, gateway);
  try {
    report(label, rooms, await measure(api, rooms, 1, 'one'));
    report(label, rooms, await measure(api, rooms, 'all', 'all'));
  } finally {
    await closeAll(rooms);
  }
};

const withEnv = async <T>(vars: Record<string, string | undefined>, run: () => Promise<T>): Promise<T> => {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (v: Record<string, string | undefined>) => {
    for (const [k, val] of Object.entries(v))
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
  };
  set(vars);
  try {
    return await run();
  } finally {
    set(saved);
  }
};

export const run = async (): Promise<void> => {
  await withEnv({ DATABASE_URL: undefined, NATS_URL: undefined }, async () => {
    const t = await startTestService({ env: ENV });
    try {
      await both('embedded (temporary embedded PostgreSQL, in-process bus), one instance', t, t);
    } finally {
      await t.stop();
    }
  });
  await withEnv(
    { DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_PG, NATS_URL: process.env.NATS_URL ?? DEFAULT_NATS },
    async () => {
      let a: Awaited<ReturnType<typeof startTestService>> | undefined;
      let b: TestService | undefined;
      try {
        a = await startTestService({ env: ENV });
        b = await startInstanceBeside(a, { env: ENV, roles: ['api', 'gateway'] });
      } catch (err) {
        console.log(`\nPostgreSQL + NATS: skipped (${(err as Error).message})`);
        await b?.stop();
        await a?.stop();
        return;
      }
      try {
        await both('PostgreSQL + NATS, POST to instance A, sockets on instance B', a, b);
      } finally {
        await b.stop();
        await a.stop();
      }
    },
  );
};
