import type { AuditEvent } from '../../domain/audit/events.js';
import { ConcurrencyError, delegatingTo, type EventStore } from '../eventStore/port.js';
import { secondsSince, type Metrics } from './metrics.js';

/** A refused anchor is an alarm of its own: the money history was rewritten (docs/decisions/0071). */
const ANCHOR_REFUSED: AuditEvent['type'] = 'AuditAnchorRefused';

/**
 * The event store as the service uses it, counting appends by outcome (a ConcurrencyError is a conflict,
 * the optimistic check doing its work; anything else an error) and timing each. Outside the adapters, so
 * every backend is measured alike.
 */
export const withAppendMetrics = (store: EventStore, metrics: Metrics): EventStore => ({
  ...delegatingTo(store),
  async appendToStreams(appends, options) {
    const start = performance.now();
    try {
      const result = await store.appendToStreams(appends, options);
      metrics.appends.inc({ outcome: 'ok' });
      metrics.appendedEvents.inc(appends.reduce((n, a) => n + a.events.length, 0));
      const refusals = appends.flatMap((a) => a.events).filter((e) => e.type === ANCHOR_REFUSED).length;
      if (refusals > 0) metrics.anchorRefusals.inc(refusals);
      return result;
    } catch (err) {
      metrics.appends.inc({ outcome: err instanceof ConcurrencyError ? 'conflict' : 'error' });
      throw err;
    } finally {
      metrics.appendDuration.observe(secondsSince(start));
    }
  },
});

/** The runner's view of the store: each read of the log is one batch, and its size is observed. */
export const withBatchMetrics = (store: EventStore, metrics: Metrics): EventStore => ({
  ...delegatingTo(store),
  async readAll(fromPosition, limit) {
    const events = await store.readAll(fromPosition, limit);
    if (events.length > 0) metrics.runnerBatch.observe(events.length);
    return events;
  },
});
