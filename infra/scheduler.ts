import type { Clock } from './clock.js';
import type { Logger } from './logger.js';

export interface ScheduledJob {
  name: string;
  everyMs: number;
  run(now: Date): Promise<void>;
}

/**
 * Runs timers (offer expiry, payment windows, cutoffs) against the injected clock. Tests call `tick()`
 * after moving a ManualClock instead of waiting.
 */
export class Scheduler {
  private jobs: ScheduledJob[] = [];
  private timers: NodeJS.Timeout[] = [];
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  register(job: ScheduledJob): void {
    this.jobs.push(job);
  }

  start(): void {
    for (const job of this.jobs) {
      const timer = setInterval(() => void this.runJob(job), job.everyMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  /** Runs every job once now; resolves when all have finished. */
  async tick(): Promise<void> {
    await Promise.all(this.jobs.map((j) => this.runJob(j)));
  }

  private runJob(job: ScheduledJob): Promise<void> {
    const p = job
      .run(this.clock.now())
      .catch((err) => this.logger.error({ err, job: job.name }, 'scheduled job failed'))
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
    return p;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await Promise.all([...this.inFlight]);
  }
}
