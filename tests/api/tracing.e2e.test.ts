import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing } from '../../infra/tracing/tracing.js';
import { signInClient } from '../support/actors.js';
import { call, onlineDriver, orderBody } from '../support/orderFlows.js';
import { capturedLogger, startTestService, type TestService } from '../support/testService.js';

/**
 * One order creation is one trace, from the caller's traceparent through the request, its command and
 * append, to the asynchronous projector that applies the event and the bus message that fans it out.
 */
describe('traces', () => {
  const exporter = new InMemorySpanExporter();
  const log = capturedLogger('info');
  let stopTracing: (() => Promise<void>) | null = null;
  let t: TestService;
  beforeAll(async () => {
    stopTracing = startTracing({}, { processor: new SimpleSpanProcessor(exporter) });
    t = await startTestService({ logger: log.logger });
  });
  afterAll(async () => {
    await t?.stop();
    await stopTracing?.();
  });

  it("carries an order creation's trace from the request to its projection and bus message", async () => {
    const client = await signInClient(t);
    await onlineDriver(t);
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const created = await call(t).post('/orders', client.token, orderBody(), {
      traceparent: `00-${traceId}-${callerSpan}-01`,
    });
    expect(created.status).toBe(201);
    const ofTrace = (): ReadableSpan[] =>
      exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const names = () => ofTrace().map((s) => s.name);
    await expect
      .poll(names, { timeout: 20_000 })
      .toEqual(
        expect.arrayContaining([
          'POST /api/v1/orders',
          'command CreateOrder',
          'event_store.append',
          expect.stringMatching(/^projection /),
          expect.stringMatching(/^bus\.publish /),
        ]),
      );
    const spans = ofTrace();
    const byName = (name: string) => spans.find((s) => s.name === name)!;
    const server = byName('POST /api/v1/orders');
    expect(server.parentSpanContext?.spanId).toBe(callerSpan);
    expect(byName('command CreateOrder').parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    const append = spans.find(
      (s) =>
        s.name === 'event_store.append' &&
        s.parentSpanContext?.spanId === byName('command CreateOrder').spanContext().spanId,
    );
    expect(append).toBeDefined();

    // The event carries the trace in its metadata, for whoever applies it later.
    const [event] = await t.service.ctx.store.readStream(`order-${created.body.order.id}`);
    expect(event.metadata.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    // The request's log line names its trace.
    const line = log
      .lines()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { traceId?: string; req?: { url: string } })
      .find((l) => l.req?.url === '/api/v1/orders');
    expect(line?.traceId).toBe(traceId);
  });
});
