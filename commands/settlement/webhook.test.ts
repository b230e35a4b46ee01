import { describe, expect, it } from 'vitest';
import { commandOfNotice } from './webhook.js';

const at = '2026-11-23T23:00:00.000Z';

describe('payout webhook: provider status → receipt command', () => {
  it('ACCP confirms with the provider reference', () => {
    expect(
      commandOfNotice({ internal_id: 'k', transaction_id: 'T1', status: 'ACCP', ref_ibp: 'IBP' }, 'o1', at),
    ).toMatchObject({
      type: 'RecordAttempt',
      payoutOrderId: 'o1',
      result: 'CONFIRMED',
      reference: 'IBP',
      transactionId: 'T1',
      source: 'webhook',
      synchronous: false,
    });
  });
  it('RJCT and CANC reject with the rejected_code, else the status', () => {
    expect(
      commandOfNotice({ internal_id: 'k', transaction_id: 'T1', status: 'RJCT', rejected_code: 'AC01' }, 'o1', at),
    ).toMatchObject({ result: 'REJECTED', providerCode: 'AC01', error: 'AC01' });
    expect(commandOfNotice({ internal_id: 'k', transaction_id: 'T1', status: 'CANC' }, 'o1', at)).toMatchObject({
      result: 'REJECTED',
      providerCode: 'CANC',
      error: 'CANC',
    });
  });
  it('PEND and PROC change nothing', () => {
    expect(commandOfNotice({ internal_id: 'k', transaction_id: 'T1', status: 'PEND' }, 'o1', at)).toBeNull();
    expect(commandOfNotice({ internal_id: 'k', transaction_id: 'T1', status: 'PROC' }, 'o1', at)).toBeNull();
  });
});
