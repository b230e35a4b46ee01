import { receiptStream } from '../../domain/settlement/events.js';
import {
  currentOrder,
  receiptDecider,
  type Admin,
  type PayoutOrderState,
  type ReceiptCommand,
  type ReceiptState,
} from '../../domain/settlement/receipt.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { PayoutAnswer } from '../../infra/payouts/port.js';
import { derivedEventId, nextId } from '../origin.js';
import type { RunReceipt, SettlementCtx } from './cutoff.js';

/** One command on one receipt; the one handler runs its effects on the wallet and the pool (effects.ts). */
export const runReceipt = (
  ctx: Pick<SettlementCtx, 'handle'>,
  receiptId: string,
  command: (s: ReceiptState) => ReceiptCommand | null,
  metadata: EventMetadata = {},
) => ctx.handle(receiptDecider, receiptStream(receiptId), command, { metadata });

/**
 * The internal ids of a receipt's n-th payout order follow from the receipt, so two runs creating it
 * agree; its record id is minted, and only the one in the stored event counts.
 */
const orderIds = (receiptId: string, n: number, recordId: number) => ({
  payoutOrderId: derivedEventId(receiptId, `payout-order-${n}`),
  idempotencyKey: derivedEventId(receiptId, `payout-key-${n}`),
  recordId,
});

const attemptOf = (order: PayoutOrderState, answer: PayoutAnswer, synchronous: boolean, at: string): ReceiptCommand => {
  const base = {
    type: 'RecordAttempt' as const,
    payoutOrderId: order.id,
    synchronous,
    source: 'provider' as const,
    at,
    transactionId: null,
    reference: null,
    error: null,
  };
  switch (answer.kind) {
    case 'confirmed':
      return {
        ...base,
        result: 'CONFIRMED',
        providerCode: answer.providerCode,
        transactionId: answer.transactionId,
        reference: answer.reference,
      };
    case 'acknowledged':
      return {
        ...base,
        result: 'ACKNOWLEDGED',
        providerCode: answer.providerCode,
        transactionId: answer.transactionId,
      };
    case 'rejected':
      return { ...base, result: 'REJECTED', providerCode: answer.providerCode, error: answer.reason };
    case 'unknown':
      return {
        ...base,
        result: answer.error === 'no_answer' ? 'NO_ANSWER' : 'ERROR',
        providerCode: null,
        error: `${answer.error}: ${answer.detail}`,
      };
  }
};

/** Sends the receipt's open payout order (again, with the same internal id) and records the answer. */
const sendOrder = async (
  ctx: SettlementCtx,
  receiptId: string,
  state: ReceiptState,
  synchronous: boolean,
  metadata: EventMetadata,
): Promise<ReceiptState> => {
  const order = currentOrder(state);
  if (!order || order.status !== 'SENT') return state;
  const answer = await ctx.providers.payouts.send({
    internalId: order.idempotencyKey,
    amountCents: order.amountCents,
    amountBsCents: order.amountBsCents,
    beneficiary: state.issued!.beneficiary,
  });
  const at = ctx.clock.now().toISOString();
  return (await runReceipt(ctx, receiptId, () => attemptOf(order, answer, synchronous, at), metadata)).state;
};

const summary = (s: ReceiptState): RunReceipt => ({
  id: s.issued!.recordId,
  receipt_number: s.issued!.receiptNumber,
  driver_id: s.issued!.driverId,
  status: s.status,
});

/**
 * The payout run: every GENERATED receipt gets its payout order, sent to the provider; an IN_PAYMENT
 * order that got no usable answer yet (timeout, 5xx, silence) is sent again with the same internal id,
 * which the provider pays at most once. The order is recorded before it is sent, so a crash in between
 * leaves an open order that the next run re-sends, never a second one.
 *
 * The receipts to visit come from the read model (waited for, so that a run right after a cutoff sees its
 * receipts); what happens to each is decided on its own stream (docs/decisions/0055): the order is created
 * on the receipt's version, and only an open order its stream shows unanswered is sent.
 */
export const runPayout = async (ctx: SettlementCtx, metadata: EventMetadata = {}): Promise<RunReceipt[]> => {
  await ctx.settle(await ctx.store.headPosition());
  const rows = await ctx.db
    .selectFrom('settlement_receipts')
    .select(['id', 'status'])
    .where('status', 'in', ['GENERATED', 'IN_PAYMENT'])
    .orderBy('issued_at')
    .orderBy('id')
    .execute();
  const out: RunReceipt[] = [];
  for (const row of rows) {
    const at = ctx.clock.now().toISOString();
    // The read model only lags: a receipt it shows IN_PAYMENT is past GENERATED, and needs no record id.
    const recordId = row.status === 'GENERATED' ? await nextId(ctx.db, 'payout_order_id_seq') : null;
    const created = await runReceipt(
      ctx,
      row.id,
      (s) =>
        recordId === null || s.status !== 'GENERATED'
          ? null
          : {
              type: 'CreatePayoutOrder',
              ...orderIds(row.id, s.payoutOrders.length + 1, recordId),
              provider: ctx.providers.payouts.name,
              at,
            },
      metadata,
    );
    // Paid, failed or acknowledged meanwhile (a webhook, a racing run): nothing to send.
    const open = currentOrder(created.state);
    if (created.state.status !== 'IN_PAYMENT' || !open || open.status !== 'SENT' || open.acknowledged) continue;
    const after = await sendOrder(ctx, row.id, created.state, true, metadata);
    out.push(summary(after));
  }
  return out;
};

/**
 * Reconciliation: a payout order with no final answer
 * PAYOUT_RECONCILE_MINUTES after it was sent fails the receipt (deadline).
 */
export const runReconcile = async (ctx: SettlementCtx, metadata: EventMetadata = {}): Promise<RunReceipt[]> => {
  await ctx.settle(await ctx.store.headPosition());
  const now = ctx.clock.now().toISOString();
  const rows = await ctx.db
    .selectFrom('settlement_receipts')
    .select('id')
    .where('status', '=', 'IN_PAYMENT')
    .orderBy('issued_at')
    .execute();
  const out: RunReceipt[] = [];
  for (const row of rows) {
    const r = await runReceipt(
      ctx,
      row.id,
      () => ({ type: 'ReconcileDeadline', now, reconcileMinutes: ctx.config.PAYOUT_RECONCILE_MINUTES }),
      metadata,
    );
    if (r.events.length) out.push(summary(r.state));
  }
  return out;
};

/** Tray: retry a business-failed receipt with a new payout order (the old one is never reopened). */
export const retryReceipt = async (ctx: SettlementCtx, receiptId: string, admin: Admin, metadata: EventMetadata) => {
  const at = ctx.clock.now().toISOString();
  const recordId = await nextId(ctx.db, 'payout_order_id_seq');
  const created = await runReceipt(
    ctx,
    receiptId,
    (s) => ({
      type: 'RetryPayout',
      ...orderIds(receiptId, s.payoutOrders.length + 1, recordId),
      provider: ctx.providers.payouts.name,
      at,
      ...admin,
    }),
    metadata,
  );
  const state = await sendOrder(ctx, receiptId, created.state, true, metadata);
  return { state, position: await ctx.store.headPosition() };
};

export const markExternal = (
  ctx: SettlementCtx,
  receiptId: string,
  body: { reason: string; reference: string },
  admin: Admin,
  metadata: EventMetadata,
) =>
  runReceipt(
    ctx,
    receiptId,
    () => ({ type: 'MarkExternal', ...body, at: ctx.clock.now().toISOString(), ...admin }),
    metadata,
  );

export const annulReceipt = (
  ctx: SettlementCtx,
  receiptId: string,
  body: { reason: string },
  admin: Admin,
  metadata: EventMetadata,
) =>
  runReceipt(ctx, receiptId, () => ({ type: 'Annul', ...body, at: ctx.clock.now().toISOString(), ...admin }), metadata);
