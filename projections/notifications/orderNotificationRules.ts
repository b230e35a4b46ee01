import type { InboxBatch } from './inboxBatch.js';
import { orderPartyTrackers } from './orderParties.js';
import { idOf, usdText, type NotificationDraft, type NotificationRuleSet } from './ruleTypes.js';
import type { AnyRecordedEvent } from '../projector.js';

type E = AnyRecordedEvent;

const clientOf = (batch: InboxBatch, e: E) => idOf(e.data?.clientId) ?? batch.partiesOf(e.data?.orderId).clientId;
/** Order events name the driver profile; the inbox is the driver's user's. */
const driverOf = (batch: InboxBatch, e: E) =>
  batch.userOfDriver(idOf(e.data?.driverId) ?? batch.partiesOf(e.data?.orderId).driverId);

const orderRef = (e: E) => (idOf(e.data?.orderId) ? `order #${e.data.orderId}` : 'your order');

/** Drafts for the recipients that are known; an unknown one is simply left out. */
const to = (userId: number | null, draft: Omit<NotificationDraft, 'userId'>): NotificationDraft[] =>
  userId === null ? [] : [{ userId, ...draft }];

/** Order and offer events (domain/order/events.ts) → the client's and the driver's inbox. */
export const orderNotificationRules: NotificationRuleSet = {
  types: [
    'offer_received',
    'offer_accepted',
    'offer_rejected',
    'offer_expired',
    'surplus_reserved',
    'order_confirmed',
    'payment_confirmed',
    'payment_rejected',
    'order_started',
    'driver_arrived',
    'order_delivered',
    'order_cancelled',
    'order_expired',
  ],
  trackers: orderPartyTrackers,
  tables: ['notification_order_parties'],
  rules: {
    OrderCreated: (e, { batch }) => {
      if (!idOf(e.data?.surplusListingId)) return [];
      const liters = typeof e.data?.litersRequested === 'number' ? ` (${e.data.litersRequested} L)` : '';
      return to(driverOf(batch, e), {
        type: 'surplus_reserved',
        title: 'Surplus reserved',
        body: `A customer reserved your surplus water${liters}: ${orderRef(e)}.`,
        priority: 'high',
        data: { order_id: idOf(e.data.orderId), surplus_listing_id: idOf(e.data.surplusListingId) },
      });
    },
    OfferPlaced: (e, { batch }) => {
      const price = usdText(e.data?.offerPriceCents);
      return to(clientOf(batch, e), {
        type: 'offer_received',
        title: 'New offer',
        body: price ? `A driver offered ${price} for ${orderRef(e)}.` : `A driver sent an offer for ${orderRef(e)}.`,
        priority: 'high',
        data: { order_id: idOf(e.data?.orderId), offer_id: idOf(e.data?.offerId) },
      });
    },
    OfferAccepted: (e, { batch }) =>
      to(driverOf(batch, e), {
        type: 'offer_accepted',
        title: 'Offer accepted',
        body:
          e.data?.status === 'CONFIRMED'
            ? `Your offer for ${orderRef(e)} was accepted. The order is confirmed.`
            : `Your offer for ${orderRef(e)} was accepted. Waiting for the customer's payment.`,
        priority: 'high',
        data: { order_id: idOf(e.data?.orderId), offer_id: idOf(e.data?.offerId), status: e.data?.status ?? null },
      }),
    OfferRejected: (e, { batch }) =>
      to(driverOf(batch, e), {
        type: 'offer_rejected',
        title: 'Offer declined',
        body: `The customer declined your offer for ${orderRef(e)}.`,
        data: { order_id: idOf(e.data?.orderId), offer_id: idOf(e.data?.offerId) },
      }),
    OfferExpired: (e, { batch }) =>
      to(driverOf(batch, e), {
        type: 'offer_expired',
        title: 'Offer expired',
        body: `Your offer for ${orderRef(e)} expired without an answer.`,
        priority: 'low',
        data: { order_id: idOf(e.data?.orderId), offer_id: idOf(e.data?.offerId) },
      }),
    OrderPaid: (e, { batch }) => {
      const { clientId, driverId: driverProfileId } = batch.partiesOf(e.data?.orderId);
      const driverId = batch.userOfDriver(driverProfileId);
      const data = { order_id: idOf(e.data?.orderId), payment_id: idOf(e.data?.paymentId) };
      return [
        ...to(clientId, {
          type: 'payment_confirmed',
          title: 'Payment confirmed',
          body: `We received your payment for ${orderRef(e)}.`,
          data,
        }),
        ...to(driverId, {
          type: 'order_confirmed',
          title: 'Order confirmed',
          body: `The customer paid ${orderRef(e)}. You can start the trip.`,
          priority: 'high',
          data: { order_id: data.order_id },
        }),
      ];
    },
    PaymentRejected: (e, { batch }) =>
      to(clientOf(batch, e), {
        type: 'payment_rejected',
        title: 'Payment not accepted',
        body: `Your payment for ${orderRef(e)} was not accepted. You can pay again or change the payment method.`,
        priority: 'high',
        data: { order_id: idOf(e.data?.orderId), payment_id: idOf(e.data?.paymentId) },
      }),
    TripStarted: (e, { batch }) =>
      to(clientOf(batch, e), {
        type: 'order_started',
        title: 'Your water is on the way',
        body: `The driver started the trip for ${orderRef(e)}.`,
        priority: 'high',
        data: { order_id: idOf(e.data?.orderId) },
      }),
    DriverArrived: (e, { batch }) =>
      to(clientOf(batch, e), {
        type: 'driver_arrived',
        title: 'Your driver has arrived',
        body: `The driver is at the delivery address for ${orderRef(e)}. Have your delivery PIN ready.`,
        priority: 'high',
        data: { order_id: idOf(e.data?.orderId) },
      }),
    OrderDelivered: (e, { batch }) => {
      const data = {
        order_id: idOf(e.data?.orderId),
        actual_liters: typeof e.data?.actualLiters === 'number' ? e.data.actualLiters : null,
      };
      return [
        ...to(clientOf(batch, e), {
          type: 'order_delivered',
          title: 'Delivered',
          body: `${orderRef(e)} was delivered. Rate your driver.`,
          data,
        }),
        ...to(driverOf(batch, e), {
          type: 'order_delivered',
          title: 'Delivery confirmed',
          body: `${orderRef(e)} is delivered.`,
          data,
        }),
      ];
    },
    OrderCancelled: (e, { batch }) => {
      const by: unknown = e.data?.cancelledByRole;
      const data = {
        order_id: idOf(e.data?.orderId),
        cancelled_by_role: by ?? null,
        reason_code: e.data?.reasonCode ?? null,
      };
      const draft = { type: 'order_cancelled', title: 'Order cancelled', priority: 'high' as const, data };
      // The party who cancelled knows already; the other one (or both, when support cancelled) is told.
      return [
        ...(by === 'CLIENT' ? [] : to(clientOf(batch, e), { ...draft, body: `${orderRef(e)} was cancelled.` })),
        ...(by === 'DRIVER' ? [] : to(driverOf(batch, e), { ...draft, body: `${orderRef(e)} was cancelled.` })),
      ];
    },
    OrderExpired: (e, { batch }) => {
      const data = { order_id: idOf(e.data?.orderId) };
      return [
        ...to(clientOf(batch, e), {
          type: 'order_expired',
          title: 'Order expired',
          body: `${orderRef(e)} expired.`,
          data,
        }),
        // Only an order that expired waiting for payment had a driver, whose accepted offer is released.
        ...to(driverOf(batch, e), {
          type: 'order_expired',
          title: 'Order expired',
          body: `${orderRef(e)} expired before it was paid.`,
          data,
        }),
      ];
    },
  },
};
