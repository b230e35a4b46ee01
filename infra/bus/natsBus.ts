import {
  connect,
  headers as natsHeaders,
  JSONCodec,
  type NatsConnection,
  type Subscription as NatsSubscription,
} from 'nats';
import type { Logger } from '../logger.js';
import type { Bus, BusMessage } from './port.js';

interface Registration {
  pattern: string;
  handler: (message: BusMessage) => void;
  sub: NatsSubscription | null;
}

/**
 * The bus on NATS core subjects (fan-out to whoever listens now; chat and notifications are real-time
 * hints, the read models stay the source of truth). A prefix isolates several services or test runs on
 * one server.
 *
 * The service does not wait for NATS: the bus connects in the background, retrying with backoff, and
 * reconnects for ever once connected. Subscriptions made before the first connection are applied when
 * it comes; messages published before it are dropped (they are hints, and /ready reports the bus down
 * meanwhile, since `flush()` fails).
 */
export const openNatsBus = (url: string, prefix = '', logger?: Logger): Bus & { connected: Promise<void> } => {
  const codec = JSONCodec();
  const registrations = new Set<Registration>();
  const full = (subject: string) => (prefix ? `${prefix}.${subject}` : subject);
  const strip = (subject: string) => (prefix ? subject.slice(prefix.length + 1) : subject);
  let nc: NatsConnection | null = null;
  let closed = false;
  let wake: (() => void) | null = null;
  let reconnects = 0;
  let disconnected = false;

  const attach = (conn: NatsConnection, r: Registration) => {
    r.sub = conn.subscribe(full(r.pattern), {
      callback: (err, msg) => {
        if (err) return;
        try {
          const headers = msg.headers ? Object.fromEntries([...msg.headers].map(([k, v]) => [k, v[0]])) : undefined;
          r.handler({ subject: strip(msg.subject), data: codec.decode(msg.data), ...(headers ? { headers } : {}) });
        } catch {
          // One failing subscriber must not stop the others.
        }
      },
    });
  };

  const connected = (async () => {
    for (let attempt = 1, delayMs = 250; !closed; attempt++, delayMs = Math.min(5000, delayMs * 2)) {
      try {
        const conn = await connect({ servers: url, name: 'water-marketplace', maxReconnectAttempts: -1 });
        if (closed) {
          await conn.close();
          return;
        }
        nc = conn;
        void (async () => {
          for await (const status of conn.status()) {
            if (status.type === 'disconnect') disconnected = true;
            if (status.type === 'reconnect') {
              disconnected = false;
              reconnects += 1;
            }
          }
        })();
        for (const r of registrations) attach(conn, r);
        if (attempt > 1) logger?.info({ attempt }, 'bus connected');
        return;
      } catch (err) {
        logger?.warn(
          { attempt, retryInMs: delayMs, reason: (err as Error).message },
          'bus not reachable yet; retrying in the background',
        );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    }
  })();

  return {
    name: 'nats',
    connected,
    async publish(subject, data, headers) {
      const h = headers && Object.keys(headers).length > 0 ? natsHeaders() : undefined;
      for (const [k, v] of Object.entries(h ? headers! : {})) h!.set(k, v);
      nc?.publish(full(subject), codec.encode(data), h ? { headers: h } : undefined);
    },
    subscribe(pattern, handler) {
      const r: Registration = { pattern, handler, sub: null };
      registrations.add(r);
      if (nc) attach(nc, r);
      return {
        unsubscribe: () => {
          registrations.delete(r);
          r.sub?.unsubscribe();
        },
      };
    },
    connection: () => ({ connected: nc !== null && !nc.isClosed() && !disconnected, reconnects }),
    flush: () => (nc ? nc.flush() : Promise.reject(new Error('bus not connected yet'))),
    async close() {
      closed = true;
      wake?.();
      for (const r of registrations) r.sub?.unsubscribe();
      registrations.clear();
      await connected;
      if (nc && !nc.isClosed()) await nc.drain();
    },
  };
};

/** The bus once connected (tests and tools that need NATS before they go on). */
export const connectNatsBus = async (url: string, prefix = '', logger?: Logger): Promise<Bus> => {
  const bus = openNatsBus(url, prefix, logger);
  await bus.connected;
  return bus;
};
