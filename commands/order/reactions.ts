import { creditUsableForOrder } from '../../domain/credit/credit.js';
import { driverDecider } from '../../domain/driver/driver.js';
import { driverStream } from '../../domain/driver/events.js';
import { DomainError } from '../../domain/errors.js';
import type { OrderDeliveredData, OrderEvent } from '../../domain/order/events.js';
import type { Order } from '../../domain/order/order.js';
import type { AppContext } from '../../infra/context.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { loadCredit, runCredit } from '../credit/handlers.js';
import { processManager } from '../processManager.js';
import { derivedEventId } from './eventIds.js';
import { loadOrder, orderStream, runOrderCommand } from './orderStream.js';

/**
 * The order process manager: what other aggregates must do after an order event.
 * - Credit follows the order's current pricing: redeemed at creation, re-applied after an accepted offer or a
 *   method change, refunded on cancellation or expiry. It reconciles against the order's state now (not the
 *   event's), so replaying old events in any order converges on the same balances.
 * - A delivery draws actualLiters from the driver's tank (the driver stream, through identity's decider).
 *
 * Command handlers run it inline for the events they append (the response then reflects it), and a
 * scheduler job replays the log behind them (commands/processManager.ts). Event ids derive from the causing
 * event's id, so the second run appends nothing.
 */
export interface CausingEvent {
  eventId: string;
  type: string;
  data: unknown;
}

const CREDIT_TRIGGERS = new Set(['OrderCreated', 'OfferAccepted', 'PaymentMethodChanged', 'OrderCancelled', 'OrderExpired']);

const metadataFor = (cause: CausingEvent): EventMetadata => ({ causationId: cause.eventId, actor: { id: null, role: 'SYSTEM' } });

/** Returns the global position of the last event it appended (0 when none). */
export const reconcileOrderCredit = async (ctx: AppContext, orderId: number, cause: CausingEvent, attempt = 1): Promise<number> => {
  const order = await loadOrder(ctx, orderId);
  if (!order) return 0;
  const released = order.status === 'CANCELLED' || order.status === 'EXPIRED';
  const kind = order.surplusListingId === null ? 'order' : 'surplus';
  const eventIds = (i: number) => derivedEventId(cause.eventId, `credit/${attempt}/${i}`);
  const options = { eventIds, metadata: metadataFor(cause) };
  const now = ctx.clock.now();
  if (released) {
    const reason = order.status === 'CANCELLED' ? 'ORDER_CANCELLED' : 'ORDER_EXPIRED';
    return (await runCredit(ctx, order.clientId, { type: 'RefundCredit', clientId: order.clientId, orderId, reason, now }, options)).position;
  }
  try {
    return (await runCredit(ctx, order.clientId, { type: 'RedeemCredit', clientId: order.clientId, orderId, kind, amountCents: order.pricing.promoCreditCents, now }, options)).position;
  } catch (err) {
    // The credit the order was priced with was spent or debited meanwhile: price the order again with what
    // is really usable (while its price may still change); that change reconciles once more.
    if (!(err instanceof DomainError && err.code === 'InsufficientCredit') || attempt > 2) throw err;
    return repriceWithUsableCredit(ctx, order, cause, attempt);
  }
};

const repriceWithUsableCredit = async (ctx: AppContext, order: Order, cause: CausingEvent, attempt: number): Promise<number> => {
  const credit = await loadCredit(ctx, order.clientId);
  const usable = creditUsableForOrder(credit, order.surplusListingId === null ? 'order' : 'surplus', order.id);
  const { position, decided } = await runOrderCommand(
    ctx,
    order.id,
    () => ({
      type: 'ChangePaymentMethod',
      clientId: order.clientId,
      paymentMethod: order.paymentMethod,
      paymentFormId: order.paymentFormId,
      creditAvailableCents: usable,
      now: ctx.clock.now(),
    }),
    metadataFor(cause),
    (i) => derivedEventId(cause.eventId, `reprice/${attempt}/${i}`),
  );
  let last = position;
  for (const e of decided) last = Math.max(last, await reconcileOrderCredit(ctx, order.id, e, attempt + 1));
  return last;
};

const drawTank = async (ctx: AppContext, cause: CausingEvent & { data: OrderDeliveredData }): Promise<number> => {
  const { driverId, actualLiters } = cause.data;
  try {
    const result = await ctx.handle(
      driverStream(driverId),
      driverDecider,
      (s) =>
        driverDecider
          .decide({ type: 'UpdateTank', availableLiters: Math.max(0, s.availableLiters - actualLiters), now: ctx.clock.now() }, s)
          .map((e) => ({ ...e, eventId: derivedEventId(cause.eventId, 'tank') })),
      metadataFor(cause),
    );
    return result.position;
  } catch (err) {
    // A driver without a vehicle profile has no tank to draw from; nothing else can go wrong here.
    if (!(err instanceof DomainError)) throw err;
    ctx.logger.warn({ err, driverId }, 'delivery could not update the tank');
    return 0;
  }
};

/** Returns the global position of the last event it appended (0 when none). */
export const reactToOrderEvent = async (ctx: AppContext, e: CausingEvent): Promise<number> => {
  const orderId = (e.data as { orderId: number }).orderId;
  if (CREDIT_TRIGGERS.has(e.type)) return reconcileOrderCredit(ctx, orderId, e);
  if (e.type === 'OrderDelivered') return drawTank(ctx, e as CausingEvent & { data: OrderDeliveredData });
  return 0;
};

/** Its catch-up half heals a crash between an order's append and the reaction to it. */
const orderProcess = processManager({
  name: 'order-reactions',
  reactsTo: (e) => e.streamId.startsWith('order-') && (CREDIT_TRIGGERS.has(e.type) || e.type === 'OrderDelivered'),
  react: reactToOrderEvent,
});

/** The inline half, for the events an order command handler just appended; returns the last position appended. */
export const reactToOrderEvents = (ctx: AppContext, events: (OrderEvent & { eventId: string })[]): Promise<number> =>
  orderProcess.inline(ctx, events.map((e) => ({ ...e, streamId: orderStream(e.data.orderId) })));

export const orderReactionsJob = (ctx: AppContext) => orderProcess.catchUpJob(ctx, { everyMs: 2000 });
