import { formatInTimeZone } from 'date-fns-tz';
import { sql } from 'kysely';
import {
  poolStream,
  receiptStream,
  type Beneficiary,
  type PayoutMethod,
  type ReceiptIssuedData,
} from '../../domain/settlement/events.js';
import {
  receiptLines,
  SETTLEABLE_TYPES,
  settleableEntries,
  type SettleableEntry,
} from '../../domain/settlement/issue.js';
import { withoutHeldReimbursements, type CreditHoldFacts } from '../../domain/settlement/creditHold.js';
import { poolDecider } from '../../domain/settlement/pool.js';
import { receiptDecider } from '../../domain/settlement/receipt.js';
import type { SettlementConfig } from '../../domain/settlement/config.js';
import { unprocessable } from '../../domain/errors.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { derivedEventId, nextId, nextIds } from '../origin.js';
import { exchangeRateAmount } from '../wallet/earnings.js';
import { receiptNumberOf } from '../../stores/settlement/receiptNumbers.js';
import { loadSettlementConfig } from './settlementConfig.js';

export type SettlementCtx = Pick<
  CommandDeps,
  'db' | 'reference' | 'store' | 'handle' | 'clock' | 'settle' | 'config' | 'providers' | 'logger'
>;

/** What a run answers for each receipt it issued or moved. */
export interface RunReceipt {
  id: number;
  receipt_number: string;
  driver_id: number;
  status: string;
}

const signedSql = sql<number>`CASE WHEN e.direction = 'CREDIT' THEN e.amount_cents ELSE -e.amount_cents END`;

/** The driver's ledger entries with their orders' figures (the orders' area, through reference data), oldest first. */
const entriesOf = async (ctx: SettlementCtx, driverId: number, receiptId?: string): Promise<SettleableEntry[]> => {
  let q = ctx.db
    .selectFrom('settlement_entries')
    .select(['entry_id', 'type', 'direction', 'amount_cents', 'order_id', 'exchange_rate_amount', 'description', 'at'])
    .where('driver_id', '=', driverId);
  if (receiptId) q = q.where('receipt_id', '=', receiptId);
  const rows = await q.orderBy('position').execute();
  const orders = await ctx.reference.orderFigures(
    rows.flatMap((r) => (r.order_id === null ? [] : [Number(r.order_id)])),
  );
  return rows.map((r) => ({
    entryId: r.entry_id,
    type: r.type,
    direction: r.direction,
    amountCents: Number(r.amount_cents),
    orderId: r.order_id === null ? null : Number(r.order_id),
    exchangeRateAmount: r.exchange_rate_amount,
    description: r.description,
    at: new Date(r.at).toISOString(),
    order: (r.order_id !== null && orders.get(Number(r.order_id))) || null,
  }));
};

/** The payout account the wallet last set (settlement's own read model) and the driver's name and city (drivers' area). */
const beneficiaryOf = async (
  ctx: SettlementCtx,
  driverId: number,
  now: Date,
): Promise<{ beneficiary: Beneficiary; cityId: number | null } | null> => {
  const row = await ctx.db
    .selectFrom('settlement_payout_accounts')
    .select(['method', 'bank_code', 'id_number', 'phone', 'account_number', 'account_type'])
    .where('driver_id', '=', driverId)
    .executeTakeFirst();
  if (!row) return null;
  const driver = await ctx.reference.driver(driverId, now);
  const method = row.method as PayoutMethod;
  return {
    beneficiary: {
      name: driver?.name ?? null,
      method,
      idNumber: row.id_number,
      bankCode: row.bank_code,
      account: method === 'PAGO_MOVIL' ? row.phone : row.account_number,
      accountType: row.account_type,
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
  reserved: { driverId: number; receiptId: string; entries?: SettleableEntry[] },
  now: Date,
  metadata: EventMetadata,
): Promise<RunReceipt | null> => {
  const { driverId, receiptId } = reserved;
  const entries = reserved.entries ?? (await entriesOf(ctx, driverId, receiptId));
  const account = await beneficiaryOf(ctx, driverId, now);
  if (entries.length === 0 || !account) return null;
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

/** What the payout hold on credit-funded reimbursements needs to know about these entries' orders. */
const creditHoldFactsOf = async (
  ctx: SettlementCtx,
  entries: SettleableEntry[],
  now: Date,
): Promise<CreditHoldFacts> => {
  const orderIds = [
    ...new Set(entries.filter((e) => e.type === 'PROMO_REIMBURSEMENT' && e.orderId !== null).map((e) => e.orderId!)),
  ];
  const figures = await ctx.reference.orderFigures(orderIds);
  const orders = new Map([...figures].map(([id, o]) => [id, { clientId: o.clientId, createdAt: o.createdAt }]));
  const manualCreditsAt = await ctx.reference.manualCreditTimes([
    ...new Set([...orders.values()].map((o) => o.clientId)),
  ]);
  return { orders, manualCreditsAt, holdHours: ctx.config.CREDIT_PAYOUT_HOLD_HOURS, now };
};

const pendingPayoutOf = async (ctx: SettlementCtx, driverId: number): Promise<number> => {
  const pending = await ctx.db
    .selectFrom('settlement_receipts')
    .select(sql<number>`COALESCE(SUM(payable_cents), 0)`.as('cents'))
    .where('driver_id', '=', driverId)
    .where('status', 'in', ['GENERATED', 'IN_PAYMENT', 'FAILED'])
    .executeTakeFirstOrThrow();
  return Number(pending.cents);
};

/**
 * Reserves the driver's settleable entries in the pool, then issues the receipt. The receipt id follows
 * from the pool's version, so two cutoffs deciding on the same pool reserve the same receipt (one append
 * wins, the other appends nothing or decides again on the new version).
 */
const cutoffForDriver = async (
  ctx: SettlementCtx,
  terms: CutoffTerms,
  driverId: number,
  now: Date,
  metadata: EventMetadata,
): Promise<RunReceipt | null> => {
  const { config } = terms;
  const ledger = await entriesOf(ctx, driverId);
  const figures = {
    balanceCents: ledger.reduce((sum, e) => sum + (e.direction === 'CREDIT' ? e.amountCents : -e.amountCents), 0),
    pendingPayoutCents: await pendingPayoutOf(ctx, driverId),
  };
  // Held reimbursements stay in the balance; they are only not settled yet.
  const entries = withoutHeldReimbursements(ledger, await creditHoldFactsOf(ctx, ledger, now));
  let receiptId: string | null = null;
  let reserved: SettleableEntry[] = [];
  await ctx.handle(
    poolDecider,
    poolStream(driverId),
    (pool) => {
      receiptId = null;
      const open = settleableEntries(entries, {
        coveredEntryIds: new Set(Object.keys(pool.coveredBy)),
        minBalanceCents: config.minBalanceCents,
        ...figures,
      });
      if (open.length === 0) return null;
      // The pool's version counts its events: the receipt id follows from the pool as it was decided on.
      receiptId = derivedEventId(poolStream(driverId), `receipt-${pool.version}`);
      reserved = open;
      const payableCents = open.reduce((s, e) => s + (e.direction === 'CREDIT' ? e.amountCents : -e.amountCents), 0);
      return {
        type: 'ReserveEntries',
        driverId,
        receiptId,
        entryIds: open.map((e) => e.entryId),
        payableCents,
        at: now.toISOString(),
      };
    },
    { metadata, eventIds: () => derivedEventId(receiptId!, 'reserved') },
  );
  // Nothing appended (a racing run reserved first and nothing is left) also leaves no receipt to issue here.
  if (!receiptId) return null;
  return issueReserved(ctx, terms, { driverId, receiptId, entries: reserved }, now, metadata);
};

/**
 * The cutoff (docs/domain-rules.md, settlement receipts): first finishes receipts a crashed run reserved but did
 * not issue, then one receipt per driver with a payout account whose uncovered entries reach the
 * minimum balance. Running it again issues nothing twice: covered entries are no longer settleable.
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
  await ctx.settle(await ctx.store.headPosition());
  const out: RunReceipt[] = [];
  const orphans = await ctx.db
    .selectFrom('settlement_entries as e')
    .select(['e.receipt_id', 'e.driver_id'])
    .distinct()
    .where('e.receipt_id', 'is not', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('settlement_receipts as r').select('r.id').whereRef('r.id', '=', 'e.receipt_id'))),
    )
    .execute();
  for (const o of orphans) {
    const issued = await issueReserved(
      ctx,
      terms,
      { driverId: Number(o.driver_id), receiptId: o.receipt_id! },
      now,
      metadata,
    );
    if (issued) out.push(issued);
  }
  const candidates = await ctx.db
    .selectFrom('settlement_entries as e')
    .innerJoin('settlement_payout_accounts as a', 'a.driver_id', 'e.driver_id')
    .select('e.driver_id')
    .where('e.receipt_id', 'is', null)
    .where('e.type', 'in', SETTLEABLE_TYPES)
    .groupBy('e.driver_id')
    .having(sql`SUM(${signedSql})`, '>=', config.minBalanceCents)
    .orderBy('e.driver_id')
    .execute();
  // One command per driver: each decides on its own pool, so a failure stops the run without touching the others'.
  for (const c of candidates) {
    const issued = await cutoffForDriver(ctx, terms, Number(c.driver_id), now, metadata);
    if (issued) out.push(issued);
  }
  return out;
};
