import { fold } from '../../domain/decider.js';
import { poolStream, type Books, type PoolEvent } from '../../domain/settlement/events.js';
import { readFrom, type WalletEntry } from '../../domain/settlement/period.js';
import { poolDecider, poolFromClose, type PoolState } from '../../domain/settlement/pool.js';
import {
  walletStream,
  type LedgerEntryRecordedData,
  type WalletEvent,
  type WalletPeriodClosedData,
} from '../../domain/wallet/events.js';
import { walletDecider, type WalletState } from '../../domain/wallet/wallet.js';
import {
  ConcurrencyError,
  type EventMetadata,
  type RecordedEvent,
  appendToStream,
} from '../../infra/eventStore/port.js';
import { lastClosesOf, recordClose } from '../../stores/settlement/periodCloses.js';
import { derivedEventId } from '../origin.js';
import type { SettlementCtx } from './cutoff.js';

/**
 * A payee's books as a cutoff opens them (docs/decisions/0098): the wallet and the pool each read from the
 * period close the last settling cutoff recorded in them, found through the close index, never by reading
 * the streams from their start. A read that cannot start at a close (none yet, a hint that does not point at
 * one) reads the stream whole: slower, never different.
 */

/** The wallet stream as a cutoff reads it: ledger entries from `from` on, and the state after the read. */
export interface WalletRead {
  from: number;
  entries: WalletEntry[];
  /** Balance and payout account; the causes recorded before `from` are not in it (no wallet command decides on it). */
  state: WalletState;
  /** The stream's last revision (-1: no stream): where the wallet's close is appended. */
  revision: number;
  /** The last period close the read passed. */
  close: WalletPeriodClosedData | null;
  /** Whether the read starts at a close: read from after the stream's start, it must. */
  startsAtClose: boolean;
}

const entryOf = (e: RecordedEvent): WalletEntry[] => {
  if (e.type !== 'LedgerEntryRecorded') return [];
  const d = e.data as LedgerEntryRecordedData;
  return [
    {
      entryId: d.entryId,
      revision: e.streamPosition,
      balanceAfterCents: d.balanceAfterCents,
      type: d.type,
      direction: d.direction,
      amountCents: d.amountCents,
      orderId: d.orderId,
      exchangeRateAmount: d.exchangeRateAmount,
      description: d.description,
      at: new Date(d.at).toISOString(),
      order: d.orderFigures ?? null,
    },
  ];
};

const walletReadOf = (from: number, events: RecordedEvent[]): WalletRead => {
  let close: WalletPeriodClosedData | null = null;
  for (const e of events) if (e.type === 'WalletPeriodClosed') close = e.data as WalletPeriodClosedData;
  return {
    from,
    entries: events.flatMap(entryOf),
    state: fold(walletDecider.evolve, walletDecider.initialState, events as unknown as WalletEvent[]),
    revision: events.at(-1)?.streamPosition ?? from - 1,
    close,
    startsAtClose: events[0]?.type === 'WalletPeriodClosed',
  };
};

/**
 * The wallet from `from` on (0: whole). A read from after the stream's first event must pass a close, or the
 * balance and payout account set before it would be missing: a caller reads from a close or before one.
 */
export const readWallet = async (ctx: SettlementCtx, driverId: number, from: number): Promise<WalletRead> =>
  walletReadOf(from, await ctx.store.readStream(walletStream(driverId), from > 0 ? { from } : undefined));

/** The pool from its close at `closeRevision` when that holds the whole pool, else from its start. */
const readPool = async (ctx: SettlementCtx, driverId: number, closeRevision: number | null): Promise<PoolState> => {
  if (closeRevision !== null) {
    const events = await ctx.store.readStream(poolStream(driverId), { from: closeRevision });
    const pool = poolFromClose(closeRevision, events as unknown as PoolEvent[]);
    if (pool) return pool;
  }
  const events = await ctx.store.readStream(poolStream(driverId));
  return fold(poolDecider.evolve, poolDecider.initialState, events as unknown as PoolEvent[]);
};

/** What a cutoff opens: the pool (null when idle: nothing moved since the close), and the wallet read. */
interface OpenedBooks {
  pool: PoolState | null;
  wallet: WalletRead;
}

/**
 * The payee's books. Idle (nothing to decide) when the wallet's last close is its last word on the period
 * and nothing followed: no ledger entry after it, nothing carried, no pool event after the period's own
 * close, which the wallet's close names; then the pool is not read at all.
 */
export const openBooks = async (ctx: SettlementCtx, driverId: number): Promise<OpenedBooks> => {
  const closedAt = (await lastClosesOf(ctx.db, [walletStream(driverId)])).get(walletStream(driverId));
  if (closedAt === undefined) {
    const pool = await readPool(ctx, driverId, null);
    return { pool, wallet: await readWallet(ctx, driverId, 0) };
  }
  const fromClose = await readWallet(ctx, driverId, closedAt);
  const close = fromClose.close;
  // A hint that does not point at a close (a log rebuilt under it) is not trusted: the streams are read whole.
  if (!close || !fromClose.startsAtClose) {
    const pool = await readPool(ctx, driverId, null);
    return { pool, wallet: await readWallet(ctx, driverId, 0) };
  }
  const need = readFrom(close.closing);
  const unsettled = need < closedAt || fromClose.entries.some((e) => e.revision >= need);
  const poolMoved = (await ctx.store.readStream(poolStream(driverId), { from: close.poolRevision + 1 })).length > 0;
  if (!unsettled && !poolMoved) return { pool: null, wallet: fromClose };
  const pool = await readPool(ctx, driverId, close.poolRevision);
  const from = readFrom(pool.opening);
  return { pool, wallet: from >= closedAt ? fromClose : await readWallet(ctx, driverId, from) };
};

/** What the wallet's close records of the period the pool just closed. */
interface ClosedPeriod {
  period: number;
  receiptId: string;
  payableCents: number;
  poolRevision: number;
  closing: Books;
}

/**
 * Records the period's close in the wallet (after its receipt is issued: a close in the wallet says the
 * receipt exists) and indexes it. The wallet moves while it is closed (a delivery): the close is decided
 * again on the wallet as it then stands, a few times; a wallet that keeps moving keeps its last close, and
 * the next cutoff reads a little more.
 */
export const closeWallet = async (
  ctx: SettlementCtx,
  driverId: number,
  wallet: WalletRead,
  period: ClosedPeriod,
  now: Date,
  metadata: EventMetadata,
): Promise<void> => {
  let read = wallet;
  for (let attempt = 0; attempt < 3; attempt++) {
    const [event] = walletDecider.decide({ type: 'ClosePeriod', driverId, ...period, now }, read.state);
    if (!event) return;
    try {
      const { nextExpectedRevision } = await appendToStream(
        ctx.store,
        walletStream(driverId),
        [{ eventId: derivedEventId(period.receiptId, 'wallet-closed'), type: event.type, data: event.data, metadata }],
        { expectedRevision: read.revision < 0 ? 'no_stream' : read.revision },
      );
      await recordClose(ctx.db, walletStream(driverId), nextExpectedRevision);
      return;
    } catch (err) {
      if (!(err instanceof ConcurrencyError)) throw err;
      read = await readWallet(ctx, driverId, read.from);
    }
  }
};
