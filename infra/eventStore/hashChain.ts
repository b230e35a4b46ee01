import { chainedOf, checkChain, hashOf } from '../audit/chain.js';
import {
  ConcurrencyError,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  type StreamAppend,
  type AppendOptions,
} from './port.js';

/**
 * Money streams as hash chains (docs/decisions/0051-hash-chain-and-anchors.md), the same for every adapter: an
 * append to a stream of a chained category stamps each event's metadata with `prevHash` (its predecessor's
 * hash, null at revision 0) and `hash` (infra/audit/chain.ts), in the append itself, so the chain is written in
 * the append's transaction. It sits under the versioning wrapper: it hashes the events as they are stored
 * (schemaVersion stamped) and its reads pass on the stored events, before any upcasting.
 *
 * The predecessor is the event at the expected revision. The hash of (stream, revision) never changes, so the
 * head a read of the stream returned is remembered (a bounded map) and an append that follows the read costs
 * no statement; otherwise the stream's head is read once. An append with 'any' is made an append at the head
 * it read, retried on a conflict: two appends never chain to the same predecessor, since the store refuses the
 * second at that revision.
 */
export interface HashChainOptions {
  /** Stream categories (the id up to its first dash) that are chained. */
  categories: readonly string[];
  /** The stream's last event as stored, or null for none (one statement); by default the whole stream is read. */
  readHead?: (streamId: string) => Promise<RecordedEvent | null>;
  /** How many stream heads are remembered (default 10 000). */
  remembered?: number;
}

interface Head {
  position: number;
  hash: string;
}

const ANY_ATTEMPTS = 50;

export const withHashChain = (store: EventStore, options: HashChainOptions): EventStore => {
  const categories = new Set(options.categories);
  const limit = options.remembered ?? 10_000;
  const heads = new Map<string, Head>();

  const chained = (streamId: string): boolean => {
    const dash = streamId.indexOf('-');
    return categories.has(dash < 0 ? streamId : streamId.slice(0, dash));
  };

  const remember = (streamId: string, head: Head) => {
    heads.delete(streamId);
    heads.set(streamId, head);
    if (heads.size > limit) heads.delete(heads.keys().next().value!);
  };

  /** The hash of the stream's last event from what a read returned; events stored before the chain are hashed. */
  const headOf = (streamId: string, events: RecordedEvent[]): Head | null => {
    const last = events.at(-1);
    if (!last) return null;
    const stored = last.metadata.hash;
    if (typeof stored === 'string') return { position: last.streamPosition, hash: stored };
    const { hashes } = checkChain(streamId, events.map(chainedOf));
    return hashes.length === events.length ? { position: last.streamPosition, hash: hashes.at(-1)! } : null;
  };

  const readHead = async (streamId: string): Promise<Head | null> => {
    const last = options.readHead ? await options.readHead(streamId) : null;
    if (last && typeof last.metadata.hash === 'string')
      return { position: last.streamPosition, hash: last.metadata.hash };
    if (options.readHead && !last) return null;
    const head = headOf(streamId, await store.readStream(streamId));
    if (head) remember(streamId, head);
    return head;
  };

  const stamped = (streamId: string, events: NewEvent[], head: Head | null): NewEvent[] => {
    let prev = head?.hash ?? null;
    let position = head ? head.position + 1 : 0;
    return events.map((e) => {
      const metadata = { ...e.metadata };
      delete metadata.hash;
      delete metadata.prevHash;
      const hash = hashOf(
        { stream: streamId, position, eventId: e.eventId, type: e.type, data: e.data, metadata },
        prev,
      );
      const out = { ...e, metadata: { ...metadata, prevHash: prev, hash } };
      prev = hash;
      position += 1;
      return out;
    });
  };

  /** The head at `expected`, from memory when the last read or append left it there. */
  const headAt = async (streamId: string, expected: number): Promise<Head> => {
    const known = heads.get(streamId);
    if (known?.position === expected) return known;
    const head = await readHead(streamId);
    if (head?.position !== expected) throw new ConcurrencyError(streamId, expected, head?.position ?? null);
    return head;
  };

  /** A chained stream's append stamped at its head; an 'any' append is made an append at the head it reads. */
  const stampedAppend = async (a: StreamAppend): Promise<{ append: StreamAppend; head: Head | null }> => {
    const expected =
      a.expectedRevision === 'any' ? ((await readHead(a.streamId))?.position ?? 'no_stream') : a.expectedRevision;
    const head = expected === 'no_stream' ? null : await headAt(a.streamId, expected);
    return { append: { ...a, expectedRevision: expected, events: stamped(a.streamId, a.events, head) }, head };
  };

  const appendOnce = async (appends: StreamAppend[], options?: AppendOptions) => {
    const prepared = await Promise.all(
      appends.map(async (a) => (chained(a.streamId) ? stampedAppend(a) : { append: a, head: undefined })),
    );
    const result = await store.appendToStreams(
      prepared.map((p) => p.append),
      options,
    );
    prepared.forEach(({ append, head }, i) => {
      if (head === undefined) return;
      // A redelivered batch answers the revision stored before: remember only a head this append wrote.
      const last = append.events.at(-1)!;
      const { nextExpectedRevision } = result.streams[i];
      if (nextExpectedRevision === (head ? head.position : -1) + append.events.length)
        remember(append.streamId, { position: nextExpectedRevision, hash: last.metadata!.hash as string });
    });
    return result;
  };

  return {
    name: store.name,
    async appendToStreams(appends, options) {
      // Each round of conflicting appends lets at least one through, so a writer among n waits about n rounds.
      const anyChained = new Set(
        appends.filter((a) => a.expectedRevision === 'any' && chained(a.streamId)).map((a) => a.streamId),
      );
      for (let attempt = 1; ; attempt++) {
        try {
          return await appendOnce(appends, options);
        } catch (err) {
          if (!(err instanceof ConcurrencyError) || !anyChained.has(err.streamId) || attempt >= ANY_ATTEMPTS) throw err;
        }
      }
    },
    async readStream(streamId, options) {
      const events = await store.readStream(streamId, options);
      // A read from a revision cannot rehash events stored before the chain: only a stored hash is remembered.
      if (chained(streamId) && (!options?.from || typeof events.at(-1)?.metadata.hash === 'string')) {
        const head = headOf(streamId, events);
        if (head) remember(streamId, head);
      }
      return events;
    },
    readAll: (fromPosition, limit) => store.readAll(fromPosition, limit),
    subscribeToAll: (fromPosition) => store.subscribeToAll(fromPosition),
    waitForAppend: (timeoutMs) => store.waitForAppend(timeoutMs),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  };
};
