import { describe, expect, it } from 'vitest';
import type { ReceiptIssuedData } from '../../domain/settlement/events.js';
import { initialReceipt, type ReceiptState } from '../../domain/settlement/receipt.js';
import { effectsOf } from './effects.js';

const issued = { receiptId: 'r1', driverId: 7, totals: { payableCents: 1234 } } as ReceiptIssuedData;
const receipt = (status: ReceiptState['status']): ReceiptState => ({ ...initialReceipt, issued, status });

describe('what a receipt asks of the wallet and the pool', () => {
  it('paid either way: one PAYOUT_SENT of the payable', () => {
    for (const status of ['PAID', 'PAID_EXTERNALLY'] as const) {
      expect(effectsOf(receipt(status))).toEqual([{ type: 'RecordPayout', driverId: 7, receiptId: 'r1', amountCents: 1234 }]);
    }
  });
  it('voided: its entries go back to the pool', () => {
    expect(effectsOf(receipt('VOIDED'))).toEqual([{ type: 'ReleaseEntries', driverId: 7, receiptId: 'r1' }]);
  });
  it('still open: nothing', () => {
    for (const status of ['GENERATED', 'IN_PAYMENT', 'FAILED'] as const) expect(effectsOf(receipt(status))).toEqual([]);
    expect(effectsOf(initialReceipt)).toEqual([]);
  });
});
