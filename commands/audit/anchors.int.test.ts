import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchorStream } from '../../domain/audit/events.js';
import { merkleRoot } from '../../infra/audit/merkle.js';
import { ManualClock } from '../../infra/clock.js';
import { buildTestService } from '../../tests/support/testService.js';
import type { Service } from '../../app/composition.js';
import { dailyAnchorJob } from './anchors.js';

/**
 * The daily anchor: one per day of the settlement timezone (America/Caracas by default), however many
 * schedulers run the job at once.
 */
describe('daily anchor', () => {
  let service: Service;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ service, drop } = await buildTestService({ clock: new ManualClock() }));
  });
  afterAll(async () => {
    await service?.stop();
    await drop?.();
  });

  it('is recorded once when two schedulers run the job at the same moment, and again the next local day', async () => {
    const { ctx } = service;
    const [a, b] = [dailyAnchorJob(ctx, 1000), dailyAnchorJob(ctx, 1000)];
    // 02:00 UTC is still the 26th's evening before in Caracas (UTC-4): the anchor of 2026-11-25.
    const now = new Date('2026-11-26T02:00:00Z');
    await Promise.all([a.run(now), b.run(now), a.run(now)]);
    const recorded = await ctx.store.readStream(anchorStream('2026-11-25'));
    expect(recorded).toHaveLength(1);
    const data = recorded[0].data as { kind: string; root: string; heads: [] };
    expect(data.kind).toBe('DAILY');
    expect(data.root).toBe(merkleRoot(data.heads));

    await b.run(new Date('2026-11-26T05:00:00Z'));
    expect(await ctx.store.readStream(anchorStream('2026-11-26'))).toHaveLength(1);
  });
});
