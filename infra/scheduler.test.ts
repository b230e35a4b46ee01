import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from './clock.js';
import { createLogger } from './logger.js';
import { Scheduler } from './scheduler.js';

describe('Scheduler', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a failing job is logged and backs off, doubling its wait, and the first success resets it', async () => {
    const logger = createLogger('silent');
    const errors = vi.spyOn(logger, 'error');
    let failing = true;
    const runs: number[] = [];
    const scheduler = new Scheduler(systemClock, logger);
    scheduler.register({
      name: 'catch-up',
      everyMs: 100,
      run: async () => {
        runs.push(Date.now());
        if (failing) throw new Error('database unavailable');
      },
    });
    const startedAt = Date.now();
    scheduler.start();
    await vi.advanceTimersByTimeAsync(1000);
    // Every 100 ms without backoff (10 runs); with it at 100, 200, 400 and 800 ms.
    expect(runs.map((t) => t - startedAt)).toEqual([100, 200, 400, 800]);
    expect(errors).toHaveBeenCalledTimes(4);
    expect(errors.mock.calls[3][0]).toMatchObject({ job: 'catch-up', failures: 4, retryInMs: 800 });

    failing = false;
    await vi.advanceTimersByTimeAsync(600); // the retry at 1600 ms succeeds
    runs.length = 0;
    await vi.advanceTimersByTimeAsync(300);
    expect(runs).toHaveLength(3);
    await scheduler.stop();
  });

  it('a run still going when its interval comes round again is not started twice', async () => {
    let release!: () => void;
    let started = 0;
    const scheduler = new Scheduler(systemClock, createLogger('silent'));
    scheduler.register({
      name: 'slow',
      everyMs: 100,
      run: () => {
        started += 1;
        return new Promise<void>((r) => (release = r));
      },
    });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(550);
    expect(started).toBe(1);
    release();
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toBe(2);
    release();
    await scheduler.stop();
  });
});
