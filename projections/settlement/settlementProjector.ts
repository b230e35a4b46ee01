import { z } from 'zod';
import type { PoolEvent, ReceiptEvent } from '../../domain/settlement/events.js';
import { evolveReceipt, initialReceipt } from '../../domain/settlement/receipt.js';
import type { ConfigEvent } from '../../domain/settlement/config.js';
import type { Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector, type EventHandler, type AnyRecordedEvent } from '../projector.js';
import './tables.js';

/** The wallet's ledger event (its contract, #10): the fields the cutoff reads. */
const LedgerEntryRecorded = z.object({
  driverId: z.coerce.number(),
  entryId: z.string(),
  type: z.string(),
  direction: z.enum(['CREDIT', 'DEBIT']),
  amountCents: z.number().int(),
  orderId: z.coerce.number().nullable().optional(),
  exchangeRateAmount: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  at: z.string(),
});

/** The wallet's payout account event (#10), read tolerantly: the receipt snapshots what it finds. */
const PayoutAccountSet = z.object({
  driverId: z.coerce.number().optional(),
  userId: z.coerce.number().optional(),
  method: z.string(),
  bankCode: z.string().nullable().optional(),
  idNumber: z.string().nullable().optional(),
  phone: z.string().nullable().optional(),
  accountNumber: z.string().nullable().optional(),
  accountType: z.string().nullable().optional(),
});

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
  LedgerEntryRecorded: async (trx, e) => {
    const d = LedgerEntryRecorded.parse(e.data);
    await trx
      .insertInto('settlement_entries')
      .values({
        entry_id: d.entryId,
        driver_id: d.driverId,
        type: d.type,
        direction: d.direction,
        amount_cents: d.amountCents,
        order_id: d.orderId ?? null,
        exchange_rate_amount: d.exchangeRateAmount ?? null,
        description: d.description ?? '',
        at: new Date(d.at),
        position: e.globalPosition,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  },
  PayoutAccountSet: async (trx, e) => {
    const d = PayoutAccountSet.parse(e.data);
    const driverId =
      d.driverId ??
      (d.userId !== undefined
        ? (await trx.selectFrom('drivers').select('driver_id').where('user_id', '=', d.userId).executeTakeFirst())
            ?.driver_id
        : undefined);
    if (driverId === undefined) return;
    const row = {
      method: d.method,
      bank_code: d.bankCode ?? null,
      id_number: d.idNumber ?? null,
      phone: d.phone ?? null,
      account_number: d.accountNumber ?? null,
      account_type: d.accountType ?? null,
    };
    await trx
      .insertInto('settlement_payout_accounts')
      .values({ driver_id: driverId, ...row })
      .onConflict((oc) => oc.column('driver_id').doUpdateSet(row))
      .execute();
  },
  EntriesReserved: (trx, e: RecordedEvent<string, Extract<PoolEvent, { type: 'EntriesReserved' }>['data']>) =>
    e.data.entryIds.length
      ? trx
          .updateTable('settlement_entries')
          .set({ receipt_id: e.data.receiptId })
          .where('entry_id', 'in', e.data.entryIds)
          .execute()
      : Promise.resolve(),
  EntriesReleased: (trx, e: RecordedEvent<string, { receiptId: string }>) =>
    trx
      .updateTable('settlement_entries')
      .set({ receipt_id: null })
      .where('receipt_id', '=', e.data.receiptId)
      .execute(),
  SettlementPeriodClosed: (
    trx,
    e: RecordedEvent<string, Extract<PoolEvent, { type: 'SettlementPeriodClosed' }>['data']>,
  ) =>
    e.data.entries.length
      ? trx
          .updateTable('settlement_entries')
          .set({ receipt_id: e.data.receiptId })
          .where(
            'entry_id',
            'in',
            e.data.entries.map((x) => x.entryId),
          )
          .execute()
      : Promise.resolve(),
  EntriesReturned: (trx, e: RecordedEvent<string, { receiptId: string }>) =>
    trx
      .updateTable('settlement_entries')
      .set({ receipt_id: null })
      .where('receipt_id', '=', e.data.receiptId)
      .execute(),
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
 * Settlement read models: the ledger entries the cutoff settles (and which receipt covers each), payout
 * accounts, receipts (folded state plus filter columns), payout-order keys and the config audit.
 */
export const settlementProjector = projector('settlement', {
  tables: [
    'settlement_entries',
    'settlement_payout_accounts',
    'settlement_receipts',
    'settlement_payout_orders',
    'settlement_config_audit',
  ],
  handlers,
});
