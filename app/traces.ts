import { context, trace, type Link } from '@opentelemetry/api';
import type { Handle } from '../commands/handle.js';
import type { BusMessage } from '../infra/bus/port.js';
import type { RecordedEvent } from '../infra/eventStore/port.js';
import { producedInContext } from '../infra/tracing/tracedPorts.js';
import { contextOf, inSpan } from '../infra/tracing/tracing.js';
import type { Projector } from '../projections/projector.js';

/** A command's name for its span: its type when the command is a value (a function of the state has none). */
const commandName = (command: unknown): string =>
  command && typeof command === 'object' && typeof (command as { type?: unknown }).type === 'string'
    ? (command as { type: string }).type
    : 'command';

/** Every command in a span of its own, between the request's and its appends'. */
export const withCommandTraces = (handle: Handle): Handle =>
  Object.assign(
    ((decider, streamId, command, options) =>
      inSpan(`command ${commandName(command)}`, { attributes: { 'command.stream': streamId.split('-')[0] } }, () =>
        handle(decider, streamId, command, options),
      )) as Handle,
    { register: handle.register, load: handle.load, known: handle.known },
  );

/** The trace context an event was appended in (its metadata), and links to the others of its batch. */
const tracesOf = (events: RecordedEvent[]) => {
  const traced = events.filter((e) => typeof e.metadata.traceparent === 'string');
  const links: Link[] = traced.slice(1).flatMap((e) => {
    const linked = trace.getSpanContext(contextOf(e.metadata));
    return linked ? [{ context: linked }] : [];
  });
  return { parent: traced.length > 0 ? contextOf(traced[0].metadata) : undefined, links };
};

/**
 * An asynchronous projector whose batches are spans continuing the trace of the events they apply (the
 * first one's; the others' are linked), and whose messages are published in that trace.
 */
export const withProjectionTraces = (p: Projector): Projector => {
  const applying = (events: RecordedEvent[], emit: (m: BusMessage) => void) => {
    const { parent, links } = tracesOf(events);
    const attributes = { 'projection.projector': p.name, 'projection.events': events.length };
    const tracedEmit = (m: BusMessage) => {
      producedInContext(m.data, context.active());
      emit(m);
    };
    return { span: { parent, links, attributes }, emit: tracedEmit };
  };
  return {
    ...p,
    handlers: Object.fromEntries(
      Object.entries(p.handlers).map(([type, handler]) => [
        type,
        (trx, event, emit) => {
          const a = applying([event], emit);
          return inSpan(`projection ${p.name}`, a.span, () => handler(trx, event, a.emit));
        },
      ]),
    ),
    ...(p.applyBatch && {
      applyBatch: (trx, events, emit, memory) => {
        const a = applying(events, emit);
        return inSpan(`projection ${p.name}`, a.span, () => p.applyBatch!(trx, events, a.emit, memory));
      },
    }),
    ...(p.publish && {
      publish: async (event, db) => {
        const messages = await p.publish!(event, db);
        const produced = contextOf(event.metadata);
        for (const m of messages) producedInContext(m.data, produced);
        return messages;
      },
    }),
  };
};
