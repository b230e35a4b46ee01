import type { ReceiptCommand } from '../../domain/settlement/receipt.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { SettlementCtx } from './cutoff.js';
import { runReceipt } from './payout.js';

export interface PayprovNotice {
  internal_id: string;
  transaction_id: string;
  status: 'ACCP' | 'PEND' | 'PROC' | 'RJCT' | 'CANC';
  rejected_code?: string | null;
  ref_ibp?: string | null;
}

/**
 * A provider status as a receipt command (docs/domain-rules.md, settlement receipts): ACCP confirms, RJCT and CANC
 * reject (failure_reason the rejected_code, else the status), PEND and PROC change nothing.
 */
export const commandOfNotice = (n: PayprovNotice, payoutOrderId: string, at: string): ReceiptCommand | null => {
  const base = {
    type: 'RecordAttempt' as const,
    payoutOrderId,
    synchronous: false,
    source: 'webhook' as const,
    at,
    transactionId: n.transaction_id,
    reference: n.ref_ibp ?? null,
  };
  switch (n.status) {
    case 'ACCP':
      return {
        ...base,
        result: 'CONFIRMED',
        providerCode: 'ACCP',
        reference: n.ref_ibp ?? n.transaction_id,
        error: null,
      };
    case 'RJCT':
    case 'CANC':
      return {
        ...base,
        result: 'REJECTED',
        providerCode: n.rejected_code ?? n.status,
        error: n.rejected_code ?? n.status,
      };
    case 'PEND':
    case 'PROC':
      return null;
  }
};

/**
 * Applies one webhook delivery. Unknown internal ids, repeats and late news change nothing (the receipt
 * decides on its current state, and concurrent redeliveries race on its expected revision). The read
 * model only finds which receipt's order the internal id names, a fact that never changes; whether the
 * notice moves the receipt is decided on the receipt's stream (docs/decisions/0055).
 */
export const applyPayprovNotice = async (
  ctx: SettlementCtx,
  n: PayprovNotice,
  metadata: EventMetadata,
): Promise<number> => {
  // The order may have been sent a moment ago: the read model that maps its key must have seen it.
  await ctx.settle(await ctx.store.headPosition());
  const order = await ctx.db
    .selectFrom('settlement_payout_orders')
    .selectAll()
    .where('idempotency_key', '=', n.internal_id)
    .executeTakeFirst();
  if (!order) return 0;
  const command = commandOfNotice(n, order.payout_order_id, ctx.clock.now().toISOString());
  if (!command) return 0;
  return (await runReceipt(ctx, order.receipt_id, () => command, metadata)).position;
};
