import { subjectMatches, type Bus, type BusMessage } from './port.js';

/** The embedded default: delivery within this process, asynchronously, in publish order. */
export const createInProcessBus = (): Bus => {
  const subs = new Set<{ pattern: string; handler: (m: BusMessage) => void }>();
  let closed = false;
  let pending: Promise<void> = Promise.resolve();
  return {
    name: 'in-process',
    async publish(subject, data, headers) {
      if (closed) throw new Error('bus is closed');
      const targets = [...subs].filter((s) => subjectMatches(s.pattern, subject));
      pending = pending.then(() => {
        for (const t of targets) {
          if (closed || !subs.has(t)) continue;
          try {
            t.handler({ subject, data: structuredClone(data), ...(headers ? { headers: { ...headers } } : {}) });
          } catch {
            // A failing subscriber must not stop delivery to the others.
          }
        }
      });
    },
    subscribe(pattern, handler) {
      const sub = { pattern, handler };
      subs.add(sub);
      return { unsubscribe: () => void subs.delete(sub) };
    },
    flush: () => pending,
    async close() {
      closed = true;
      subs.clear();
    },
  };
};
