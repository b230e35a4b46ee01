import type { SqlPool } from '../infra/db/sqlPool.js';
import type { EventStore } from '../infra/eventStore/port.js';
import { gaugeOnScrape, type Metrics } from '../infra/metrics/metrics.js';
import type { ProjectionRunner } from '../projections/runner.js';

/**
 * What is read rather than counted, at each scrape: how far each asynchronous projector is behind the log
 * (events, and the age of the oldest event it has not applied; read models applied in the append's
 * transaction are never behind), the database pool, open websockets.
 */
export const scrapeServiceState = (
  metrics: Metrics,
  deps: { runner: ProjectionRunner; store: EventStore; pool: SqlPool; openSockets: () => number },
): void => {
  const { runner, store, pool } = deps;
  let lagOf: Promise<Map<string, { events: number; seconds: number }>> | null = null;
  /** One read of the log for both lag gauges of a scrape. */
  const lag = () =>
    (lagOf ??= (async () => {
      await runner.refreshFollowed();
      const head = await store.headPosition();
      const ageAt = new Map<number, number>();
      for (const position of new Set(Object.values(runner.positions())))
        if (position < head) {
          const [oldest] = await store.readAll(position, 1);
          ageAt.set(position, oldest ? Math.max(0, Date.now() - oldest.recordedAt.getTime()) / 1000 : 0);
        }
      return new Map(
        Object.entries(runner.positions()).map(([name, p]) => [
          name,
          { events: Math.max(0, head - p), seconds: ageAt.get(p) ?? 0 },
        ]),
      );
    })().finally(() => setImmediate(() => (lagOf = null))));
  gaugeOnScrape(
    metrics,
    {
      name: 'projection_lag_events',
      help: 'Events in the log that an asynchronous projector has not applied yet.',
      labelNames: ['projector'],
    },
    async (set) => {
      for (const [projector, l] of await lag()) set(l.events, { projector });
    },
  );
  gaugeOnScrape(
    metrics,
    {
      name: 'projection_lag_seconds',
      help: 'Age of the oldest event an asynchronous projector has not applied yet (0 when caught up).',
      labelNames: ['projector'],
    },
    async (set) => {
      for (const [projector, l] of await lag()) set(l.seconds, { projector });
    },
  );
  gaugeOnScrape(
    metrics,
    { name: 'db_pool_connections', help: 'Database pool connections by state.', labelNames: ['state'] },
    (set) => {
      const usage = pool.usage?.();
      if (!usage) return;
      set(usage.total - usage.idle, { state: 'busy' });
      set(usage.idle, { state: 'idle' });
      set(usage.waiting, { state: 'waiting' });
    },
  );
  gaugeOnScrape(metrics, { name: 'websockets_open', help: 'Websockets open on this instance.' }, (set) =>
    set(deps.openSockets()),
  );
};
