import { z } from 'zod';
import { receiptStream, type ReceiptEvent } from '../../../domain/settlement/events.js';
import { evolveReceipt, initialReceipt } from '../../../domain/settlement/receipt.js';
import { walletStream } from '../../../domain/wallet/events.js';
import type { RecordedEvent } from '../../../infra/eventStore/port.js';
import { driverReceiptStreams } from '../../../projections/settlement/receiptQueries.js';
import type { ApiContext } from '../../apiContext.js';
import { HistoryItem, toHistoryItem } from '../history/eventHistory.js';

/** What a receipt's event did to the driver's reserved payout (pendingPayoutUSD). */
export const RESERVATION_CHANGES = ['RESERVED', 'RELEASED'] as const;

export const WalletHistoryItem = HistoryItem.extend({
  stream: z.enum(['wallet', 'receipt']),
  receipt_id: z.number().int().nullable(),
  reservation: z
    .enum(RESERVATION_CHANGES)
    .nullable()
    .openapi({
      description:
        "A receipt's event: RESERVED when it was issued (its payable reserved), RELEASED when it was paid, " +
        'paid externally or annulled (the reservation ended); null for the wallet’s own events',
    }),
});
export type WalletHistoryItem = z.infer<typeof WalletHistoryItem>;

const SETTLED = new Set(['PAID', 'PAID_EXTERNALLY', 'VOIDED']);

/**
 * The receipt events that moved the driver's reservation: the issue, and the one that settled it. Other
 * events (payout orders, attempts, a deadline) leave pendingPayoutUSD as it was.
 */
const reservationSteps = (recordId: number, events: RecordedEvent[]): WalletHistoryItem[] => {
  const steps: WalletHistoryItem[] = [];
  let state = initialReceipt;
  for (const e of events) {
    const before = state.status;
    state = evolveReceipt(state, { type: e.type, data: e.data } as ReceiptEvent);
    const reservation =
      e.type === 'ReceiptIssued' ? 'RESERVED' : SETTLED.has(state.status) && !SETTLED.has(before) ? 'RELEASED' : null;
    if (reservation) steps.push({ ...toHistoryItem(e), stream: 'receipt', receipt_id: recordId, reservation });
  }
  return steps;
};

/**
 * Every instant the driver's balance summary changed, oldest first: the wallet stream's events and the
 * reservation changes of the driver's receipts. Each item's recorded_at is the instant whose as_of
 * shows the summary right after it (the as-of view folds events recorded at or before as_of).
 */
export const walletHistory = async (
  ctx: Pick<ApiContext, 'db' | 'store'>,
  driverId: number,
): Promise<WalletHistoryItem[]> => {
  const wallet = (await ctx.store.readStream(walletStream(driverId))).map((e): WalletHistoryItem => ({
    ...toHistoryItem(e),
    stream: 'wallet',
    receipt_id: null,
    reservation: null,
  }));
  const receipts = await Promise.all(
    (await driverReceiptStreams(ctx.db, driverId)).map(async (r) =>
      reservationSteps(r.record_id, await ctx.store.readStream(receiptStream(r.id))),
    ),
  );
  return [...wallet, ...receipts.flat()].sort(
    (a, b) => a.recorded_at.localeCompare(b.recorded_at) || a.global_position - b.global_position,
  );
};
