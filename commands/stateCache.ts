/**
 * Aggregate state per stream as this instance last appended it (docs/decisions/0045-caches-and-invalidation.md):
 * a command whose stream is here decides without reading it. Nothing is trusted from it but a guess: the
 * append still carries the cached revision, so an entry that another instance (or another path) has moved
 * past fails the append with a wrong expected revision, the entry goes and the stream is read again. Hence no
 * bus message keeps it fresh, and a lost one costs nothing.
 *
 * An entry belongs to the fold (`evolve`) that made it: deciders that share one (the order's, and its
 * arrival that decides two commands in turn) share the entry; a stream folded by two different aggregates
 * keeps one entry, the last one's. Least recently used entries go first once `max` is reached.
 */
export interface CachedState {
  state: unknown;
  version: number;
}

/** What a state is folded with. */
interface Folds {
  evolve: unknown;
}

export class StateCache {
  private readonly entries = new Map<string, CachedState & { fold: unknown }>();

  constructor(private readonly max = 10_000) {}

  get(streamId: string, aggregate: Folds): CachedState | undefined {
    const entry = this.entries.get(streamId);
    if (!entry || entry.fold !== aggregate.evolve) return undefined;
    // Most recently used last: a Map keeps insertion order.
    this.entries.delete(streamId);
    this.entries.set(streamId, entry);
    return { state: entry.state, version: entry.version };
  }

  set(streamId: string, aggregate: Folds, state: unknown, version: number): void {
    this.entries.delete(streamId);
    this.entries.set(streamId, { fold: aggregate.evolve, state, version });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  forget(streamId: string): void {
    this.entries.delete(streamId);
  }
}
