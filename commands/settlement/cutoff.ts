import { formatInTimeZone } from 'date-fns-tz';
import { poolStream, receiptStream, type Beneficiary, type ReceiptIssuedData } from '../../domain/settlement/events.js';
import { receiptLines, type SettleableEntry } from '../../domain/settlement/issue.js';
import { readFrom, type WalletEntry } from '../../domain/settlement/period.js';
import type { WalletState } from '../../domain/wallet/wallet.js';
import { fold } from '../../domain/decider.js';
import {
  creditHistoryOf,
  mayBeCreditFunded,
  withoutHeldEntries,
  type CreditFundedOrder,
  type CreditHoldFacts,
} from '../../domain/settlement/creditHold.js';
import { creditStream, type CreditEvent } from '../../domain/credit/events.js';
import { orderStream, type OrderEvent } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { poolDecider, type PoolState } from '../../domain/settlement/pool.js';
import { receiptDecider } from '../../domain/settlement/receipt.js';
import type { SettlementConfig } from '../../domain/settlement/config.js';
import { unprocessable } from '../../domain/errors.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { derivedEventId, nextId, nextIds } from '../origin.js';
import { exchangeRateAmount } from '../wallet/earnings.js';
import { receiptNumberOf } from '../../stores/settlement/receiptNumbers.js';
import { closeWallet, openBooks, readWallet, type WalletRead } from './books.js';
import { payeesOf } from './payees.js';
import { loadSettlementConfig } from './settlementConfig.js';

export type SettlementCtx = Pick<
  CommandDeps,
  'db' | 'reference' | 'store' | 'handle' | 'clock' | 'settle' | 'config' | 'providers' | 'logger' | 'metrics'
>;

/** What a run answers for each receipt it issued or moved. */
export interface RunReceipt {
  id: number;
  receipt_number: string;
  driver_id: number;
  status: string;
}

/**
 * The entries with their orders' figures: as the delivery decided them, carried on the entry
 * (docs/decisions/0098); an entry recorded before entries carried them takes its order's from the orders'
 * area (through reference data). In ledger order.
 */
const withOrders = async (ctx: SettlementCtx, entries: WalletEntry[]): Promise<SettleableEntry[]> => {
  const missing = entries.flatMap((e) => (e.orderId !== null && e.order === null ? [e.orderId] : []));
  if (missing.length === 0) return entries;
  const orders = await ctx.reference.orderFigures(missing);
  return entries.map((e) =>
    e.order !== null || e.orderId === null ? e : { ...e, order: orders.get(e.orderId) ?? null },
  );
};

/** The payout account the wallet stream holds and the driver's name and city (drivers' area). */
const beneficiaryOf = async (
  ctx: SettlementCtx,
  driverId: number,
  account: WalletState['payoutAccount'],
  now: Date,
): Promise<{ beneficiary: Beneficiary; cityId: number | null } | null> => {
  if (!account) return null;
  const driver = await ctx.reference.driver(driverId, now);
  return {
    beneficiary: {
      name: driver?.name ?? null,
      method: account.method,
      idNumber: account.idNumber,
      bankCode: account.bankCode,
      account: account.method === 'PAGO_MOVIL' ? account.phone : account.accountNumber,
      accountType: account.accountType,
    },
    cityId: driver?.cityId ?? null,
  };
};

/** What every receipt of one cutoff run shares: the configuration and the official rate at the cutoff. */
interface CutoffTerms {
  config: SettlementConfig;
  /** Bolivars per USD in force at the cutoff: the ADJUSTMENT lines' rate. */
  rate: string;
}

/** Issues the receipt a reservation promised (again after a crash: the event id makes it once). */
const issueReserved = async (
  ctx: SettlementCtx,
  { config, rate }: CutoffTerms,
  reserved: { driverId: number; receiptId: string; entries: WalletEntry[]; wallet: WalletRead },
  now: Date,
  metadata: EventMetadata,
): Promise<RunReceipt | null> => {
  const { driverId, receiptId } = reserved;
  const account = await beneficiaryOf(ctx, driverId, reserved.wallet.state.payoutAccount, now);
  if (reserved.entries.length === 0 || !account) return null;
  const entries = await withOrders(ctx, reserved.entries);
  const fiscalPeriod = formatInTimeZone(now, config.timezone, 'yyyy-MM');
  const receiptNumber = await receiptNumberOf(ctx.db, receiptId, fiscalPeriod);
  const { lines, totals } = receiptLines(entries, config.ivaPrc, rate);
  // Minted again by a run that finishes a crashed one: only the ids of the event that is stored count.
  const [recordId, lineIds] = await Promise.all([
    nextId(ctx.db, 'receipt_id_seq'),
    nextIds(ctx.db, 'receipt_line_id_seq', lines.length),
  ]);
  const data: ReceiptIssuedData = {
    receiptId,
    recordId,
    receiptNumber,
    fiscalPeriod,
    driverId,
    cityId: account.cityId,
    cutoffFrom: entries.map((e) => e.at).sort()[0],
    cutoffTo: now.toISOString(),
    ivaPrc: config.ivaPrc,
    entryIds: entries.map((e) => e.entryId),
    lines: lines.map((l, i) => ({ recordId: lineIds[i], ...l })),
    totals,
    beneficiary: account.beneficiary,
    issuedAt: now.toISOString(),
  };
  const { state, events } = await ctx.handle(
    receiptDecider,
    receiptStream(receiptId),
    { type: 'IssueReceipt', data },
    { metadata, eventIds: () => derivedEventId(receiptId, 'issued') },
  );
  // Issued by a racing run already: reported by that run.
  if (events.length === 0) return null;
  return {
    id: state.issued!.recordId,
    receipt_number: state.issued!.receiptNumber,
    driver_id: driverId,
    status: state.status,
  };
};

/**
 * What the payout hold (domain/settlement/creditHold.ts) needs about these entries' orders, read from the log
 * (each order's stream, its client's credit stream), not from a read model that could lag a fresh credit.
 */
const creditHoldFactsOf = async (ctx: SettlementCtx, entries: WalletEntry[], now: Date): Promise<CreditHoldFacts> => {
  const orders = new Map<number, CreditFundedOrder>();
  const manualCreditsAt = new Map<number, string[]>();
  const histories = new Map<number, ReturnType<typeof creditHistoryOf>>();
  for (const orderId of new Set(entries.filter(mayBeCreditFunded).map((e) => e.orderId!))) {
    const order = fold(
      orderDecider.evolve,
      orderDecider.initialState,
      (await ctx.store.readStream(orderStream(orderId))) as unknown as OrderEvent[],
    );
    if (!order) continue;
    let history = histories.get(order.clientId);
    if (!history) {
      history = creditHistoryOf((await ctx.store.readStream(creditStream(order.clientId))) as unknown as CreditEvent[]);
      histories.set(order.clientId, history);
      manualCreditsAt.set(order.clientId, history.manualCreditsAt);
    }
    const redeemedAt = history.redeemedAt.get(orderId);
    if (redeemedAt) orders.set(orderId, { clientId: order.clientId, redeemedAt, deliveredAt: order.deliveredAt });
  }
  return { orders, manualCreditsAt, holdHours: ctx.config.CREDIT_PAYOUT_HOLD_HOURS, now };
};

/**
 * Issues a receipt a crashed run reserved in the pool but did not issue: a pre-period reservation, or the
 * last period's receipt. Its entries come from the pool and the wallet stream (read further back when they
 * lie before the read), its event id from the receipt, so it is issued once whichever run gets there.
 */
const finishReserved = async (
  ctx: SettlementCtx,
  terms: CutoffTerms,
  { driverId, pool, wallet }: { driverId: number; pool: PoolState; wallet: WalletRead },
  receiptId: string,
  now: Date,
  metadata: EventMetadata,
): Promise<RunReceipt | null> => {
  const last = pool.lastClosed?.receiptId === receiptId ? pool.lastClosed.entries : null;
  const ids = pool.reservations[receiptId]?.entryIds ?? last?.map((e) => e.entryId);
  if (!ids) return null;
  // A pre-period reservation knows no revisions: from the start.
  const from = last ? Math.min(...last.map((e) => e.revision)) : 0;
  const read = from >= wallet.from ? wallet : await readWallet(ctx, driverId, from);
  const covered = new Set(ids);
  const entries = read.entries.filter((e) => covered.has(e.entryId));
  return issueReserved(ctx, terms, { driverId, receiptId, entries, wallet: read }, now, metadata);
};

/** Receipts a crashed run reserved in the pool and never issued, finished before the period closes. */
const finishCrashed = async (
  ctx: SettlementCtx,
  terms: CutoffTerms,
  books: { driverId: number; pool: PoolState; wallet: WalletRead },
  now: Date,
  metadata: EventMetadata,
): Promise<RunReceipt[]> => {
  const { pool, wallet } = books;
  // Pre-period reservations (a run of the code before periods) only while no period closed: the first
  // period settles past them, so it must not close before they are issued. Then the last period's receipt,
  // unless the wallet's close names it: that close is written once the receipt is issued.
  const reserved =
    pool.period === 0
      ? Object.entries(pool.reservations)
          .filter(([, r]) => !r.released)
          .map(([receiptId]) => receiptId)
      : [];
  if (pool.lastClosed && pool.lastClosed.receiptId !== wallet.close?.receiptId)
    reserved.push(pool.lastClosed.receiptId);
  const out: RunReceipt[] = [];
  for (const receiptId of reserved) {
    if ((await ctx.store.readStream(receiptStream(receiptId))).length > 0) continue;
    const finished = await finishReserved(ctx, terms, books, receiptId, now, metadata);
    if (finished) out.push(finished);
  }
  return out;
};

/**
 * One driver's cutoff (`CloseSettlementPeriod`, docs/decisions/0050): decided on the driver's own streams,
 * the pool's books and the wallet each read from their last close (docs/decisions/0098), then the receipt
 * issued and the period's close recorded in the wallet. The receipt id follows from the pool's version, so
 * two cutoffs deciding on the same pool close the same period (one append wins; the other decides again on
 * the new version, and finds nothing left). A driver without a payout account has no one to pay: the books
 * stay open until there is one.
 */
const cutoffForDriver = async (
  ctx: SettlementCtx,
  terms: CutoffTerms,
  driverId: number,
  now: Date,
  metadata: EventMetadata,
): Promise<RunReceipt[]> => {
  const { pool, wallet } = await openBooks(ctx, driverId);
  // Nothing moved since the last close and nothing is carried: nothing to decide.
  if (!pool || !wallet.state.payoutAccount) return [];
  const out = await finishCrashed(ctx, terms, { driverId, pool, wallet }, now, metadata);
  const from = readFrom(pool.opening);
  const read = wallet.entries.filter((e) => e.revision >= from);
  // Nothing moved since the books closed and nothing is carried: nothing to decide.
  if (read.length === 0) return out;
  // Held entries stay in the books, carried; they are only not settled yet.
  const eligible = new Set(withoutHeldEntries(read, await creditHoldFactsOf(ctx, read, now)).map((e) => e.entryId));
  const heldEntryIds = new Set(read.filter((e) => !eligible.has(e.entryId)).map((e) => e.entryId));
  let receiptId: string | null = null;
  const { events, version } = await ctx.handle(
    poolDecider,
    poolStream(driverId),
    (state) => {
      receiptId = null;
      // Entries returned since the read lie before it: the next cutoff reads them.
      if (readFrom(state.opening) < from) return null;
      // The pool's version counts its events: the receipt id follows from the pool as it was decided on.
      receiptId = derivedEventId(poolStream(driverId), `receipt-${state.version}`);
      return {
        type: 'CloseSettlementPeriod',
        driverId,
        receiptId,
        read,
        heldEntryIds,
        minBalanceCents: terms.config.minBalanceCents,
        at: now.toISOString(),
      };
    },
    // The pool as opened (from its close): decided on without reading it again; a stale one conflicts.
    {
      metadata,
      eventIds: () => derivedEventId(receiptId!, 'reserved'),
      loaded: { state: pool, version: pool.version },
    },
  );
  const closed = events.find((e) => e.type === 'SettlementPeriodClosed');
  // Nothing appended (nothing to settle, or a racing run closed the period first) leaves no receipt to issue here.
  if (!closed || closed.type !== 'SettlementPeriodClosed') return out;
  const covered = new Set(closed.data.entries.map((e) => e.entryId));
  const entries = wallet.entries.filter((e) => covered.has(e.entryId));
  const issued = await issueReserved(
    ctx,
    terms,
    { driverId, receiptId: closed.data.receiptId, entries, wallet },
    now,
    metadata,
  );
  if (!issued) return out;
  const { period, payableCents, closing } = closed.data;
  // The close is the pool's last event: the one this decision appended.
  const poolRevision = version - 1;
  await closeWallet(
    ctx,
    driverId,
    wallet,
    { period, receiptId: closed.data.receiptId, payableCents, poolRevision, closing },
    now,
    metadata,
  );
  return [...out, issued];
};

/**
 * The cutoff (docs/domain-rules.md, settlement receipts): for every payee (docs/decisions/0055), first
 * finishes receipts a crashed run reserved but did not issue, then closes the period with one receipt when
 * the uncovered entries reach the minimum balance. Everything comes from the event store (the payees'
 * register, each driver's pool and wallet), so the run waits for no read model and misses no driver whose
 * wallet moved a moment ago. Running it again issues nothing twice: covered entries are no longer settleable.
 */
export const runCutoff = async (ctx: SettlementCtx, metadata: EventMetadata = {}): Promise<RunReceipt[]> => {
  const now = ctx.clock.now();
  const config = await loadSettlementConfig(ctx);
  // Without an official rate no line can be paid in bolivars: nothing is reserved or issued.
  const official = await ctx.reference.officialRate(now);
  if (!official)
    throw unprocessable(
      'ExchangeRateUnavailable',
      'No official VES exchange rate is in force: the cutoff cannot price its receipts.',
    );
  const terms: CutoffTerms = { config, rate: exchangeRateAmount(official.rateCents) };
  const out: RunReceipt[] = [];
  // One command per driver: each decides on its own pool, so a failure stops the run without touching the others'.
  for (const driverId of await payeesOf(ctx.store)) {
    out.push(...(await cutoffForDriver(ctx, terms, driverId, now, metadata)));
  }
  return out;
};
