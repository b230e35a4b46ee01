import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { balanceSummary } from './balance.js';
import type { LedgerEntryRecordedData, WalletEvent } from './events.js';
import { decide, evolve, initialState, type EntryRequest, type WalletCommand, type WalletState } from './wallet.js';

const now = new Date('2026-03-01T12:00:00Z');

const earning = (over: Partial<EntryRequest> = {}): WalletCommand => ({
  type: 'RecordEntry',
  driverId: 4,
  entryId: 'e-1',
  ledgerType: 'ORDER_EARNING',
  direction: 'CREDIT',
  amountCents: 2205,
  orderId: 11,
  receiptId: null,
  exchangeRateAmount: '36.50',
  description: 'Ganancia del pedido #11',
  causeId: 'delivery-11',
  now,
  ...over,
});

const given = (...cmds: WalletCommand[]): WalletState =>
  cmds.reduce((s, c) => decide(c, s).reduce(evolve, s), initialState);

const entries = (events: WalletEvent[]) =>
  events.filter((e) => e.type === 'LedgerEntryRecorded').map((e) => e.data as LedgerEntryRecordedData);

const errorOf = (f: () => unknown): DomainError => {
  try {
    f();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a DomainError');
};

describe('wallet decider', () => {
  it('opens a wallet once, on first access', () => {
    expect(decide({ type: 'OpenWallet', driverId: 4, now }, initialState)).toEqual([
      { type: 'WalletOpened', data: { driverId: 4, openedAt: now.toISOString() } },
    ]);
    expect(decide({ type: 'OpenWallet', driverId: 4, now }, given({ type: 'OpenWallet', driverId: 4, now }))).toEqual(
      [],
    );
  });

  it('opens the wallet before the first entry of a wallet nobody looked at, with the running balance', () => {
    const events = decide(earning(), initialState);
    expect(events.map((e) => e.type)).toEqual(['WalletOpened', 'LedgerEntryRecorded']);
    expect(entries(events)[0]).toEqual({
      driverId: 4,
      entryId: 'e-1',
      type: 'ORDER_EARNING',
      direction: 'CREDIT',
      amountCents: 2205,
      balanceAfterCents: 2205,
      orderId: 11,
      receiptId: null,
      exchangeRateAmount: '36.50',
      description: 'Ganancia del pedido #11',
      causeId: 'delivery-11',
      adminId: null,
      at: now.toISOString(),
    });
  });

  it('lets the balance go negative on a cash commission debt', () => {
    const s = given(earning({ amountCents: 300 }));
    const [debt] = entries(
      decide(
        earning({
          entryId: 'e-2',
          causeId: 'delivery-12',
          ledgerType: 'CASH_COMMISSION_DEBT',
          direction: 'DEBIT',
          amountCents: 500,
        }),
        s,
      ),
    );
    expect(debt).toMatchObject({ direction: 'DEBIT', amountCents: 500, balanceAfterCents: -200 });
  });

  it('records a cause once per type: a redelivered cause appends nothing, another type of the same cause does', () => {
    const s = given(earning({ ledgerType: 'CASH_COMMISSION_DEBT', direction: 'DEBIT', amountCents: 250 }));
    expect(
      decide(
        earning({ ledgerType: 'CASH_COMMISSION_DEBT', direction: 'DEBIT', amountCents: 250, entryId: 'other' }),
        s,
      ),
    ).toEqual([]);
    const [promo] = entries(
      decide(earning({ ledgerType: 'PROMO_REIMBURSEMENT', direction: 'CREDIT', amountCents: 100, entryId: 'e-3' }), s),
    );
    expect(promo).toMatchObject({ type: 'PROMO_REIMBURSEMENT', balanceAfterCents: -150 });
  });

  it('refuses an amount that is not a positive number of cents', () => {
    for (const amountCents of [0, -5, 1.5])
      expect(errorOf(() => decide(earning({ amountCents }), initialState)).code).toBe('ValidationError');
  });

  it('writes a manual adjustment with the reason as description and the admin who made it', () => {
    const s = given(earning({ amountCents: 1000 }));
    const [adj] = entries(
      decide(
        {
          type: 'AdjustBalance',
          driverId: 4,
          entryId: 'adj-1',
          direction: 'DEBIT',
          amountCents: 1500,
          reason: 'Cobro de deuda en efectivo',
          adminId: 9,
          now,
        },
        s,
      ),
    );
    expect(adj).toMatchObject({
      type: 'MANUAL_ADJUSTMENT',
      direction: 'DEBIT',
      balanceAfterCents: -500,
      causeId: 'adj-1',
      adminId: 9,
      orderId: null,
      exchangeRateAmount: null,
      description: 'Cobro de deuda en efectivo',
    });
  });

  it('records a payout once per receipt', () => {
    const payout: WalletCommand = {
      type: 'RecordPayout',
      driverId: 4,
      entryId: 'p-1',
      receiptId: 'r-7',
      receiptRecordId: 7,
      receiptNumber: '2026-11-000007',
      amountCents: 800,
      now,
    };
    const s = given(earning({ amountCents: 1000 }), payout);
    expect(s.balanceCents).toBe(200);
    expect(decide({ ...payout, entryId: 'p-2' }, s)).toEqual([]);
    expect(
      entries(
        decide({ ...payout, receiptId: 'r-8', receiptRecordId: 8, receiptNumber: '2026-11-000008', entryId: 'p-3' }, s),
      )[0],
    ).toMatchObject({
      type: 'PAYOUT_SENT',
      direction: 'DEBIT',
      receiptId: 8,
      description: 'Pago del recibo 2026-11-000008',
      balanceAfterCents: -600,
    });
  });

  describe('payout account', () => {
    const pagoMovil = {
      method: 'PAGO_MOVIL' as const,
      bankCode: '0102',
      idNumber: 'V12345678',
      phone: '+584121234567',
      accountNumber: null,
      accountType: null,
    };
    const set = (account: typeof pagoMovil | Record<string, unknown>): WalletCommand =>
      ({ type: 'SetPayoutAccount', driverId: 4, userId: 40, account, otpVerified: false, now }) as WalletCommand;

    it('sets it and keeps it in state; the same account again records nothing', () => {
      const events = decide(set(pagoMovil), initialState);
      expect(events.map((e) => e.type)).toEqual(['WalletOpened', 'PayoutAccountSet']);
      const s = events.reduce(evolve, initialState);
      expect(s.payoutAccount).toMatchObject({ ...pagoMovil, userId: 40 });
      expect(decide(set(pagoMovil), s)).toEqual([]);
      expect(decide(set({ ...pagoMovil, phone: '+584140000000' }), s)).toHaveLength(1);
    });

    it('is 400 when PAGO_MOVIL lacks bankCode, idNumber or phone, or BANK_TRANSFER lacks accountNumber', () => {
      for (const missing of ['bankCode', 'idNumber', 'phone']) {
        const err = errorOf(() => decide(set({ ...pagoMovil, [missing]: null }), initialState));
        expect([err.kind, err.code]).toEqual(['bad_request', 'InvalidPayoutConfig']);
      }
      const bank = {
        method: 'BANK_TRANSFER',
        bankCode: null,
        idNumber: null,
        phone: null,
        accountNumber: null,
        accountType: 'ahorro',
      };
      expect(errorOf(() => decide(set(bank), initialState)).kind).toBe('bad_request');
      expect(decide(set({ ...bank, accountNumber: '01020000000000000001' }), initialState)).toHaveLength(2);
    });
  });
});

describe('balance summary', () => {
  const cap = 5000;
  it('withdrawable is what remains after the pending payout and the cash debt, never below zero', () => {
    expect(
      balanceSummary({ balanceCents: 3000, pendingPayoutCents: 1000, cashDebtCapCents: cap, driverActive: true }),
    ).toEqual({
      balanceCents: 3000,
      pendingPayoutCents: 1000,
      withdrawableCents: 2000,
      cashDebtCents: 0,
      cashDebtCapCents: cap,
      canGoOnline: true,
    });
    expect(
      balanceSummary({ balanceCents: -1200, pendingPayoutCents: 0, cashDebtCapCents: cap, driverActive: true }),
    ).toMatchObject({ withdrawableCents: 0, cashDebtCents: 1200, canGoOnline: true });
  });

  it('a debt at the cap, or a driver who is not ACTIVE, cannot go online', () => {
    expect(
      balanceSummary({ balanceCents: -4999, pendingPayoutCents: 0, cashDebtCapCents: cap, driverActive: true })
        .canGoOnline,
    ).toBe(true);
    expect(
      balanceSummary({ balanceCents: -5000, pendingPayoutCents: 0, cashDebtCapCents: cap, driverActive: true })
        .canGoOnline,
    ).toBe(false);
    expect(
      balanceSummary({ balanceCents: 100, pendingPayoutCents: 0, cashDebtCapCents: cap, driverActive: false })
        .canGoOnline,
    ).toBe(false);
  });
});

describe('a settlement period closing on the wallet (docs/decisions/0098)', () => {
  const account = {
    method: 'PAGO_MOVIL' as const,
    bankCode: '0102',
    idNumber: 'V12345678',
    phone: '04141234567',
    accountNumber: null,
    accountType: null,
  };
  const history: WalletCommand[] = [
    { type: 'SetPayoutAccount', driverId: 4, userId: 40, account, otpVerified: true, now },
    earning(),
    earning({ entryId: 'e-2', causeId: 'delivery-12', orderId: 12, amountCents: 1000 }),
    earning({
      entryId: 'e-3',
      causeId: 'delivery-13',
      ledgerType: 'CASH_COMMISSION_DEBT',
      direction: 'DEBIT',
      amountCents: 300,
    }),
  ];
  const closing = { throughRevision: 4, balanceCents: 2905, reservedCents: 2905, paidOutCents: 0, carried: [] };
  const close: WalletCommand = {
    type: 'ClosePeriod',
    driverId: 4,
    period: 2,
    receiptId: 'r-2',
    payableCents: 2905,
    poolRevision: 3,
    closing,
    now,
  };
  const eventsOf = (cmds: WalletCommand[]): WalletEvent[] => {
    const out: WalletEvent[] = [];
    let s = initialState;
    for (const c of cmds) {
      const decided = decide(c, s);
      out.push(...decided);
      s = decided.reduce(evolve, s);
    }
    return out;
  };

  it('records the balance, the payout account and what the period covered, as the state stands', () => {
    expect(decide(close, given(...history))).toEqual([
      {
        type: 'WalletPeriodClosed',
        data: {
          driverId: 4,
          period: 2,
          receiptId: 'r-2',
          payableCents: 2905,
          poolRevision: 3,
          closing,
          balanceCents: 2905,
          payoutAccount: { ...account, userId: 40, setAt: now.toISOString() },
          at: now.toISOString(),
        },
      },
    ]);
  });

  it('read from the close on, the wallet holds the balance and account a read from the start holds', () => {
    const later = earning({ entryId: 'e-4', causeId: 'delivery-14', orderId: 14, amountCents: 500 });
    const events = eventsOf([...history, close, later]);
    const closeAt = events.findIndex((e) => e.type === 'WalletPeriodClosed');
    const whole = events.reduce(evolve, initialState);
    const fromClose = events.slice(closeAt).reduce(evolve, initialState);
    expect(fromClose.balanceCents).toBe(3405);
    expect({ ...fromClose, recorded: null }).toEqual({ ...whole, recorded: null });
  });

  it('moves no money: folded from the start the close leaves the balance as the entries left it', () => {
    const before = given(...history);
    const after = decide(close, before).reduce(evolve, before);
    expect(after).toEqual(before);
  });

  it('closes nothing on a wallet never opened', () => {
    expect(decide(close, initialState)).toEqual([]);
  });
});
