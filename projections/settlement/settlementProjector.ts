import type { ReceiptEvent } from '../../domain/settlement/events.js';
import { evolveReceipt, initialReceipt } from '../../domain/settlement/receipt.js';
import type { ConfigEvent } from '../../domain/settlement/config.js';
import type { Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector, type EventHandler, type AnyRecordedEvent } from '../projector.js';
import './tables.js';

const receiptEvent: EventHandler = async (trx: Trx, e: AnyRecordedEvent) => {
  const event = { type: e.type, data: e.data } as ReceiptEvent;
  const receiptId = event.data.receiptId;
  const row = await trx
    .selectFrom('settlement_receipts')
    .select(['state'])
    .where('id', '=', receiptId)
    .executeTakeFirst();
  const state = evolveReceipt(row?.state ?? initialReceipt, event);
  const issued = state.issued!;
  const columns = {
    status: state.status,
    failure_kind: state.failureKind,
    settled_at: state.paidAt ? new Date(state.paidAt) : state.voidedAt ? new Date(state.voidedAt) : null,
    state: JSON.stringify(state) as never,
    updated_position: e.globalPosition,
  };
  if (!row) {
    await trx
      .insertInto('settlement_receipts')
      .values({
        id: receiptId,
        record_id: issued.recordId,
        receipt_number: issued.receiptNumber,
        driver_id: issued.driverId,
        fiscal_period: issued.fiscalPeriod,
        payout_method: issued.beneficiary.method,
        beneficiary_name: issued.beneficiary.name,
        payable_cents: issued.totals.payableCents,
        issued_at: new Date(issued.issuedAt),
        ...columns,
      })
      .execute();
  } else {
    await trx.updateTable('settlement_receipts').set(columns).where('id', '=', receiptId).execute();
  }
  if (event.type === 'PayoutOrderCreated') {
    await trx
      .insertInto('settlement_payout_orders')
      .values({
        idempotency_key: event.data.idempotencyKey,
        receipt_id: receiptId,
        payout_order_id: event.data.payoutOrderId,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
};

const handlers: Record<string, EventHandler> = {
  SettlementConfigChanged: (trx, e: RecordedEvent<string, ConfigEvent['data']>) =>
    trx
      .insertInto('settlement_config_audit')
      .values({
        id: e.eventId,
        old_values: JSON.stringify(e.data.oldValues) as never,
        new_values: JSON.stringify(e.data.newValues) as never,
        admin_id: e.data.adminId,
        created_at: new Date(e.data.at),
      })
      .onConflict((oc) => oc.doNothing())
      .execute(),
  ReceiptIssued: receiptEvent,
  PayoutOrderCreated: receiptEvent,
  PayoutAttempted: receiptEvent,
  ReconcileDeadlinePassed: receiptEvent,
  ReceiptMarkedExternal: receiptEvent,
  ReceiptAnnulled: receiptEvent,
};

/**
 * Settlement read models: receipts (folded state plus filter columns), payout-order keys and the config
 * audit. The ledger entries and payout accounts are the wallet's (its stream for the cutoff, its read models
 * for the routes).
 */
export const settlementProjector = projector('settlement', {
  tables: ['settlement_receipts', 'settlement_payout_orders', 'settlement_config_audit'],
  handlers,
});
