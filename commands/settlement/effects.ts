import { poolStream, receiptStream, RECEIPT_EVENT_TYPES } from '../../domain/settlement/events.js';
import { poolDecider } from '../../domain/settlement/pool.js';
import { receiptDecider, type ReceiptState } from '../../domain/settlement/receipt.js';
import type { AppContext } from '../../infra/context.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { ScheduledJob } from '../../infra/scheduler.js';
import { loadState } from '../handle.js';
import { derivedEventId } from '../origin.js';
import { processManager, type Cause } from '../processManager.js';
import { walletCommands } from '../wallet/handlers.js';
import type { SettlementCtx } from './cutoff.js';

export type SettlementEffect =
  | { type: 'RecordPayout'; driverId: number; receiptId: string; amountCents: number }
  | { type: 'ReleaseEntries'; driverId: number; receiptId: string };

/**
 * What a receipt's state asks of other aggregates: a paid receipt (by the provider or externally) is
 * one PAYOUT_SENT on the wallet, a voided one returns its entries to the pool. Decided from the state,
 * not from the event that moved it, and each effect's id follows from the receipt, so a receipt writes
 * PAYOUT_SENT at most once whatever path (confirmation, late webhook, mark-external) and however often.
 */
export const effectsOf = (s: ReceiptState): SettlementEffect[] => {
  if (!s.issued) return [];
  const { receiptId, driverId, totals } = s.issued;
  if (s.status === 'PAID' || s.status === 'PAID_EXTERNALLY') return [{ type: 'RecordPayout', driverId, receiptId, amountCents: totals.payableCents }];
  if (s.status === 'VOIDED') return [{ type: 'ReleaseEntries', driverId, receiptId }];
  return [];
};

/** Runs the effects; returns the last global position appended. */
export const settlementEffects = async (ctx: Pick<AppContext, 'handle' | 'clock' | 'store'>, receiptId: string, state: ReceiptState, metadata: EventMetadata = {}): Promise<number> => {
  let last = 0;
  const m = metadata;
  for (const effect of effectsOf(state)) {
    if (effect.type === 'RecordPayout') {
      last = Math.max(last, (await walletCommands(ctx).recordPayout(effect, m)).position);
    } else {
      const at = ctx.clock.now().toISOString();
      const r = await ctx.handle(poolDecider, poolStream(effect.driverId), { ...effect, at }, { metadata: m, eventIds: () => derivedEventId(receiptId, 'released') });
      last = Math.max(last, r.position);
    }
  }
  return last;
};

/**
 * The catch-up half: a crash between a receipt's append and its effects is finished from the log.
 * The inline half is runReceipt (commands/settlement/payout.ts).
 */
export const settlementEffectsProcess = processManager<SettlementCtx & AppContext>({
  name: 'settlement-effects',
  reactsTo: (e: Cause) => (RECEIPT_EVENT_TYPES as string[]).includes(e.type),
  react: async (ctx, e) => {
    const receiptId = (e.data as { receiptId: string }).receiptId;
    const { state } = await loadState(ctx.store, receiptStream(receiptId), receiptDecider);
    return settlementEffects(ctx, receiptId, state, { causationId: e.eventId });
  },
});

export const settlementEffectsJob = (ctx: AppContext, everyMs = 2000): ScheduledJob => settlementEffectsProcess.catchUpJob(ctx, { everyMs });
