import { vi } from 'vitest';
import { ManualClock } from '../../infra/clock.js';

/**
 * A ManualClock that moves Date.now() with it, for tests of code that reads the system time itself
 * (rate-limiter-flexible's windows). Only Date is faked: timers and I/O run in real time, and Date stands
 * still between moves, as the ManualClock does. The test service runs in the test's process, so the
 * service sees the same Date. Call `install` before starting the service and `uninstall` after stopping it.
 */
export class SystemTimeClock extends ManualClock {
  install(): void {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(this.now());
  }
  uninstall(): void {
    vi.useRealTimers();
  }
  override advance(ms: number): void {
    super.advance(ms);
    vi.setSystemTime(this.now());
  }
  override set(at: Date | string): void {
    super.set(at);
    vi.setSystemTime(this.now());
  }
}
