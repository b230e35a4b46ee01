import type { Handle } from '../commands/handle.js';
import type { Bus } from '../infra/bus/port.js';
import type { EventStore } from '../infra/eventStore/port.js';
import { withBusMetrics } from '../infra/metrics/measuredBus.js';
import { withAppendMetrics, withBatchMetrics } from '../infra/metrics/measuredStore.js';
import type { Metrics } from '../infra/metrics/metrics.js';
import { withAppendTraces, withPublishTraces } from '../infra/tracing/tracedPorts.js';
import { tracingStarted } from '../infra/tracing/tracing.js';
import type { Projector } from '../projections/projector.js';
import { withCommandTraces, withProjectionTraces } from './traces.js';

/**
 * The ports as the service uses them: measured always (docs/decisions/0076-what-the-metrics-measure.md),
 * traced when this process records traces (docs/decisions/0077-traces-with-opentelemetry.md).
 */
export const observed = (metrics: Metrics) => {
  const traced = tracingStarted();
  return {
    bus: (bus: Bus): Bus => (traced ? withPublishTraces(withBusMetrics(bus, metrics)) : withBusMetrics(bus, metrics)),
    store: (store: EventStore): EventStore => withAppendMetrics(traced ? withAppendTraces(store) : store, metrics),
    /** The runner's view: each read of the log is one batch. */
    runnerStore: (store: EventStore): EventStore => withBatchMetrics(store, metrics),
    projector: (p: Projector): Projector => (traced ? withProjectionTraces(p) : p),
    handle: (handle: Handle): Handle => (traced ? withCommandTraces(handle) : handle),
  };
};
