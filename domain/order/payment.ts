import { creditKindOf } from '../credit/credit.js';
import { conflict, notFound } from '../errors.js';
import { isCash } from '../pricing.js';
import { iso } from '../time.js';
import { PAYMENT_METHOD_OPEN, paymentFormIdFor, needsOnlinePayment, reprice } from './rules.js';
import type { ChangePaymentMethod, ReportPayment, RejectPayment, ConfirmPayment } from './commands.js';
import type { OrderEvent } from './events.js';
import type { Order } from './order.js';

/** Paying: the client's method and the payments area's report, rejection and confirmation. */

export const changePaymentMethod = (s: Order, cmd: ChangePaymentMethod): OrderEvent[] => {
  if (cmd.clientId !== s.clientId) throw notFound('OrderNotFound', 'Order not found.');
  if (!PAYMENT_METHOD_OPEN.includes(s.status)) throw conflict('PaymentMethodLocked', 'The order is past payment.');
  if (s.status === 'WAITING_FOR_PAYMENT') {
    if (s.reportedPaymentId !== null) throw conflict('PaymentMethodLocked', 'A payment was already reported.');
    if (isCash(cmd.paymentMethod)) throw conflict('PaymentMethodLocked', 'Cannot switch to cash after acceptance.');
  }
  const paymentFormId = paymentFormIdFor(cmd.paymentMethod, cmd.paymentFormId);
  const pricing = reprice(s, s.pricing.basePriceCents, cmd.paymentMethod, cmd.creditAvailableCents);
  const unchanged =
    cmd.paymentMethod === s.paymentMethod &&
    paymentFormId === s.paymentFormId &&
    pricing.promoCreditCents === s.pricing.promoCreditCents;
  if (unchanged) return [];
  return [
    {
      type: 'PaymentMethodChanged',
      data: {
        orderId: s.id,
        clientId: s.clientId,
        paymentMethod: cmd.paymentMethod,
        paymentFormId,
        pricing,
        creditKind: creditKindOf(s.surplusListingId),
        status: s.status === 'WAITING_FOR_PAYMENT' && !needsOnlinePayment(pricing) ? 'CONFIRMED' : s.status,
        changedAt: iso(cmd.now),
      },
    },
  ];
};

export const reportPayment = (s: Order, cmd: ReportPayment): OrderEvent[] => {
  if (s.reportedPaymentId === cmd.paymentId) return [];
  if (s.status !== 'WAITING_FOR_PAYMENT') throw conflict('Conflict', 'The order is not waiting for payment.');
  if (s.reportedPaymentId !== null) throw conflict('Conflict', 'Another payment is already under review.');
  return [{ type: 'PaymentReported', data: { orderId: s.id, paymentId: cmd.paymentId, reportedAt: iso(cmd.now) } }];
};

export const rejectPayment = (s: Order, cmd: RejectPayment): OrderEvent[] => {
  if (s.status !== 'WAITING_FOR_PAYMENT' || s.reportedPaymentId !== cmd.paymentId) return [];
  return [{ type: 'PaymentRejected', data: { orderId: s.id, paymentId: cmd.paymentId, rejectedAt: iso(cmd.now) } }];
};

export const confirmPayment = (s: Order, cmd: ConfirmPayment): OrderEvent[] => {
  if (s.paidPaymentId === cmd.paymentId) return [];
  if (s.status !== 'WAITING_FOR_PAYMENT') throw conflict('Conflict', 'The order is not waiting for payment.');
  return [{ type: 'OrderPaid', data: { orderId: s.id, paymentId: cmd.paymentId, paidAt: iso(cmd.now) } }];
};
