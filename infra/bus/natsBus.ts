import { connect, JSONCodec, type NatsConnection, type Subscription as NatsSubscription } from 'nats';
import type { Bus } from './port.js';

/**
 * The bus on NATS core subjects (fan-out to whoever listens now; chat and notifications are real-time
 * hints, the read models stay the source of truth). A prefix isolates several services or test runs on
 * one server.
 */
export const connectNatsBus = async (url: string, prefix = ''): Promise<Bus> => {
  const nc: NatsConnection = await connect({ servers: url, name: 'water-marketplace', maxReconnectAttempts: -1 });
  const codec = JSONCodec();
  const subs = new Set<NatsSubscription>();
  const full = (subject: string) => (prefix ? `${prefix}.${subject}` : subject);
  const strip = (subject: string) => (prefix ? subject.slice(prefix.length + 1) : subject);
  return {
    name: 'nats',
    async publish(subject, data) {
      nc.publish(full(subject), codec.encode(data));
    },
    subscribe(pattern, handler) {
      const sub = nc.subscribe(full(pattern), {
        callback: (err, msg) => {
          if (err) return;
          try {
            handler({ subject: strip(msg.subject), data: codec.decode(msg.data) });
          } catch {
            // One failing subscriber must not stop the others.
          }
        },
      });
      subs.add(sub);
      return {
        unsubscribe: () => {
          subs.delete(sub);
          sub.unsubscribe();
        },
      };
    },
    flush: () => nc.flush(),
    async close() {
      for (const s of subs) s.unsubscribe();
      subs.clear();
      if (!nc.isClosed()) await nc.drain();
    },
  };
};
