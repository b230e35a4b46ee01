import { fold } from '../../domain/decider.js';
import { driverDecider } from '../../domain/driver/driver.js';
import { driverStream } from '../../domain/driver/events.js';
import type { OrderDeliveredData } from '../../domain/order/events.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { isUnderCashDebtCap } from '../../domain/wallet/balance.js';
import { walletStream } from '../../domain/wallet/events.js';
import { walletDecider, type WalletCommand, type WalletState } from '../../domain/wallet/wallet.js';
import { usdToCents } from '../../domain/money.js';
import type { Config } from '../../infra/config.js';
import type { Scheduler } from '../../infra/scheduler.js';
import { derivedEventId } from '../origin.js';
import {
  processManager,
  send,
  startProcess,
  type Cause,
  type ReactionContext,
  type Send,
  type Streams,
} from '../processManager.js';
import { walletEntriesForDelivery, type DeliveredOrderFacts } from './earnings.js';
import { sendToWallet } from './handlers.js';

/** What a delivery's reaction decides on: the delivered order and the driver's wallet as they stand. */
export interface DeliveryReactionState {
  order: DeliveredOrderFacts | null;
  wallet: WalletState;
}

/** The wallet as it would be after these commands: each is decided on the state the previous one left. */
const walletAfter = (wallet: WalletState, commands: WalletCommand[]): WalletState =>
  commands.reduce((s, cmd) => fold(walletDecider.evolve, s, walletDecider.decide(cmd, s)), wallet);

/**
 * Pure: a delivery's wallet entries (earnings.ts), and, when its cash commission brings the driver's debt
 * to the cap, taking the driver offline (docs/domain-rules.md, wallet; going online is refused until the debt falls
 * below it). An entry already recorded changes nothing, so deciding again on a redelivery sends commands
 * that append nothing.
 */
export const deliveryReactions =
  (cashDebtCapCents: number) =>
  (e: Cause, { order, wallet }: DeliveryReactionState, now: Date): Send[] => {
    if (!order) return [];
    const data = e.data as OrderDeliveredData;
    const entries = walletEntriesForDelivery({ eventId: e.eventId, data }, order, (purpose) =>
      derivedEventId(e.eventId, purpose),
    );
    const commands: WalletCommand[] = entries.map((entry) => ({ type: 'RecordEntry', ...entry, now }));
    const sends = entries.map((entry, i) => sendToWallet(commands[i], `wallet/${entry.ledgerType}`));
    if (entries.length === 0 || isUnderCashDebtCap(walletAfter(wallet, commands).balanceCents, cashDebtCapCents))
      return sends;
    const offline = send(
      driverDecider,
      driverStream(data.driverId),
      { type: 'SetOnline', online: false, allowed: true, now },
      'wallet/offline-at-cap',
      {
        eventIds: () => derivedEventId(e.eventId, 'wallet/offline-at-cap'),
      },
    );
    return [...sends, offline];
  };

const deliveryState = async (streams: Streams, e: Cause): Promise<DeliveryReactionState> => {
  const { orderId, driverId } = e.data as OrderDeliveredData;
  return {
    order: await streams.read(orderStream(orderId), orderDecider),
    wallet: await streams.read(walletStream(driverId), walletDecider),
  };
};

/**
 * Deliveries of orders and surplus reservations become wallet entries: inline after the deliver command
 * (on the order it just decided), and from the log by the catch-up job, which heals a delivery whose
 * inline half failed (commands/processManager.ts).
 */
const walletEarningsProcess = (config: WalletConfig) =>
  processManager<ReactionContext, DeliveryReactionState>({
    name: 'wallet-earnings',
    categories: ['order'],
    reactsTo: (e) => e.type === 'OrderDelivered',
    stateOf: deliveryState,
    decide: deliveryReactions(usdToCents(config.CASH_DEBT_CAP_USD)),
  });

type WalletConfig = Pick<Config, 'CASH_DEBT_CAP_USD'>;

/** A delivery's wallet reaction as the catch-up runs it (a redelivery, in tests). */
export const reactToDelivery = (ctx: ReactionContext & { config: WalletConfig }, cause: Cause): Promise<number> =>
  walletEarningsProcess(ctx.config).react(ctx, cause);

export const startWalletEarnings = (
  ctx: ReactionContext & { config: WalletConfig; scheduler: Pick<Scheduler, 'register'> },
) => startProcess(ctx, walletEarningsProcess(ctx.config), { everyMs: 1000, inline: true });
