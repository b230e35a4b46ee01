import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds, from a fast statement to a slow provider call. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Minutes-long settlement runs too. */
const RUN_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 300, 900];
const BATCH_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500];

/** Every label value is one of a few known words or a route pattern: never an id, a phone or a raw path. */
export type Outcome = 'ok' | 'error';

/**
 * Every metric the service exports, on a registry of its own (two services in one process, as tests run
 * them, never share a count). Names follow Prometheus' conventions: `_total` counters, `_seconds`
 * histograms, base units.
 */
export const createMetrics = () => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const m = {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status class (2xx, 4xx, 5xx).',
      labelNames: ['route', 'method', 'status_class'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route pattern and method.',
      labelNames: ['route', 'method'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    appends: new Counter({
      name: 'event_store_appends_total',
      help: 'Appends to the event store, by outcome (ok, conflict, error).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    appendedEvents: new Counter({
      name: 'event_store_appended_events_total',
      help: 'Events appended to the event store.',
      registers: [registry],
    }),
    anchorRefusals: new Counter({
      name: 'audit_anchor_refusals_total',
      help: 'Audit anchors refused because the log no longer extends the previous anchor (history rewritten).',
      registers: [registry],
    }),
    appendDuration: new Histogram({
      name: 'event_store_append_duration_seconds',
      help: 'Time of one append (with the read models applied in its transaction).',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    runnerBatch: new Histogram({
      name: 'projection_runner_batch_events',
      help: 'Events in one read of the asynchronous projection runner (a batch).',
      buckets: BATCH_BUCKETS,
      registers: [registry],
    }),
    busPublished: new Counter({
      name: 'bus_messages_published_total',
      help: 'Messages published on the bus, by outcome (dropped: the bus was not connected).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    busReceived: new Counter({
      name: 'bus_messages_received_total',
      help: 'Messages the bus delivered to this process.',
      registers: [registry],
    }),
    providerCalls: new Counter({
      name: 'provider_calls_total',
      help: 'Calls to outside providers, by provider, operation and outcome.',
      labelNames: ['provider', 'operation', 'outcome'] as const,
      registers: [registry],
    }),
    providerDuration: new Histogram({
      name: 'provider_call_duration_seconds',
      help: 'Time of one call to an outside provider.',
      labelNames: ['provider', 'operation'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    webhooksRefused: new Counter({
      name: 'webhook_verifications_refused_total',
      help: 'Provider webhooks refused for a bad signature or token, by webhook (payment/<provider>, payout).',
      labelNames: ['webhook'] as const,
      registers: [registry],
    }),
    settlementRuns: new Counter({
      name: 'settlement_runs_total',
      help: 'Settlement runs (cutoff, payout, reconcile), by outcome.',
      labelNames: ['process', 'outcome'] as const,
      registers: [registry],
    }),
    settlementDuration: new Histogram({
      name: 'settlement_run_duration_seconds',
      help: 'Time of one settlement run.',
      labelNames: ['process'] as const,
      buckets: RUN_BUCKETS,
      registers: [registry],
    }),
    settlementReceipts: new Counter({
      name: 'settlement_receipts_total',
      help: 'Receipts a settlement run issued or moved.',
      labelNames: ['process'] as const,
      registers: [registry],
    }),
  };
  return m;
};

export type Metrics = ReturnType<typeof createMetrics>;

/** A gauge whose value is read when scraped (`read` answers label values and numbers). */
export const gaugeOnScrape = <L extends string>(
  metrics: Metrics,
  spec: { name: string; help: string; labelNames?: readonly L[] },
  read: (set: (value: number, labels?: Partial<Record<L, string>>) => void) => Promise<void> | void,
): void => {
  new Gauge<L>({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames ?? [],
    registers: [metrics.registry],
    async collect() {
      this.reset();
      await read((value, labels) => (labels ? this.set(labels, value) : this.set(value)));
    },
  });
};

/** Seconds since `start` (a performance.now() reading). */
export const secondsSince = (start: number): number => (performance.now() - start) / 1000;

/** Times `work` into a histogram and counts its outcome. */
export const timed = async <T>(
  work: () => Promise<T>,
  done: (seconds: number, outcome: Outcome, result: T | undefined) => void,
): Promise<T> => {
  const start = performance.now();
  try {
    const result = await work();
    done(secondsSince(start), 'ok', result);
    return result;
  } catch (err) {
    done(secondsSince(start), 'error', undefined);
    throw err;
  }
};
