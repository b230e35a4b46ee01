import { sql } from 'kysely';
import { createDb, type Db, type Trx } from '../infra/db/database.js';
import { onOneConnection, type SqlClient, type SqlPool } from '../infra/db/sqlPool.js';
import type { EventStore, RecordedEvent } from '../infra/eventStore/port.js';
import type { Bus, BusMessage } from '../infra/bus/port.js';
import type { Logger } from '../infra/logger.js';
import { isConnectionLoss } from '../infra/db/databaseUnavailable.js';
import { handles, type BatchMemory, type Projector } from './projector.js';

export interface RunnerDeps {
  db: Db;
  pool: SqlPool;
  store: EventStore;
  bus: Bus;
  logger: Logger;
  projectors: Projector[];
  pollMs?: number;
  batchSize?: number;
  /** false in an instance that only serves the API: it follows checkpoints that others write. */
  lead?: boolean;
  /** The least time between two reads of the log that wake-ups start (READ_GAP_MS). */
  readGapMs?: number;
}

/**
 * Wake-ups are coalesced by spacing the reads they start: under a stream of appends the loop reads the log
 * at most once per READ_GAP_MS, so the appends of that time meet in one batch (one transaction, and one
 * checkpoint per projector, instead of one per append). A lone append still wakes a read at once, and a
 * read that found a full batch is followed at once (catching up is not slowed). The read models trail the
 * log by at most this much more.
 */
export const READ_GAP_MS = 25;

/** How often the stored checkpoints of idle projectors catch up with their positions in memory. */
const IDLE_WRITE_MS = 200;
/** A projector's batch memory starts afresh past this many entries (it is a cache of rows, not a copy). */
const MEMORY_ENTRIES = 100_000;

/** Stable advisory-lock key for a projector name: one owner per projector across instances. */
export const projectorLockKey = (name: string): number => {
  let h = 0x5eed;
  for (const ch of name) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
};

/** Runs a projector's handlers (or its bulk path) over the events it handles, nothing else. */
export const applyEvents = async (
  trx: Trx,
  p: Projector,
  events: RecordedEvent[],
  emit: (m: BusMessage) => void = () => undefined,
  memory?: BatchMemory,
): Promise<void> => {
  const relevant = events.filter((e) => handles(p, e));
  if (p.applyBatch) {
    if (relevant.length > 0) await p.applyBatch(trx, relevant, emit, memory);
  } else {
    for (const e of relevant) await p.handlers[e.type](trx, e, emit);
  }
};

/** What a committed batch fans out: the messages its handlers emitted, then those its events imply. */
export const messagesOf = async (
  p: Projector,
  events: RecordedEvent[],
  emitted: BusMessage[],
  db: Db,
): Promise<BusMessage[]> => [
  ...emitted,
  ...(p.publish
    ? (await Promise.all(events.filter((e) => handles(p, e)).map(async (e) => p.publish!(e, db)))).flat()
    : []),
];

/**
 * A read-model batch commits without waiting for its WAL flush. The rows and their checkpoints commit
 * together, and PostgreSQL replays its log in order, so a crash can only lose the last few batches whole:
 * the runner finds the older checkpoints and applies those events again. Waiting for the disk (several ms
 * per commit on a busy machine) bought nothing: the events themselves are appended with a synchronous
 * commit. The runner's batches run on a session of their own with this set once.
 */
const ASYNC_COMMIT = 'SET synchronous_commit TO OFF';

/** One projector's share of a batch of the log. */
export interface BatchShare {
  projector: Projector;
  /** Where the runner left its checkpoint. */
  from: number;
  /** The events past `from` that it handles; none: only its checkpoint moves. */
  events: RecordedEvent[];
  emit?: (m: BusMessage) => void;
  memory?: BatchMemory;
}

/**
 * Moves checkpoints in one statement, each only from at most its `guard`, to `to`; returns the names it moved.
 * A row further along than its guard can only be a rebuild's: it is left as it is.
 */
const moveCheckpoints = async (db: Db, moves: { name: string; guard: number; to: number }[]): Promise<Set<string>> => {
  const names = moves.map((m) => m.name);
  const { rows } = await sql<{ name: string }>`
    INSERT INTO projection_checkpoints AS c (name, position)
    SELECT * FROM unnest(${names}::text[], ${moves.map((m) => m.to)}::bigint[])
    ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = now()
    WHERE c.position <= (${moves.map((m) => m.guard)}::bigint[])[array_position(${names}::text[], c.name)]
    RETURNING name`.execute(db);
  return new Set(rows.map((r) => r.name));
};

/**
 * Applies one batch of the log, read up to `upTo`, for several projectors inside the given transaction, their
 * checkpoints included, and returns the projectors it left out. Every checkpoint moves first, in one
 * statement: a rebuild locks a checkpoint row before its tables, so the two never wait for each other in
 * opposite orders. A projector with events moves only from `from`, where the runner left it (the stored row
 * may lag that by events it does not handle: idle moves are written at intervals); a row further along means a
 * rebuild swapped in tables built further, and that projector applies nothing, so those tables never see an
 * event twice. A projector without events only moves forward (it may stand past `upTo`).
 */
export const applyBatch = async (trx: Trx, shares: BatchShare[], upTo: number): Promise<Projector[]> => {
  const written = await moveCheckpoints(
    trx,
    shares.map((s) => {
      const to = Math.max(s.from, upTo);
      return { name: s.projector.name, guard: s.events.length > 0 ? s.from : to, to };
    }),
  );
  for (const s of shares)
    if (written.has(s.projector.name)) await applyEvents(trx, s.projector, s.events, s.emit, s.memory);
  return shares.filter((s) => !written.has(s.projector.name)).map((s) => s.projector);
};

interface State {
  projector: Projector;
  position: number;
  leader: boolean;
  failures: number;
  retryAt: number;
  /** The projector's messages of committed batches, published in order, off the batch loop. */
  published: Promise<void>;
  /** What its batches keep for the next (Projector.applyBatch), true as of `position`; null: start afresh. */
  memory: { kept: BatchMemory; position: number } | null;
}

/**
 * Keeps every projector caught up with the log: catch-up then live. A batch of the log, read once, is applied
 * by every projector this instance leads that is behind by it, in one transaction that also moves their
 * checkpoints, so an event is applied exactly once even across crashes. Publishing to the bus happens after
 * commit: a crash in between loses a real-time message, never a read-model row, and a batch lost to the
 * asynchronous commit is applied again and may publish again.
 */
export class ProjectionRunner {
  private states: State[];
  private running = false;
  private loop: Promise<void> | null = null;
  private leaderClient: SqlClient | null = null;
  /** PostgreSQL: the connection the batches run on, with asynchronous commit set once for the session. */
  private session: { client: SqlClient; db: Db } | null = null;
  private waiters = new Set<() => void>();
  private readonly pollMs: number;
  private readonly batchSize: number;
  /** When the checkpoints of projectors with nothing to apply were last written (they move in memory at once). */
  private idleWrittenAt = 0;
  /** Idle moves made in memory since the last write of the stored checkpoints. */
  private idlePending = false;
  private readonly readGapMs: number;
  /** When the loop last read the log. */
  private readAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: RunnerDeps) {
    this.states = deps.projectors.map((projector) => ({
      projector,
      position: 0,
      leader: false,
      failures: 0,
      retryAt: 0,
      published: Promise.resolve(),
      memory: null,
    }));
    this.pollMs = deps.pollMs ?? 250;
    this.batchSize = deps.batchSize ?? 500;
    this.readGapMs = deps.readGapMs ?? READ_GAP_MS;
  }

  get projectors(): Projector[] {
    return this.deps.projectors;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.loadCheckpoints();
    await this.claimLeadership();
    this.loop = this.run();
  }

  /**
   * Stops after the batch in flight has committed (the checkpoints
   * stay consistent with the tables) and its messages are out.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.notify();
    await this.loop;
    this.loop = null;
    await Promise.all(this.states.map((s) => s.published));
    this.dropSession();
    if (this.leaderClient) {
      const client = this.leaderClient;
      this.leaderClient = null;
      try {
        if (!client.broken) await client.query('SELECT pg_advisory_unlock_all()');
      } catch (err) {
        // The session is gone, and its locks with it.
        this.deps.logger.warn({ err }, 'could not release projector locks');
      } finally {
        client.release();
      }
    }
  }

  /** Reloads the checkpoints that other instances write (readiness in an instance that only serves the API). */
  async refreshFollowed(): Promise<void> {
    await this.loadCheckpoints(this.states.filter((s) => !s.leader));
  }

  positions(): Record<string, number> {
    return Object.fromEntries(this.states.map((s) => [s.projector.name, s.position]));
  }

  /** The lowest checkpoint: every projector has applied everything up to it. */
  lowestPosition(): number {
    return this.states.reduce((m, s) => Math.min(m, s.position), Number.POSITIVE_INFINITY);
  }

  /**
   * Read-your-writes: resolves true once every projector (or the named ones) has passed `position`,
   * false after `timeoutMs`.
   */
  async waitFor(position: number, timeoutMs: number, names?: string[]): Promise<boolean> {
    const watched = names ? this.states.filter((s) => names.includes(s.projector.name)) : this.states;
    const reached = () => watched.every((s) => s.position >= position);
    const deadline = performance.now() + timeoutMs;
    while (!reached()) {
      const left = deadline - performance.now();
      if (left <= 0 || !this.running) return reached();
      if (watched.some((s) => !s.leader)) {
        // Another instance owns some of these projectors: learn its progress from the checkpoints.
        await Promise.race([this.waitNotify(Math.min(left, 50)), Promise.resolve()]);
        await this.loadCheckpoints(watched.filter((s) => !s.leader));
      } else {
        await this.waitNotify(left);
      }
    }
    return true;
  }

  private waitNotify(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  private notify() {
    const w = [...this.waiters];
    this.waiters.clear();
    for (const f of w) f();
  }

  private async loadCheckpoints(states = this.states): Promise<void> {
    if (states.length === 0) return;
    const rows = await this.deps.db
      .selectFrom('projection_checkpoints')
      .select(['name', 'position'])
      .where(
        'name',
        'in',
        states.map((s) => s.projector.name),
      )
      .execute();
    const byName = new Map(rows.map((r) => [r.name, Number(r.position)]));
    for (const s of states) s.position = Math.max(s.position, byName.get(s.projector.name) ?? 0);
  }

  private async claimLeadership(): Promise<void> {
    if (this.deps.lead === false) return;
    if (this.leaderClient?.broken) this.loseLeadership();
    this.leaderClient ??= await this.deps.pool.connect();
    for (const s of this.states) {
      if (s.leader) continue;
      const { rows } = await this.leaderClient.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
        projectorLockKey(s.projector.name),
      ]);
      s.leader = rows[0].ok;
    }
  }

  /**
   * The session holding the advisory locks is gone (database restart, terminated backend): the locks went
   * with it, so another instance may lead now. Claim again, from the stored checkpoints.
   */
  private loseLeadership(): void {
    const client = this.leaderClient;
    this.leaderClient = null;
    client?.release();
    for (const s of this.states) s.leader = false;
    this.deps.logger.warn('lost the projector leadership session; claiming again');
  }

  private async run(): Promise<void> {
    let lastClaim = performance.now();
    let failures = 0;
    // Armed before each read: an append during a batch wakes the loop at once, and no wake-up is lost in
    // between (each wake is followed by a read).
    let appended: Promise<void> | null = null;
    while (this.running) {
      try {
        if (this.leaderClient?.broken) {
          this.loseLeadership();
          lastClaim = Number.NEGATIVE_INFINITY;
        }
        if (this.deps.lead !== false && this.states.some((s) => !s.leader) && performance.now() - lastClaim > 2000) {
          lastClaim = performance.now();
          await this.claimLeadership();
          await this.loadCheckpoints(this.states.filter((s) => s.leader));
        }
        appended ??= this.deps.store.waitForAppend(this.pollMs);
        const more = await this.step();
        failures = 0;
        if (!more && this.running) {
          await appended;
          appended = null;
          // A timer may fire a millisecond or so early (whole milliseconds, the loop's cached clock): wait out the rest.
          for (let gap = this.gapLeft(); gap > 0 && this.running; gap = this.gapLeft())
            await new Promise((resolve) => setTimeout(resolve, Math.ceil(gap)));
        }
      } catch (err) {
        failures += 1;
        const retryInMs = this.retryDelay(err, failures);
        this.deps.logger.error({ err, retryInMs }, 'projection loop failed; retrying');
        // A failed claim may have left some projectors unclaimed: claim again at the next turn.
        lastClaim = Number.NEGATIVE_INFINITY;
        if (this.running) await this.waitNotify(retryInMs);
      }
    }
  }

  /**
   * One batch for every projector this instance leads and that is not backing off; true when it read a full
   * batch (more may be waiting), false when it reached the head of the log or leads nothing. When no
   * projector has an event to handle, their checkpoints move in memory only (advanceIdle). We accept that the
   * slowest projector holds the others' rows back by its batch: one transaction for all of them is one commit
   * instead of one per projector. On PostgreSQL a batch in flight is a writing transaction, so the log shows
   * nothing appended after it began until it commits (docs/decisions/0002-all-reader-visibility.md).
   */
  private async step(): Promise<boolean> {
    const now = performance.now();
    const active = this.states.filter((s) => s.leader && s.retryAt <= now);
    if (active.length === 0) return false;
    const from = Math.min(...active.map((s) => s.position));
    this.readAt = now;
    const events = await this.deps.store.readAll(from, this.batchSize);
    if (events.length === 0) {
      // The log is quiet: the idle positions not yet stored are, now, so that followers see the head.
      await this.writeIdle();
      return false;
    }
    const upTo = events[events.length - 1].globalPosition;
    const behind = active.filter((s) => s.position < upTo);
    if (behind.some((s) => this.eventsOf(s, events).length > 0)) await this.applyTogether(behind, events, upTo);
    else await this.advanceIdle(behind, upTo);
    return events.length === this.batchSize;
  }

  private eventsOf(s: State, events: RecordedEvent[]): RecordedEvent[] {
    return events.filter((e) => e.globalPosition > s.position && handles(s.projector, e));
  }

  /**
   * The batch for these projectors in one transaction. Never throws: when it fails, the projectors with events
   * are tried again each alone, so that a failing one backs off alone while the others go on.
   */
  private async applyTogether(states: State[], events: RecordedEvent[], upTo: number): Promise<void> {
    const shares = states.map((s) => {
      const emitted: BusMessage[] = [];
      const share: BatchShare = {
        projector: s.projector,
        from: s.position,
        events: this.eventsOf(s, events),
        emit: (m) => emitted.push(m),
        memory: this.memoryOf(s),
      };
      return { s, share, emitted };
    });
    let left: Projector[];
    try {
      const { db } = await this.sessionOf();
      left = await db.transaction().execute((trx) =>
        applyBatch(
          trx,
          shares.map((x) => x.share),
          upTo,
        ),
      );
    } catch (err) {
      // What the failed batch kept may hold rows that never committed.
      for (const s of states) s.memory = null;
      if (this.session?.client.broken) this.dropSession();
      const applying = shares.filter((x) => x.share.events.length > 0).map((x) => x.s);
      if (applying.length === 1 || isConnectionLoss(err)) this.backOff(applying, err);
      else for (const s of applying) await this.applyTogether([s], events, upTo);
      return;
    }
    const moved = shares.filter((x) => left.includes(x.s.projector)).map((x) => x.s);
    const committed = shares.filter((x) => !left.includes(x.s.projector));
    this.advanced(
      committed.map((x) => x.s),
      upTo,
    );
    if (moved.length === 0 && states.length === this.states.filter((s) => s.leader).length) {
      // Every stored checkpoint is where memory has it.
      this.idlePending = false;
      this.idleWrittenAt = performance.now();
    }
    // The next batch need not wait for the bus: messages follow their commits in order, one chain per projector.
    for (const { s, share, emitted } of committed)
      if (share.events.length > 0)
        s.published = s.published.then(() => this.publish(s.projector, share.events, emitted));
    await this.resumeMoved(moved);
  }

  /** Projectors whose checkpoint a rebuild moved on: they go on from it, with what their batches kept dropped. */
  private async resumeMoved(moved: State[]): Promise<void> {
    if (moved.length === 0) return;
    this.deps.logger.info(
      { projectors: moved.map((s) => s.projector.name) },
      'checkpoint moved by a rebuild; resuming from it',
    );
    for (const s of moved) s.memory = null;
    await this.loadCheckpoints(moved).catch((err) => this.backOff(moved, err));
  }

  private async sessionOf(): Promise<{ client: SqlClient; db: Db }> {
    if (this.session) return this.session;
    const client = await this.deps.pool.connect();
    try {
      await client.query(ASYNC_COMMIT);
    } catch (err) {
      client.release();
      throw err;
    }
    this.session = { client, db: createDb(onOneConnection(client, this.deps.pool.kind)) };
    return this.session;
  }

  private dropSession(): void {
    this.session?.client.release();
    this.session = null;
  }

  /**
   * Projectors with nothing to apply in this batch move at once in memory, and their stored checkpoints
   * follow at most every IDLE_WRITE_MS, in one statement: instances that only serve the API follow those
   * rows, and a restart re-reads a few events it does not handle. A move held back by that interval is
   * written at the next read that finds the log quiet: else an API-only instance would see the projector
   * behind for as long as no new event came. The write only moves a row forward; a row a rebuild moved
   * further is left, and reloaded.
   */
  private async advanceIdle(states: State[], upTo: number): Promise<void> {
    this.advanced(states, upTo);
    if (states.length > 0) this.idlePending = true;
    await this.writeIdle();
  }

  private async writeIdle(): Promise<void> {
    if (!this.idlePending) return;
    const now = performance.now();
    if (now - this.idleWrittenAt < IDLE_WRITE_MS) return;
    this.idleWrittenAt = now;
    this.idlePending = false;
    const idle = this.states.filter((s) => s.leader);
    if (idle.length === 0) return;
    try {
      const written = await moveCheckpoints(
        (await this.sessionOf()).db,
        idle.map((s) => ({ name: s.projector.name, guard: s.position, to: s.position })),
      );
      await this.resumeMoved(idle.filter((s) => !written.has(s.projector.name)));
    } catch (err) {
      if (this.session?.client.broken) this.dropSession();
      this.idlePending = true;
      this.backOff(idle, err);
    }
  }

  /** How long until the loop may read the log again (READ_GAP_MS after its last read). */
  private gapLeft(): number {
    return this.readAt + this.readGapMs - performance.now();
  }

  /**
   * The memory of a projector whose batches keep one, if it is true as of the projector's position (its last
   * batch committed, or idle batches moved it on); otherwise a fresh one, the tables read again.
   */
  private memoryOf(s: State): BatchMemory | undefined {
    if (!s.projector.applyBatch) return undefined;
    if (s.memory?.position !== s.position || s.memory.kept.size > MEMORY_ENTRIES)
      s.memory = { kept: new Map(), position: s.position };
    return s.memory.kept;
  }

  private advanced(states: State[], upTo: number): void {
    if (states.length === 0) return;
    for (const s of states) {
      // A memory true at the old position stays true: the batch that moved it was applied, or had nothing.
      const to = Math.max(s.position, upTo);
      if (s.memory?.position === s.position) s.memory.position = to;
      s.position = to;
      s.failures = 0;
      s.retryAt = 0;
    }
    this.notify();
  }

  /**
   * Exponential, but a lost database is not the projector's fault: it is retried at least every second,
   * so the read models resume within a second of the database coming back.
   */
  private retryDelay(err: unknown, failures: number): number {
    return Math.min(isConnectionLoss(err) ? 1000 : 30_000, Math.max(this.pollMs, 100 * 2 ** failures));
  }

  private backOff(states: State[], err: unknown): void {
    for (const s of states) {
      s.failures += 1;
      s.retryAt = performance.now() + this.retryDelay(err, s.failures);
      this.deps.logger.error(
        { err, projector: s.projector.name, from: s.position },
        'projector batch failed; it will be retried',
      );
    }
  }

  private async publish(p: Projector, events: RecordedEvent[], emitted: BusMessage[]): Promise<void> {
    try {
      for (const m of await messagesOf(p, events, emitted, this.deps.db))
        await this.deps.bus.publish(m.subject, m.data);
    } catch (err) {
      this.deps.logger.warn(
        { err, projector: p.name, from: events[0]?.globalPosition },
        'publishing after commit failed',
      );
    }
  }
}
