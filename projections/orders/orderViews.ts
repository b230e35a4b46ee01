import type {
  BillingSnapshot,
  DeliveryPinRejectedData,
  DriverArrivedData,
  DriverLocationRecordedData,
  OfferAcceptedData,
  OfferExpiredData,
  OfferPlacedData,
  OfferRejectedData,
  OfferStatus,
  OrderCancelledData,
  OrderCreatedData,
  OrderDeliveredData,
  OrderExpiredData,
  OrderPaidData,
  PaymentMethodChangedData,
  PaymentRejectedData,
  PaymentReportedData,
  TripStartedData,
} from '../../domain/order/events.js';
import type { BreakdownLine, Pricing } from '../../domain/pricing.js';
import type { Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { dateOrNull, projector } from '../projector.js';
import type { OrderViewRow } from './orderTables.js';

/**
 * The orders projector: each order event becomes writes on the order's row and its offers' rows
 * (orderTables.ts holds their types and table SQL).
 */

const pricingColumns = (p: Pricing) => ({
  base_price_cents: p.basePriceCents,
  driver_gross_cents: p.driverGrossCents,
  platform_revenue_cents: p.platformRevenueCents,
  client_solidary_cents: p.clientSolidaryCents,
  driver_solidary_cents: p.driverSolidaryCents,
  platform_solidary_cents: p.platformSolidaryCents,
  client_pays_cents: p.clientPaysCents,
  driver_receives_cents: p.driverReceivesCents,
  solidary_fund_cents: p.solidaryFundCents,
  promo_credit_cents: p.promoCreditCents,
  client_charged_cents: p.clientChargedCents,
  is_fully_promoted: p.isFullyPromoted,
  breakdown: JSON.stringify(p.breakdown) as unknown as BreakdownLine[],
});

type E<D> = RecordedEvent<string, D>;

const updateOrder = (trx: Trx, orderId: number, at: string, set: Partial<OrderViewRow>) =>
  trx
    .updateTable('order_views')
    .set({ ...set, updated_at: new Date(at) } as never)
    .where('id', '=', orderId)
    .execute();

const setOffer = (trx: Trx, offerId: number, status: OfferStatus, at: string) =>
  trx
    .updateTable('order_offers')
    .set({ status, updated_at: new Date(at) })
    .where('id', '=', offerId)
    .execute();

/** Offers still pending when the order leaves bidding close without a verdict (domain/order/order.ts). */
const withdrawPending = (trx: Trx, orderId: number, at: string) =>
  trx
    .updateTable('order_offers')
    .set({ status: 'WITHDRAWN', updated_at: new Date(at) })
    .where('order_id', '=', orderId)
    .where('status', '=', 'PENDING')
    .execute();

export const orderViewsProjector = projector('order_views', {
  tables: ['order_views', 'order_offers'],
  handlers: {
    OrderCreated: async (trx, { data: d }: E<OrderCreatedData>) => {
      await trx
        .insertInto('order_views')
        .values({
          id: d.orderId,
          client_id: d.clientId,
          driver_id: d.driverId,
          accepted_offer_id: null,
          surplus_listing_id: d.surplusListingId,
          status: d.status,
          latitude: d.latitude,
          longitude: d.longitude,
          address: d.address,
          address_reference: d.addressReference,
          liters_requested: d.litersRequested,
          water_type: d.waterType,
          payment_method: d.paymentMethod,
          payment_form_id: d.paymentFormId,
          notes: d.notes,
          access_instructions: d.accessInstructions,
          billing: (d.billing ? JSON.stringify(d.billing) : null) as unknown as BillingSnapshot | null,
          official_rate_cents: d.officialRateCents,
          ...pricingColumns(d.pricing),
          delivery_pin: d.deliveryPin,
          created_at: new Date(d.createdAt),
          updated_at: new Date(d.createdAt),
          expires_at: new Date(d.expiresAt),
          payment_expires_at: dateOrNull(d.paymentExpiresAt),
          accepted_at: d.driverId === null ? null : new Date(d.createdAt),
          reported_payment_id: null,
          paid_payment_id: null,
          paid_at: null,
          driver_latitude: null,
          driver_longitude: null,
          driver_location_at: null,
          started_at: null,
          arrived_at: null,
          arrival_distance_meters: null,
          failed_pin_attempts: 0,
          pin_locked_until: null,
          delivered_at: null,
          actual_liters: null,
          is_valid_promotion: false,
          cancelled_at: null,
          cancelled_by_role: null,
          cancelled_by_id: null,
          cancel_reason_code: null,
          cancel_reason: null,
          refund_due_cents: 0,
          expired_at: null,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    },
    OfferPlaced: async (trx, { data: d }: E<OfferPlacedData>) => {
      if (d.withdrawnOfferId !== null) await setOffer(trx, d.withdrawnOfferId, 'WITHDRAWN', d.createdAt);
      await trx
        .insertInto('order_offers')
        .values({
          id: d.offerId,
          order_id: d.orderId,
          driver_id: d.driverId,
          offer_price_cents: d.offerPriceCents,
          driver_gross_cents: d.driverGrossCents,
          estimated_minutes: d.estimatedMinutes,
          available_liters: d.availableLiters,
          over_capacity: d.overCapacity,
          status: 'PENDING',
          driver_latitude: d.driverLatitude,
          driver_longitude: d.driverLongitude,
          created_at: new Date(d.createdAt),
          updated_at: new Date(d.createdAt),
          expires_at: new Date(d.expiresAt),
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      await updateOrder(trx, d.orderId, d.createdAt, { status: d.orderStatus });
    },
    OfferAccepted: async (trx, { data: d }: E<OfferAcceptedData>) => {
      await setOffer(trx, d.offerId, 'ACCEPTED', d.acceptedAt);
      await withdrawPending(trx, d.orderId, d.acceptedAt);
      await updateOrder(trx, d.orderId, d.acceptedAt, {
        status: d.status,
        driver_id: d.driverId,
        accepted_offer_id: d.offerId,
        accepted_at: new Date(d.acceptedAt),
        payment_expires_at: dateOrNull(d.paymentExpiresAt),
        ...pricingColumns(d.pricing),
      });
    },
    OfferRejected: async (trx, { data: d }: E<OfferRejectedData>) => {
      await setOffer(trx, d.offerId, 'REJECTED', d.rejectedAt);
      await updateOrder(trx, d.orderId, d.rejectedAt, { status: d.orderStatus });
    },
    OfferExpired: async (trx, { data: d }: E<OfferExpiredData>) => {
      await setOffer(trx, d.offerId, 'EXPIRED', d.expiredAt);
      await updateOrder(trx, d.orderId, d.expiredAt, { status: d.orderStatus });
    },
    PaymentMethodChanged: (trx, { data: d }: E<PaymentMethodChangedData>) =>
      updateOrder(trx, d.orderId, d.changedAt, {
        status: d.status,
        payment_method: d.paymentMethod,
        payment_form_id: d.paymentFormId,
        ...pricingColumns(d.pricing),
      }),
    PaymentReported: (trx, { data: d }: E<PaymentReportedData>) =>
      updateOrder(trx, d.orderId, d.reportedAt, { reported_payment_id: d.paymentId }),
    PaymentRejected: (trx, { data: d }: E<PaymentRejectedData>) =>
      updateOrder(trx, d.orderId, d.rejectedAt, { reported_payment_id: null }),
    OrderPaid: (trx, { data: d }: E<OrderPaidData>) =>
      updateOrder(trx, d.orderId, d.paidAt, {
        status: 'CONFIRMED',
        paid_payment_id: d.paymentId,
        paid_at: new Date(d.paidAt),
      }),
    TripStarted: (trx, { data: d }: E<TripStartedData>) =>
      updateOrder(trx, d.orderId, d.startedAt, { status: 'IN_PROGRESS', started_at: new Date(d.startedAt) }),
    DriverLocationRecorded: (trx, { data: d }: E<DriverLocationRecordedData>) =>
      updateOrder(trx, d.orderId, d.recordedAt, {
        driver_latitude: d.latitude,
        driver_longitude: d.longitude,
        driver_location_at: new Date(d.recordedAt),
      }),
    DriverArrived: (trx, { data: d }: E<DriverArrivedData>) =>
      updateOrder(trx, d.orderId, d.arrivedAt, {
        status: 'ARRIVED',
        arrived_at: new Date(d.arrivedAt),
        arrival_distance_meters: d.distanceMeters,
      }),
    DeliveryPinRejected: (trx, { data: d }: E<DeliveryPinRejectedData>) =>
      updateOrder(
        trx,
        d.orderId,
        d.attemptedAt,
        d.lockedUntil
          ? { failed_pin_attempts: 0, pin_locked_until: new Date(d.lockedUntil) }
          : { failed_pin_attempts: d.failedAttempts },
      ),
    OrderDelivered: (trx, { data: d }: E<OrderDeliveredData>) =>
      updateOrder(trx, d.orderId, d.deliveredAt, {
        status: 'DELIVERED',
        delivered_at: new Date(d.deliveredAt),
        actual_liters: d.actualLiters,
        is_valid_promotion: d.isValidPromotion,
      }),
    OrderCancelled: async (trx, { data: d }: E<OrderCancelledData>) => {
      await withdrawPending(trx, d.orderId, d.cancelledAt);
      await updateOrder(trx, d.orderId, d.cancelledAt, {
        status: 'CANCELLED',
        cancelled_at: new Date(d.cancelledAt),
        cancelled_by_role: d.cancelledByRole,
        cancelled_by_id: d.cancelledById,
        cancel_reason_code: d.reasonCode,
        cancel_reason: d.reason,
        refund_due_cents: d.refundDueCents,
      });
    },
    OrderExpired: async (trx, { data: d }: E<OrderExpiredData>) => {
      if (d.releasedOfferId !== null) await setOffer(trx, d.releasedOfferId, 'EXPIRED', d.expiredAt);
      await withdrawPending(trx, d.orderId, d.expiredAt);
      await updateOrder(trx, d.orderId, d.expiredAt, { status: 'EXPIRED', expired_at: new Date(d.expiredAt) });
    },
  },
  publish: (e) => {
    const d = e.data as { orderId?: number; clientId?: number; driverId?: number | null; offerId?: number };
    return [
      {
        subject: `events.order.${e.type}`,
        data: {
          orderId: d.orderId,
          clientId: d.clientId ?? null,
          driverId: d.driverId ?? null,
          offerId: d.offerId ?? null,
        },
      },
    ];
  },
});
