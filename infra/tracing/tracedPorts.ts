import { context, type Context } from '@opentelemetry/api';
import type { Bus } from '../bus/port.js';
import { delegatingTo, type EventStore } from '../eventStore/port.js';
import { currentCarrier, inSpan, SpanKind } from './tracing.js';

/** A stream's category, the part of its id before the first dash: a span names no id of a person. */
const categoryOf = (streamId: string): string => streamId.split('-')[0];

/**
 * Each append is a span, and each event appended carries its trace context in its metadata (`traceparent`,
 * `tracestate`): whoever applies or fans the event out later, in this process or another, continues the
 * trace of the request that caused it.
 */
export const withAppendTraces = (store: EventStore): EventStore => ({
  ...delegatingTo(store),
  appendToStreams: (appends, options) =>
    inSpan(
      'event_store.append',
      {
        attributes: {
          'event_store.categories': [...new Set(appends.map((a) => categoryOf(a.streamId)))].join(','),
          'event_store.events': appends.reduce((n, a) => n + a.events.length, 0),
        },
      },
      () => {
        const carrier = currentCarrier();
        return store.appendToStreams(
          appends.map((a) => ({
            ...a,
            events: a.events.map((e) => ({ ...e, metadata: { ...e.metadata, ...carrier } })),
          })),
          options,
        );
      },
    ),
});

/**
 * The context a message was produced in, when that is not the one active at its publication (the runner
 * publishes a batch's messages after its commit, outside the span that applied them).
 */
const producedIn = new WeakMap<object, Context>();

export const producedInContext = (data: unknown, ctx: Context): void => {
  if (data && typeof data === 'object') producedIn.set(data, ctx);
};

/** Each publication is a producer span, and the message carries its trace context in its headers. */
export const withPublishTraces = (bus: Bus): Bus => ({
  name: bus.name,
  subscribe: (pattern, handler) => bus.subscribe(pattern, handler),
  flush: () => bus.flush(),
  close: () => bus.close(),
  connection: bus.connection && (() => bus.connection!()),
  publish: (subject, data, headers) =>
    inSpan(
      `bus.publish ${subject.split('.')[0]}`,
      {
        kind: SpanKind.PRODUCER,
        parent: (data !== null && typeof data === 'object' ? producedIn.get(data) : undefined) ?? context.active(),
        attributes: { 'messaging.system': bus.name },
      },
      () => bus.publish(subject, data, { ...headers, ...currentCarrier() }),
    ),
});
