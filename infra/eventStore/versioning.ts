import type { EventSchemas } from '../../domain/eventSchema.js';
import type { Upcaster } from '../../domain/upcasters.js';
import type { EventStore, NewEvent, RecordedEvent, Subscription } from './port.js';

/**
 * Event schemas and versions at the store's boundary, the same for every adapter
 * (docs/decisions/0041-event-schemas-and-versions.md). An append stamps each event's metadata with its
 * type's version today (`schemaVersion`) and, when `checkAppends` is set, refuses the whole batch if an
 * event has no schema or its data does not match it. A read passes an event stored at an older version
 * through its upcasters, so deciders and projectors only ever see today's shape.
 */
export interface EventVersioning {
  schemas: EventSchemas;
  upcasters: readonly Upcaster[];
  /** Development and tests: a check per appended event that production does not pay for. */
  checkAppends: boolean;
}

/** An appended event without a schema, or whose data does not match it: nothing of its batch is written. */
export class EventSchemaError extends Error {
  constructor(
    readonly eventType: string,
    problem: string,
  ) {
    super(`Event ${eventType}: ${problem}`);
    this.name = 'EventSchemaError';
  }
}

/** Each type's upcasters in order, checked to lead from version 1 up without a gap. */
const chainsOf = (upcasters: readonly Upcaster[], schemas: EventSchemas): Map<string, Upcaster[]> => {
  const chains = new Map<string, Upcaster[]>();
  for (const u of upcasters) chains.set(u.type, [...(chains.get(u.type) ?? []), u]);
  for (const [type, chain] of chains) {
    if (!schemas[type]) throw new Error(`Upcaster of ${type}, which has no schema`);
    chain.sort((a, b) => a.from - b.from);
    chain.forEach((u, i) => {
      if (u.from !== i + 1) throw new Error(`Upcasters of ${type} must lead from version 1 up, one each`);
    });
  }
  return chains;
};

const versionOf = (e: RecordedEvent): number => {
  const v = e.metadata.schemaVersion;
  return typeof v === 'number' ? v : 1;
};

export const withEventVersioning = (
  store: EventStore,
  { schemas, upcasters, checkAppends }: EventVersioning,
): EventStore => {
  const chains = chainsOf(upcasters, schemas);
  const versions = new Map([...chains].map(([type, chain]) => [type, chain.length + 1]));

  // A refusal here is a fault of ours (a decision or an upcaster that made bad data), never the caller's:
  // an EventSchemaError, which the API answers 500, where a ZodError would be answered as a 422.
  const parse = (type: string, data: unknown): unknown => {
    const schema = schemas[type];
    if (!schema) throw new EventSchemaError(type, 'no schema (domain/events.ts)');
    const parsed = schema.safeParse(data);
    if (!parsed.success)
      throw new EventSchemaError(
        type,
        parsed.error.issues.map((i) => `${i.path.join('.') || 'data'}: ${i.message}`).join('; '),
      );
    return parsed.data;
  };
  const check = (e: NewEvent) => void parse(e.type, e.data);

  const stamped = (e: NewEvent): NewEvent => ({
    ...e,
    metadata: { ...e.metadata, schemaVersion: versions.get(e.type) ?? 1 },
  });

  // Only an event stored before its type's latest change is touched: its data goes through the missing
  // upcasters and is parsed with today's schema, so a faulty upcaster fails here and not in a projector.
  const upcast = (e: RecordedEvent): RecordedEvent => {
    const chain = chains.get(e.type);
    const from = versionOf(e);
    if (!chain || from > chain.length) return e;
    let data: unknown = e.data;
    for (const u of chain.slice(from - 1)) data = u.up(data as never);
    return { ...e, data: parse(e.type, data), metadata: { ...e.metadata, schemaVersion: chain.length + 1 } };
  };

  // Without upcasters reads go straight to the adapter: nothing is parsed or copied.
  const upcasting = chains.size > 0;

  return {
    name: store.name,
    appendToStreams(appends, options) {
      if (checkAppends) {
        try {
          appends.forEach((a) => a.events.forEach(check));
        } catch (err) {
          return Promise.reject(err as Error);
        }
      }
      return store.appendToStreams(
        appends.map((a) => ({ ...a, events: a.events.map(stamped) })),
        options,
      );
    },
    readStream: upcasting
      ? async (streamId, options) => (await store.readStream(streamId, options)).map(upcast)
      : (streamId, options) => store.readStream(streamId, options),
    readAll: upcasting
      ? async (fromPosition, limit) => (await store.readAll(fromPosition, limit)).map(upcast)
      : (fromPosition, limit) => store.readAll(fromPosition, limit),
    subscribeToAll(fromPosition) {
      const sub = store.subscribeToAll(fromPosition);
      if (!upcasting) return sub;
      const upcastSub: Subscription = {
        close: () => sub.close(),
        async *[Symbol.asyncIterator]() {
          for await (const e of sub) yield upcast(e);
        },
      };
      return upcastSub;
    },
    waitForAppend: (timeoutMs) => store.waitForAppend(timeoutMs),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  };
};
