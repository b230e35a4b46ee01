import type { Bus } from '../bus/port.js';
import { gaugeOnScrape, type Metrics } from './metrics.js';

/**
 * The bus counting what it publishes (dropped while a networked bus is not connected: NATS core keeps
 * nothing for later) and delivers, with its connection state and reconnections read at each scrape.
 */
export const withBusMetrics = (bus: Bus, metrics: Metrics): Bus => {
  gaugeOnScrape(
    metrics,
    { name: 'bus_connected', help: '1 while the bus is connected (always for the in-process bus).' },
    (set) => set(bus.connection?.().connected === false ? 0 : 1),
  );
  gaugeOnScrape(
    metrics,
    { name: 'bus_reconnects', help: 'Times the bus lost its connection and made it again since start.' },
    (set) => set(bus.connection?.().reconnects ?? 0),
  );
  return {
    name: bus.name,
    async publish(subject, data, headers) {
      const outcome = bus.connection?.().connected === false ? 'dropped' : 'ok';
      await bus.publish(subject, data, headers);
      metrics.busPublished.inc({ outcome });
    },
    subscribe: (pattern, handler) =>
      bus.subscribe(pattern, (message) => {
        metrics.busReceived.inc();
        handler(message);
      }),
    flush: () => bus.flush(),
    close: () => bus.close(),
    connection: bus.connection && (() => bus.connection!()),
  };
};
