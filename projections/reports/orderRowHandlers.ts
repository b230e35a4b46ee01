import { sql } from 'kysely';
import type {
  DriverArrivedData,
  OfferAcceptedData,
  OfferExpiredData,
  OfferPlacedData,
  OfferRejectedData,
  OrderCancelledData,
  OrderCreatedData,
  OrderDeliveredData,
  OrderExpiredData,
  OrderPaidData,
  OrderStatus,
  PaymentMethodChangedData,
  PaymentRejectedData,
  TripStartedData,
} from '../../domain/order/events.js';
import type { IncidentReportedData } from '../../domain/incident/events.js';
import type { RatingSubmittedData } from '../../domain/rating/events.js';
import type { Pricing } from '../../domain/pricing.js';
import type { Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import type { EventHandler } from '../projector.js';
import type { ReportOrderRow } from './reportTables.js';

type E<D> = RecordedEvent<string, D>;

/**
 * A cancelled or expired order counts as recovered when its client
 * gets an order delivered that was placed within this long after.
 */
export const RECOVERY_WINDOW_HOURS = 24;

/** The four stages the cancellations report names: bidding counts as BROADCASTING, arrival as IN_PROGRESS. */
export const stageAtCancel = (s: OrderStatus): string =>
  s === 'COUNTER_OFFERED' ? 'BROADCASTING' : s === 'ARRIVED' ? 'IN_PROGRESS' : s;

const pricingColumns = (p: Pricing) => ({
  driver_gross_cents: p.driverGrossCents,
  platform_revenue_cents: p.platformRevenueCents,
  driver_solidary_cents: p.driverSolidaryCents,
  solidary_fund_cents: p.solidaryFundCents,
  driver_receives_cents: p.driverReceivesCents,
  client_pays_cents: p.clientPaysCents,
  promo_credit_cents: p.promoCreditCents,
});

const update = (trx: Trx, orderId: number, set: Partial<ReportOrderRow>) =>
  trx
    .updateTable('report_orders')
    .set(set as never)
    .where('id', '=', orderId)
    .execute();

const setOffer = (trx: Trx, offerId: number, status: string) =>
  trx.updateTable('report_order_offers').set({ status }).where('id', '=', offerId).execute();

const withdrawPending = (trx: Trx, orderId: number) =>
  trx
    .updateTable('report_order_offers')
    .set({ status: 'WITHDRAWN' })
    .where('order_id', '=', orderId)
    .where('status', '=', 'PENDING')
    .execute();

const driverActivity = (trx: Trx, driverId: number | null, at: string, set: Record<string, unknown> = {}) =>
  driverId === null
    ? Promise.resolve()
    : trx
        .updateTable('report_drivers')
        .set({ ...set, last_activity_at: sql`greatest(last_activity_at, ${new Date(at)})` } as never)
        .where('driver_id', '=', driverId)
        .execute();

const ended = async (trx: Trx, orderId: number, at: string, set: Partial<ReportOrderRow>) => {
  await withdrawPending(trx, orderId);
  await trx
    .updateTable('report_orders')
    .set({
      ...set,
      ended_at: new Date(at),
      minutes_to_outcome: sql`round(extract(epoch FROM ${new Date(at)}::timestamptz - created_at) / 6) / 10`,
    } as never)
    .where('id', '=', orderId)
    .execute();
};

/** report_orders and report_order_offers from the order, rating and incident streams. */
export const orderRowHandlers: Record<string, EventHandler> = {
  OrderCreated: async (trx, { data: d }: E<OrderCreatedData>) => {
    const surplus = d.surplusListingId !== null;
    await trx
      .insertInto('report_orders')
      .values({
        id: d.orderId,
        // Orders recorded before cities had centres carry no city.
        city_id: d.cityId ?? null,
        client_id: d.clientId,
        driver_id: d.driverId,
        status: d.status,
        origin: surplus ? 'remate' : 'app',
        address: d.address,
        water_type: d.waterType,
        payment_method: d.paymentMethod,
        payment_status: 'pending',
        liters_requested: d.litersRequested,
        liters_delivered: null,
        liters_diff: null,
        base_price_cents: d.pricing.basePriceCents,
        final_price_cents: surplus ? d.pricing.basePriceCents : null,
        ...pricingColumns(d.pricing),
        has_counter_offer: false,
        offers_count: 0,
        best_offer_cents: null,
        offers_at_base_price: 0,
        had_accepted_offer: false,
        rating: null,
        incidents: 0,
        created_at: new Date(d.createdAt),
        // A surplus reservation has its driver from the start: no acceptance time to measure.
        accepted_at: surplus ? new Date(d.createdAt) : null,
        delivered_at: null,
        acceptance_minutes: null,
        delivery_minutes: null,
        ended_at: null,
        minutes_to_outcome: null,
        cancelled_by_role: null,
        cancelled_by_id: null,
        status_at_cancel: null,
        cancel_reason_code: null,
        cancel_reason: null,
        charged_before: false,
        refund_due_cents: 0,
        recovered: false,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  },
  OfferPlaced: async (trx, { data: d }: E<OfferPlacedData>) => {
    if (d.withdrawnOfferId !== null) await setOffer(trx, d.withdrawnOfferId, 'WITHDRAWN');
    await trx
      .updateTable('report_orders')
      .set({
        status: d.orderStatus,
        offers_count: sql`offers_count + 1`,
        best_offer_cents: sql`least(best_offer_cents, ${d.offerPriceCents}::integer)`,
        offers_at_base_price: sql`offers_at_base_price + (base_price_cents = ${d.offerPriceCents}::integer)::integer`,
        has_counter_offer: sql`has_counter_offer OR base_price_cents <> ${d.offerPriceCents}::integer`,
      } as never)
      .where('id', '=', d.orderId)
      .execute();
    // Asked of the order's row in the statement itself: the handlers only write (reportsProjector.ts).
    await trx
      .insertInto('report_order_offers')
      .values({
        id: d.offerId,
        order_id: d.orderId,
        driver_id: d.driverId,
        offer_price_cents: d.offerPriceCents,
        at_base_price: sql<boolean>`coalesce((SELECT base_price_cents = ${d.offerPriceCents}::integer
          FROM report_orders WHERE id = ${d.orderId}::bigint), false)`,
        status: 'PENDING',
        created_at: new Date(d.createdAt),
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    await driverActivity(trx, d.driverId, d.createdAt);
  },
  OfferAccepted: async (trx, { data: d }: E<OfferAcceptedData>) => {
    await setOffer(trx, d.offerId, 'ACCEPTED');
    await withdrawPending(trx, d.orderId);
    await trx
      .updateTable('report_orders')
      .set({
        status: d.status,
        driver_id: d.driverId,
        had_accepted_offer: true,
        accepted_at: new Date(d.acceptedAt),
        acceptance_minutes: sql`round(extract(epoch
          FROM ${new Date(d.acceptedAt)}::timestamptz - created_at) / 6) / 10`,
        final_price_cents: d.pricing.basePriceCents,
        ...pricingColumns(d.pricing),
      } as never)
      .where('id', '=', d.orderId)
      .execute();
    await driverActivity(trx, d.driverId, d.acceptedAt);
  },
  OfferRejected: async (trx, { data: d }: E<OfferRejectedData>) => {
    await setOffer(trx, d.offerId, 'REJECTED');
    await update(trx, d.orderId, { status: d.orderStatus });
  },
  OfferExpired: async (trx, { data: d }: E<OfferExpiredData>) => {
    await setOffer(trx, d.offerId, 'EXPIRED');
    await update(trx, d.orderId, { status: d.orderStatus });
  },
  PaymentMethodChanged: (trx, { data: d }: E<PaymentMethodChangedData>) =>
    trx
      .updateTable('report_orders')
      .set({
        status: d.status,
        payment_method: d.paymentMethod,
        // A failed attempt is behind the client once they choose another way to pay.
        payment_status: sql`CASE WHEN payment_status = 'failed' THEN 'pending' ELSE payment_status END`,
        ...pricingColumns(d.pricing),
      } as never)
      .where('id', '=', d.orderId)
      .execute(),
  PaymentRejected: (trx, { data: d }: E<PaymentRejectedData>) => update(trx, d.orderId, { payment_status: 'failed' }),
  OrderPaid: (trx, { data: d }: E<OrderPaidData>) =>
    update(trx, d.orderId, { status: 'CONFIRMED', payment_status: 'confirmed', charged_before: true }),
  TripStarted: async (trx, { data: d }: E<TripStartedData>) => {
    await update(trx, d.orderId, { status: 'IN_PROGRESS' });
    await driverActivity(trx, d.driverId, d.startedAt);
  },
  DriverArrived: async (trx, { data: d }: E<DriverArrivedData>) => {
    await update(trx, d.orderId, { status: 'ARRIVED' });
    await driverActivity(trx, d.driverId, d.arrivedAt);
  },
  OrderDelivered: async (trx, { data: d }: E<OrderDeliveredData>) => {
    const at = new Date(d.deliveredAt);
    // Delivery needs a confirmed order: paid online, covered by credit, or cash collected at the door.
    await trx
      .updateTable('report_orders')
      .set({
        status: 'DELIVERED',
        delivered_at: at,
        liters_delivered: d.actualLiters,
        liters_diff: d.actualLiters - d.litersRequested,
        payment_status: 'confirmed',
        delivery_minutes: sql`round(extract(epoch
          FROM ${at}::timestamptz - coalesce(accepted_at, created_at)) / 6) / 10`,
        ...pricingColumns(d.pricing),
      } as never)
      .where('id', '=', d.orderId)
      .execute();
    // The client's orders that ended within the window before this one was placed are recovered.
    await trx
      .updateTable('report_orders as r')
      .from('report_orders as o')
      .set({ recovered: true })
      .where('o.id', '=', d.orderId)
      .whereRef('r.client_id', '=', 'o.client_id')
      .whereRef('r.ended_at', '<=', 'o.created_at')
      .where(sql<boolean>`r.ended_at >= o.created_at - ${RECOVERY_WINDOW_HOURS} * interval '1 hour'`)
      .execute();
    await driverActivity(trx, d.driverId, d.deliveredAt, {
      deliveries: sql`deliveries + 1`,
      liters_delivered: sql`liters_delivered + ${d.actualLiters}`,
      gross_earnings_cents: sql`gross_earnings_cents + ${d.pricing.driverGrossCents}`,
      commission_paid_cents: sql`commission_paid_cents + ${d.pricing.platformRevenueCents}`,
      solidary_cents: sql`solidary_cents + ${d.pricing.driverSolidaryCents}`,
    });
  },
  OrderCancelled: async (trx, { data: d }: E<OrderCancelledData>) => {
    await ended(trx, d.orderId, d.cancelledAt, {
      status: 'CANCELLED',
      cancelled_by_role: d.cancelledByRole,
      cancelled_by_id: d.cancelledById,
      status_at_cancel: stageAtCancel(d.previousStatus),
      cancel_reason_code: d.reasonCode,
      cancel_reason: d.reason,
      refund_due_cents: d.refundDueCents,
    });
    if (d.cancelledByRole === 'DRIVER')
      await driverActivity(trx, d.driverId, d.cancelledAt, { own_cancellations: sql`own_cancellations + 1` });
  },
  OrderExpired: async (trx, { data: d }: E<OrderExpiredData>) => {
    if (d.releasedOfferId !== null) await setOffer(trx, d.releasedOfferId, 'EXPIRED');
    await ended(trx, d.orderId, d.expiredAt, {
      status: 'EXPIRED',
      cancelled_by_role: 'SYSTEM',
      status_at_cancel: stageAtCancel(d.previousStatus),
    });
  },
  RatingSubmitted: async (trx, { data: d }: E<RatingSubmittedData>) => {
    await update(trx, d.orderId, { rating: d.score });
    await trx
      .updateTable('report_drivers')
      .set({ rating_sum: sql`rating_sum + ${d.score}`, ratings_count: sql`ratings_count + 1` } as never)
      .where('driver_id', '=', d.driverId)
      .execute();
  },
  IncidentReported: async (trx, { data: d }: E<IncidentReportedData>) => {
    await trx
      .updateTable('report_orders')
      .set({ incidents: sql`incidents + 1` } as never)
      .where('id', '=', d.orderId)
      .execute();
    await trx
      .updateTable('report_drivers')
      .set({ incidents: sql`incidents + 1` } as never)
      .where('driver_id', '=', (eb) => eb.selectFrom('report_orders').select('driver_id').where('id', '=', d.orderId))
      .execute();
  },
};
