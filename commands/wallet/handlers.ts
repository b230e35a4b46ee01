import { randomUUID } from 'node:crypto';
import type { LedgerEntryRecordedData, PayoutAccount, WalletEvent } from '../../domain/wallet/events.js';
import { walletStream } from '../../domain/wallet/events.js';
import { walletDecider, type WalletCommand, type WalletState } from '../../domain/wallet/wallet.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { DomainEvent } from '../../domain/decider.js';
import { loadState, type Aggregate, type Handled } from '../handle.js';
import { derivedEventId } from '../origin.js';
import { send, type Send } from '../processManager.js';

type Ctx = Pick<CommandDeps, 'handle' | 'clock' | 'store'>;
/** A wallet command as callers give it: the handler stamps the time. */
export type WalletRequest = WalletCommand extends infer C ? (C extends unknown ? Omit<C, 'now'> : never) : never;

/**
 * Every delivery, adjustment and payout of a driver lands on one stream, and a reaction that gave up would
 * be lost (the process manager treats a domain error as final): the wallet tries a busy stream longer.
 */
const WALLET_ATTEMPTS = 56;

/**
 * A LedgerEntryRecorded keeps its entry id as its event id (so a redelivered cause appends nothing); a
 * WalletOpened that an entry opens takes an id derived from that entry, so a redelivered cause finds its
 * whole batch stored and appends nothing.
 */
const walletEventIds = (cmd: WalletRequest) => {
  const entryId = 'entryId' in cmd ? cmd.entryId : null;
  return (i: number, e: DomainEvent): string => {
    if (e.type === 'LedgerEntryRecorded') return (e.data as LedgerEntryRecordedData).entryId;
    return e.type === 'WalletOpened' && entryId ? derivedEventId(entryId, `wallet/open/${i}`) : randomUUID();
  };
};

/** load → decide → append on the driver's wallet stream. */
export const runWallet = async (
  ctx: Ctx,
  driverId: number,
  cmd: WalletRequest,
  metadata?: EventMetadata,
): Promise<Handled<WalletState, WalletEvent>> =>
  ctx.handle(walletDecider, walletStream(driverId), () => ({ ...cmd, now: ctx.clock.now() }) as WalletCommand, {
    metadata,
    eventIds: walletEventIds(cmd),
    attempts: WALLET_ATTEMPTS,
  });

/** A wallet command as a reaction decides it, with the wallet's own event ids and patience. */
export const sendToWallet = (cmd: WalletCommand, purpose: string): Send =>
  send(walletDecider, walletStream(cmd.driverId), cmd, purpose, {
    eventIds: walletEventIds(cmd),
    attempts: WALLET_ATTEMPTS,
  });

export const loadWallet = async (ctx: Pick<CommandDeps, 'store'>, driverId: number) =>
  (await loadState(ctx.store, walletStream(driverId), walletDecider)).state;

/** An aggregate as it stood at an instant: its stream folded up to the events recorded by then. */
export const loadAsOf = async <S, E extends DomainEvent>(
  ctx: Pick<CommandDeps, 'store'>,
  streamId: string,
  aggregate: Aggregate<S, E>,
  asOf: Date,
): Promise<S> => {
  let s = aggregate.initialState;
  for (const r of await ctx.store.readStream(streamId)) {
    if (r.recordedAt.getTime() > asOf.getTime()) break;
    s = aggregate.evolve(s, { type: r.type, data: r.data } as E);
  }
  return s;
};

/** The entry id of a settlement receipt's PAYOUT_SENT: one per receipt, whoever records it and however often. */
export const payoutEntryId = (receiptId: string): string =>
  derivedEventId(`receipt-${receiptId}`, 'wallet/PAYOUT_SENT');

/** The wallet commands the API sends (reactions send theirs with sendToWallet). */
export const walletCommands = (ctx: Ctx) => ({
  open: (driverId: number, m?: EventMetadata) => runWallet(ctx, driverId, { type: 'OpenWallet', driverId }, m),
  /** The entry id is the request's (commands/idempotency.ts): a repeated request books nothing more. */
  adjust: (
    a: {
      driverId: number;
      entryId?: string;
      direction: 'CREDIT' | 'DEBIT';
      amountCents: number;
      reason: string;
      adminId: number;
    },
    m?: EventMetadata,
  ) => runWallet(ctx, a.driverId, { type: 'AdjustBalance', ...a, entryId: a.entryId ?? randomUUID() }, m),
  setPayoutAccount: (
    a: { driverId: number; userId: number; account: PayoutAccount; otpVerified: boolean },
    m?: EventMetadata,
  ) => runWallet(ctx, a.driverId, { type: 'SetPayoutAccount', ...a }, m),
});
