import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppModule } from '../../app/context.js';
import { modules } from '../../app/modules.js';
import { capturedLogger, startTestService, type TestService } from '../support/testService.js';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  err?: { stack?: string };
  req?: { url: string };
  res?: { statusCode: number };
}

/** A route that fails as a bug does: the one way to see a 500's lines. */
const failing: AppModule = {
  name: 'failing',
  routes: (_ctx, router) =>
    router.get('/test-failure', () => {
      throw new Error('a bug');
    }),
};

/**
 * What a load balancer and a scraper leave in the log: nothing. Not ready is an answer, not an error; a
 * refused request is one info line; a failure is one error line with its stack.
 */
describe('quiet logs', () => {
  const log = capturedLogger('info');
  let t: TestService;
  const lines = (): Line[] =>
    log
      .lines()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
  beforeAll(async () => {
    t = await startTestService({ logger: log.logger, modules: [...modules, failing] });
  });
  afterAll(() => t.stop());

  it('a start polled every 0.1 s on /ready until ready logs no error line and no probe', async () => {
    const from = lines().length;
    // Not ready, as while a stop has begun: the balancer keeps asking.
    t.service.ctx.readiness.stopping = true;
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) {
      answers.push((await fetch(`${t.baseUrl}/ready`)).status, (await fetch(`${t.baseUrl}/api/v1/health`)).status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.service.ctx.readiness.stopping = false;
    await expect.poll(async () => (await fetch(`${t.baseUrl}/ready`)).status, { interval: 100 }).toBe(200);
    expect(answers).toContain(503);
    const written = lines().slice(from);
    expect(written.filter((l) => l.level >= 50)).toEqual([]);
    expect(written.filter((l) => l.req)).toEqual([]);
  });

  it('logs a refusal at info without a stack, and a failure once at error with its stack, each with its id', async () => {
    const from = lines().length;
    const refused = await fetch(`${t.baseUrl}/api/v1/orders/1`, { headers: { 'x-request-id': 'refused-1' } });
    expect(refused.status).toBe(401);
    const failed = await fetch(`${t.baseUrl}/api/v1/test-failure`, { headers: { 'x-request-id': 'failed-1' } });
    expect(failed.status).toBe(500);
    await expect.poll(() => lines().length - from).toBeGreaterThanOrEqual(3);
    const written = lines().slice(from);
    const ofRefused = written.filter((l) => l.reqId === 'refused-1');
    expect(ofRefused).toHaveLength(1);
    expect(ofRefused[0]).toMatchObject({ level: 30, res: { statusCode: 401 } });
    expect(ofRefused[0].err).toBeUndefined();
    const ofFailed = written.filter((l) => l.reqId === 'failed-1');
    expect(ofFailed.filter((l) => l.level >= 50)).toHaveLength(1);
    expect(ofFailed.find((l) => l.level >= 50)!.err!.stack).toContain('a bug');
    expect(ofFailed.find((l) => l.res)).toMatchObject({ level: 30, res: { statusCode: 500 } });
    expect(ofFailed.find((l) => l.res)!.err).toBeUndefined();
    expect(written.every((l) => l.reqId)).toBe(true);
  });
});
