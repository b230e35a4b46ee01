import { poolStream, receiptStream, RECEIPT_EVENT_TYPES } from '../../domain/settlement/events.js';
import { poolDecider } from '../../domain/settlement/pool.js';
import { receiptDecider, type ReceiptState } from '../../domain/settlement/receipt.js';
import type { Scheduler } from '../../infra/scheduler.js';
import { derivedEventId } from '../origin.js';
import { processManager, send, startProcess, type Cause, type Send, type Streams } from '../processManager.js';
import { payoutEntryId, sendToWallet } from '../wallet/handlers.js';
import type { SettlementCtx } from './cutoff.js';

export type SettlementEffect =
  | {
      type: 'RecordPayout';
      driverId: number;
      receiptId: string;
      receiptRecordId: number;
      receiptNumber: string;
      amountCents: number;
    }
  | { type: 'ReleaseEntries'; driverId: number; receiptId: string; entryIds: string[]; payableCents: number };

/**
 * What a receipt's state asks of other aggregates: a paid receipt (by the provider or externally) is
 * one PAYOUT_SENT on the wallet, a voided one returns its entries to the pool. Decided from the state,
 * not from the event that moved it, and each effect's id follows from the receipt, so a receipt writes
 * PAYOUT_SENT at most once whatever path (confirmation, late webhook, mark-external) and however often.
 */
export const effectsOf = (s: ReceiptState): SettlementEffect[] => {
  if (!s.issued) return [];
  const { receiptId, recordId, receiptNumber, driverId, totals } = s.issued;
  if (s.status === 'PAID' || s.status === 'PAID_EXTERNALLY')
    return [
      {
        type: 'RecordPayout',
        driverId,
        receiptId,
        receiptRecordId: recordId,
        receiptNumber,
        amountCents: totals.payableCents,
      },
    ];
  if (s.status === 'VOIDED')
    return [
      { type: 'ReleaseEntries', driverId, receiptId, entryIds: s.issued.entryIds, payableCents: totals.payableCents },
    ];
  return [];
};

/**
 * Pure: the commands a receipt event calls for. The pool release takes one id per receipt, and PAYOUT_SENT
 * its entry id (also one per receipt), so whichever event of the receipt sends them, they append once.
 */
export const settlementReactions = (_e: Cause, receipt: ReceiptState, now: Date): Send[] =>
  effectsOf(receipt).map((effect) =>
    effect.type === 'RecordPayout'
      ? sendToWallet({ ...effect, entryId: payoutEntryId(effect.receiptId), now }, 'wallet/PAYOUT_SENT')
      : send(poolDecider, poolStream(effect.driverId), { ...effect, at: now.toISOString() }, 'pool/released', {
          eventIds: () => derivedEventId(effect.receiptId, 'released'),
        }),
  );

const receiptOf = (streams: Streams, e: Cause): Promise<ReceiptState> =>
  streams.read(receiptStream((e.data as { receiptId: string }).receiptId), receiptDecider);

/**
 * Inline after each command on a receipt stream, on the receipt it just decided (the one handler runs it);
 * the catch-up finishes from the log what a crash between a receipt's append and its effects left.
 */
const settlementEffectsProcess = processManager<SettlementCtx, ReceiptState>({
  name: 'settlement-effects',
  categories: ['receipt'],
  reactsTo: (e: Cause) => (RECEIPT_EVENT_TYPES as string[]).includes(e.type),
  stateOf: receiptOf,
  decide: settlementReactions,
});

export const startSettlementEffects = (ctx: SettlementCtx & { scheduler: Pick<Scheduler, 'register'> }) =>
  startProcess(ctx, settlementEffectsProcess, { everyMs: 2000, inline: true });

/** The inline half alone, for a handler of its own (a test's, over a store that fails on purpose). */
export const settlementEffectsReaction = (ctx: SettlementCtx) => settlementEffectsProcess.inlineReaction(ctx);
