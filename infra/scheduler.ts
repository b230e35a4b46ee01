import type { Clock } from './clock.js';
import type { Logger } from './logger.js';

export interface ScheduledJob {
  name: string;
  everyMs: number;
  run(now: Date): Promise<void>;
}

interface JobHealth {
  running: boolean;
  failures: number;
  retryAt: number;
}

/** A failing job waits twice as long after each failure, up to this. */
const MAX_BACKOFF_MS = 60_000;

/**
 * Runs timers (offer expiry, payment windows, cutoffs) against the injected clock. Tests call `tick()`
 * after moving a ManualClock instead of waiting.
 *
 * A failed run is logged and the job backs off (its interval, doubled per failure, up to a minute), so
 * a database outage produces a few log lines rather than one per interval; a run never overlaps the
 * previous one of the same job. The first success resets the backoff.
 */
export class Scheduler {
  private jobs: ScheduledJob[] = [];
  private timers: NodeJS.Timeout[] = [];
  private inFlight = new Set<Promise<void>>();
  private health = new Map<string, JobHealth>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  register(job: ScheduledJob): void {
    this.jobs.push(job);
  }

  start(): void {
    for (const job of this.jobs) {
      const timer = setInterval(() => this.onTimer(job), job.everyMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  /** Runs every job once now; resolves when all have finished. */
  async tick(): Promise<void> {
    await Promise.all(this.jobs.map((j) => this.runJob(j)));
  }

  private healthOf(job: ScheduledJob): JobHealth {
    let h = this.health.get(job.name);
    if (!h) this.health.set(job.name, (h = { running: false, failures: 0, retryAt: 0 }));
    return h;
  }

  private onTimer(job: ScheduledJob): void {
    const h = this.healthOf(job);
    if (h.running || Date.now() < h.retryAt) return;
    void this.runJob(job);
  }

  private runJob(job: ScheduledJob): Promise<void> {
    const h = this.healthOf(job);
    h.running = true;
    const p = job
      .run(this.clock.now())
      .then(
        () => {
          h.failures = 0;
          h.retryAt = 0;
        },
        (err) => {
          h.failures += 1;
          const retryInMs = Math.min(MAX_BACKOFF_MS, job.everyMs * 2 ** (h.failures - 1));
          h.retryAt = Date.now() + retryInMs;
          this.logger.error(
            { err, job: job.name, failures: h.failures, retryInMs },
            'scheduled job failed; backing off',
          );
        },
      )
      .finally(() => {
        h.running = false;
        this.inFlight.delete(p);
      });
    this.inFlight.add(p);
    return p;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await Promise.all([...this.inFlight]);
  }
}
