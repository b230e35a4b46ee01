import { describe, expect, it } from 'vitest';
import type { ReceiptIssuedData } from '../../domain/settlement/events.js';
import { initialReceipt, type ReceiptState } from '../../domain/settlement/receipt.js';
import { derivedEventId } from '../origin.js';
import type { Cause } from '../processManager.js';
import { payoutEntryId } from '../wallet/handlers.js';
import { effectsOf, settlementReactions } from './effects.js';

const issued = {
  receiptId: 'r1',
  driverId: 7,
  entryIds: ['e1', 'e2'],
  totals: { payableCents: 1234 },
} as ReceiptIssuedData;
const receipt = (status: ReceiptState['status']): ReceiptState => ({ ...initialReceipt, issued, status });

describe('what a receipt asks of the wallet and the pool', () => {
  it('paid either way: one PAYOUT_SENT of the payable', () => {
    for (const status of ['PAID', 'PAID_EXTERNALLY'] as const) {
      expect(effectsOf(receipt(status))).toEqual([
        { type: 'RecordPayout', driverId: 7, receiptId: 'r1', amountCents: 1234 },
      ]);
    }
  });
  it('voided: its entries go back to the pool', () => {
    expect(effectsOf(receipt('VOIDED'))).toEqual([
      { type: 'ReleaseEntries', driverId: 7, receiptId: 'r1', entryIds: ['e1', 'e2'], payableCents: 1234 },
    ]);
  });
  it('still open: nothing', () => {
    for (const status of ['GENERATED', 'IN_PAYMENT', 'FAILED'] as const) expect(effectsOf(receipt(status))).toEqual([]);
    expect(effectsOf(initialReceipt)).toEqual([]);
  });
});

describe('the commands a receipt event sends', () => {
  const NOW = new Date('2026-03-02T04:00:00.000Z');
  const event = (type: string): Cause => ({
    eventId: `${type}-event`,
    type,
    data: { receiptId: 'r1' },
    streamId: 'receipt-r1',
  });

  it(
    'paid: PAYOUT_SENT on the driver’s wallet under the one ' + 'entry id of the receipt, whichever event caused it',
    () => {
      for (const type of ['PayoutConfirmed', 'ReceiptMarkedExternal']) {
        const [payout, ...rest] = settlementReactions(event(type), receipt('PAID'), NOW);
        expect(rest).toEqual([]);
        expect(payout.streamId).toBe('wallet-7');
        expect(payout.command).toEqual({
          type: 'RecordPayout',
          driverId: 7,
          receiptId: 'r1',
          amountCents: 1234,
          entryId: payoutEntryId('r1'),
          now: NOW,
        });
      }
    },
  );

  it('voided: the pool releases the receipt’s entries under one id per receipt', () => {
    const [release] = settlementReactions(event('ReceiptAnnulled'), receipt('VOIDED'), NOW);
    expect(release.streamId).toBe('settlement-pool-7');
    expect(release.command).toEqual({
      type: 'ReleaseEntries',
      driverId: 7,
      receiptId: 'r1',
      entryIds: ['e1', 'e2'],
      payableCents: 1234,
      at: NOW.toISOString(),
    });
    expect(release.eventIds?.(0, { type: 'EntriesReleased', data: {} })).toBe(derivedEventId('r1', 'released'));
  });
});
