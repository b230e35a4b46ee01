import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';

const tracer = () => trace.getTracer('water-marketplace');
let started = false;

/** Whether this process records traces (startTracing ran): the tracing decorators are applied only then. */
export const tracingStarted = (): boolean => started;

/** W3C trace context as carried in event metadata and bus headers (`traceparent`, `tracestate`). */
export type Carrier = Record<string, string>;

/**
 * Traces are off unless an OTLP endpoint is configured (the standard OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, which the exporter reads with the other OTEL_* variables), or a test
 * hands its own exporter. On: the provider becomes the process's, with W3C trace-context propagation and
 * an AsyncLocalStorage context, so spans started anywhere below find their parent. Returns the shutdown
 * that flushes what is still buffered.
 */
export const startTracing = (
  env: Record<string, string | undefined>,
  exporter?: { processor: SpanProcessor } | { exporter: SpanExporter },
): (() => Promise<void>) | null => {
  const configured = env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!exporter && (!configured || env.OTEL_SDK_DISABLED === 'true')) return null;
  const processor =
    exporter && 'processor' in exporter
      ? exporter.processor
      : new BatchSpanProcessor(exporter?.exporter ?? new OTLPTraceExporter());
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'water-marketplace' }),
    spanProcessors: [processor],
  });
  provider.register();
  started = true;
  return async () => {
    started = false;
    await provider.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  };
};

/**
 * Runs `work` in a span, a child of `parent` (the active context by default), ending it when the work
 * settles; a thrown error marks it failed.
 */
export const inSpan = async <T>(
  name: string,
  options: { attributes?: Attributes; kind?: SpanKind; parent?: Context; links?: Link[] },
  work: () => Promise<T>,
): Promise<T> =>
  tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links },
    options.parent ?? context.active(),
    async (span) => {
      try {
        return await work();
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    },
  );

/** The active trace context as W3C headers (empty when nothing is traced). */
export const currentCarrier = (from: Context = context.active()): Carrier => {
  const carrier: Carrier = {};
  propagation.inject(from, carrier);
  return carrier;
};

/** The context a carrier (incoming HTTP headers, an event's metadata, a bus message's headers) continues. */
export const contextOf = (carrier: Record<string, unknown> | undefined): Context =>
  carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;

export { SpanKind };

/**
 * Runs a request's handling in a server span that continues the caller's `traceparent`, if any; `finish`,
 * called once the answer is out, names the span by its route pattern and ends it. Answers the trace id.
 */
export const serveInSpan = (
  method: string,
  headers: Record<string, unknown>,
  handle: (finish: (route: string, status: number) => void) => void,
): string =>
  tracer().startActiveSpan(
    method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
    contextOf(headers),
    (span) => {
      handle((route, status) => {
        span.updateName(`${method} ${route}`);
        span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      return span.spanContext().traceId;
    },
  );
