import type { Decider } from '../decider.js';
import type { Books } from '../settlement/events.js';
import { badRequest, validationError } from '../errors.js';
import type {
  DeliveredOrderFigures,
  LedgerDirection,
  LedgerEntryRecordedData,
  LedgerType,
  PayoutAccount,
  WalletEvent,
} from './events.js';

/**
 * `${causeId}/${type}` of every entry, newest first, as a persistent list: folding a long stream stays
 * linear (a copied Set per event would make it quadratic), and the one lookup per command is a scan.
 */
type Recorded = { readonly key: string; readonly rest: Recorded } | null;

const isRecorded = (r: Recorded, key: string): boolean => {
  for (let n = r; n !== null; n = n.rest) if (n.key === key) return true;
  return false;
};

export interface WalletState {
  driverId: number | null;
  balanceCents: number;
  /** A cause never has two entries of the same type. */
  recorded: Recorded;
  payoutAccount: (PayoutAccount & { userId: number; setAt: string }) | null;
}

export const initialState: WalletState = { driverId: null, balanceCents: 0, recorded: null, payoutAccount: null };

type At = { now: Date };
/** An entry as a reaction or the settlement asks for it; the decider adds the running balance. */
export type EntryRequest = {
  driverId: number;
  /** A UUID: it is also the event's id (derived from the cause by reactions). */
  entryId: string;
  ledgerType: LedgerType;
  direction: LedgerDirection;
  amountCents: number;
  orderId: number | null;
  receiptId: number | null;
  exchangeRateAmount: string | null;
  description: string;
  causeId: string;
  /** A delivery's order figures, kept on the entry for the settlement receipt's line. */
  orderFigures?: DeliveredOrderFigures;
};

export type WalletCommand =
  | ({ type: 'OpenWallet'; driverId: number } & At)
  | ({ type: 'RecordEntry' } & EntryRequest & At)
  /** A super admin's MANUAL_ADJUSTMENT; the entry id is the request's own cause. */
  | ({
      type: 'AdjustBalance';
      driverId: number;
      entryId: string;
      direction: LedgerDirection;
      amountCents: number;
      reason: string;
      adminId: number;
    } & At)
  /**
   * PAYOUT_SENT for a paid settlement receipt, once per receipt (the settlement area sends it): the
   * receipt's stream id is the entry's cause, its record id and number what the ledger shows.
   */
  | ({
      type: 'RecordPayout';
      driverId: number;
      entryId: string;
      receiptId: string;
      receiptRecordId: number;
      receiptNumber: string;
      amountCents: number;
    } & At)
  | ({ type: 'SetPayoutAccount'; driverId: number; userId: number; account: PayoutAccount; otpVerified: boolean } & At)
  /**
   * The settlement closed a period on this wallet (docs/decisions/0098): the state as it stands is recorded,
   * so the next cutoff reads the stream from the close on.
   */
  | ({
      type: 'ClosePeriod';
      driverId: number;
      period: number;
      receiptId: string;
      payableCents: number;
      poolRevision: number;
      closing: Books;
    } & At);

const causeKey = (causeId: string, type: LedgerType) => `${causeId}/${type}`;

export const evolve = (s: WalletState, e: WalletEvent): WalletState => {
  switch (e.type) {
    case 'WalletOpened':
      return { ...s, driverId: e.data.driverId };
    case 'LedgerEntryRecorded':
      return {
        ...s,
        driverId: e.data.driverId,
        balanceCents: e.data.balanceAfterCents,
        recorded: { key: causeKey(e.data.causeId, e.data.type), rest: s.recorded },
      };
    case 'PayoutAccountSet': {
      const { driverId: _d, userId, otpVerified: _o, at, ...account } = e.data;
      return { ...s, payoutAccount: { ...account, userId, setAt: at } };
    }
    // Folded from the start it restates what the state holds; read from the close on, it is the state. The
    // causes recorded before it stay out of it: a reader from the close decides nothing that needs them.
    case 'WalletPeriodClosed':
      return {
        ...s,
        driverId: e.data.driverId,
        balanceCents: e.data.balanceCents,
        payoutAccount: e.data.payoutAccount,
      };
  }
};

/** The rules of the payout-config body that a schema cannot say (400 with error text). */
export const payoutAccountProblem = (a: PayoutAccount): string | null => {
  if (a.method === 'PAGO_MOVIL' && (!a.bankCode || !a.idNumber || !a.phone))
    return 'PAGO_MOVIL requires bankCode, idNumber and phone.';
  if (a.method === 'BANK_TRANSFER' && !a.accountNumber) return 'BANK_TRANSFER requires accountNumber.';
  return null;
};

const sameAccount = (a: PayoutAccount, b: PayoutAccount): boolean =>
  a.method === b.method &&
  a.bankCode === b.bankCode &&
  a.idNumber === b.idNumber &&
  a.phone === b.phone &&
  a.accountNumber === b.accountNumber &&
  a.accountType === b.accountType;

/** The first event of a wallet: written on first access, or before the first entry of a wallet never looked at. */
const opening = (s: WalletState, driverId: number, now: Date): WalletEvent[] =>
  s.driverId === null ? [{ type: 'WalletOpened', data: { driverId, openedAt: now.toISOString() } }] : [];

const entry = (s: WalletState, r: EntryRequest, adminId: number | null, now: Date): WalletEvent[] => {
  if (!Number.isSafeInteger(r.amountCents) || r.amountCents <= 0)
    throw validationError({ amount: ['must be a positive amount of cents'] });
  if (isRecorded(s.recorded, causeKey(r.causeId, r.ledgerType))) return [];
  const signed = r.direction === 'CREDIT' ? r.amountCents : -r.amountCents;
  const data: LedgerEntryRecordedData = {
    driverId: r.driverId,
    entryId: r.entryId,
    type: r.ledgerType,
    direction: r.direction,
    amountCents: r.amountCents,
    balanceAfterCents: s.balanceCents + signed,
    orderId: r.orderId,
    receiptId: r.receiptId,
    exchangeRateAmount: r.exchangeRateAmount,
    description: r.description,
    causeId: r.causeId,
    adminId,
    at: now.toISOString(),
    ...(r.orderFigures ? { orderFigures: r.orderFigures } : {}),
  };
  return [...opening(s, r.driverId, now), { type: 'LedgerEntryRecorded', data }];
};

export const decide = (cmd: WalletCommand, s: WalletState): WalletEvent[] => {
  switch (cmd.type) {
    case 'OpenWallet':
      return opening(s, cmd.driverId, cmd.now);
    case 'RecordEntry': {
      const { type: _t, now, ...request } = cmd;
      return entry(s, request, null, now);
    }
    case 'AdjustBalance':
      return entry(
        s,
        {
          driverId: cmd.driverId,
          entryId: cmd.entryId,
          ledgerType: 'MANUAL_ADJUSTMENT',
          direction: cmd.direction,
          amountCents: cmd.amountCents,
          orderId: null,
          receiptId: null,
          exchangeRateAmount: null,
          description: cmd.reason,
          causeId: cmd.entryId,
        },
        cmd.adminId,
        cmd.now,
      );
    case 'RecordPayout':
      return entry(
        s,
        {
          driverId: cmd.driverId,
          entryId: cmd.entryId,
          ledgerType: 'PAYOUT_SENT',
          direction: 'DEBIT',
          amountCents: cmd.amountCents,
          orderId: null,
          receiptId: cmd.receiptRecordId,
          exchangeRateAmount: null,
          description: `Pago del recibo ${cmd.receiptNumber}`,
          causeId: `receipt-${cmd.receiptId}`,
        },
        null,
        cmd.now,
      );
    case 'SetPayoutAccount': {
      const problem = payoutAccountProblem(cmd.account);
      if (problem) throw badRequest('InvalidPayoutConfig', problem);
      if (s.payoutAccount && s.payoutAccount.userId === cmd.userId && sameAccount(s.payoutAccount, cmd.account))
        return [];
      return [
        ...opening(s, cmd.driverId, cmd.now),
        {
          type: 'PayoutAccountSet',
          data: {
            driverId: cmd.driverId,
            userId: cmd.userId,
            ...cmd.account,
            otpVerified: cmd.otpVerified,
            at: cmd.now.toISOString(),
          },
        },
      ];
    }
    case 'ClosePeriod':
      // A wallet never opened holds nothing a reader would miss.
      if (s.driverId === null) return [];
      return [
        {
          type: 'WalletPeriodClosed',
          data: {
            driverId: cmd.driverId,
            period: cmd.period,
            receiptId: cmd.receiptId,
            payableCents: cmd.payableCents,
            poolRevision: cmd.poolRevision,
            closing: cmd.closing,
            balanceCents: s.balanceCents,
            payoutAccount: s.payoutAccount,
            at: cmd.now.toISOString(),
          },
        },
      ];
  }
};

export const walletDecider: Decider<WalletCommand, WalletState, WalletEvent> = { initialState, evolve, decide };
