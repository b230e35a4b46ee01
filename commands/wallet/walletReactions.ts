import { driverDecider } from '../../domain/driver/driver.js';
import { driverStream } from '../../domain/driver/events.js';
import type { OrderDeliveredData } from '../../domain/order/events.js';
import { isUnderCashDebtCap } from '../../domain/wallet/balance.js';
import { usdToCents } from '../../domain/money.js';
import type { AppContext } from '../../infra/context.js';
import type { ScheduledJob } from '../../infra/scheduler.js';
import { causedBy, derivedEventId } from '../origin.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider, type Order } from '../../domain/order/order.js';
import { loadState } from '../handle.js';
import { processManager, type Cause } from '../processManager.js';
import { walletEntriesForDelivery } from './earnings.js';
import { isBusy, walletCommands } from './handlers.js';

/**
 * A delivery whose cash commission brings the driver's debt to the cap takes them offline, with an id
 * derived from the delivery (so a redelivery does it once). Going online again is refused by the online
 * gate until the debt is below the cap.
 */
const offlineAtCap = async (ctx: AppContext, cause: Cause, driverId: number, balanceCents: number): Promise<number> => {
  if (isUnderCashDebtCap(balanceCents, usdToCents(ctx.config.CASH_DEBT_CAP_USD))) return 0;
  const { position } = await ctx.handle(
    driverDecider,
    driverStream(driverId),
    { type: 'SetOnline', online: false, allowed: true, now: ctx.clock.now() },
    { metadata: causedBy(cause), eventIds: () => derivedEventId(cause.eventId, 'wallet/offline-at-cap') },
  );
  return position;
};

/** The executor of earnings.ts, reading the delivered order from its stream (the catch-up's way). */
export const reactToDelivery = async (ctx: AppContext, cause: Cause): Promise<number> => {
  const { state: order } = await loadState(ctx.store, orderStream((cause.data as OrderDeliveredData).orderId), orderDecider);
  return order ? recordDeliveryEarnings(ctx, cause, order) : 0;
};

/**
 * Records each entry of a delivery and applies the cash-debt cap. The deliver handler calls it with the
 * order it just decided (no second read of the order stream); the catch-up, through reactToDelivery.
 */
export const recordDeliveryEarnings = async (ctx: AppContext, cause: Cause, order: Order): Promise<number> => {
  const data = cause.data as OrderDeliveredData;
  const entries = walletEntriesForDelivery({ eventId: cause.eventId, data }, order, (purpose) => derivedEventId(cause.eventId, purpose));
  const wallet = walletCommands(ctx);
  let last = 0;
  let balanceCents: number | null = null;
  for (const entry of entries) {
    const r = await wallet.record(entry, causedBy(cause)).catch((err: unknown) => {
      // A stream still busy after every retry is no refusal: a plain error makes the catch-up try this
      // delivery again instead of skipping it (a DomainError would be logged and skipped as final).
      if (isBusy(err)) throw new Error(`wallet of driver ${entry.driverId} stayed busy`, { cause: err });
      throw err;
    });
    last = Math.max(last, r.position);
    balanceCents = r.state.balanceCents;
  }
  if (balanceCents !== null) last = Math.max(last, await offlineAtCap(ctx, cause, data.driverId, balanceCents));
  return last;
};

/**
 * Deliveries of orders and surplus reservations become wallet entries: inline in the deliver handler
 * (commands/order/trip.ts), and from the log by this catch-up job, which heals a delivery whose inline
 * half failed (commands/processManager.ts).
 */
export const walletEarningsProcess = processManager<AppContext>({
  name: 'wallet-earnings',
  reactsTo: (e) => e.type === 'OrderDelivered' && e.streamId.startsWith('order-'),
  react: reactToDelivery,
});

export const walletEarningsJob = (ctx: AppContext, everyMs = 1000): ScheduledJob => walletEarningsProcess.catchUpJob(ctx, { everyMs });
