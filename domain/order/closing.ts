import { conflict, forbidden, validationError } from '../errors.js';
import { isCancellationReason } from './cancellationReasons.js';
import { ms, iso } from '../time.js';
import { isBidding, TERMINAL } from './rules.js';
import type { CancelOrder, ExpireOrder } from './commands.js';
import type { OrderEvent } from './events.js';
import type { Order } from './order.js';

/** Closing without a delivery: a party cancels, or a timer expires bidding or the payment window. */

export const cancelOrder = (s: Order, cmd: CancelOrder): OrderEvent[] => {
  const { role, userId } = cmd.actor;
  const mayCancel =
    role === 'ADMIN' || (role === 'CLIENT' && userId === s.clientId) || (role === 'DRIVER' && userId === s.driverId);
  if (!mayCancel) throw forbidden('CancelError', 'You may not cancel this order.');
  if (TERMINAL.includes(s.status)) throw conflict('CancelError', 'The order can no longer be cancelled.');
  if (cmd.reasonCode !== null && !isCancellationReason(role, cmd.reasonCode)) {
    throw validationError({ reason_code: ['Not a cancellation reason for your role.'] });
  }
  return [
    {
      type: 'OrderCancelled',
      data: {
        orderId: s.id,
        clientId: s.clientId,
        surplusListingId: s.surplusListingId,
        cancelledByRole: role,
        cancelledById: userId,
        reasonCode: cmd.reasonCode,
        reason: cmd.reason,
        previousStatus: s.status,
        driverId: s.driverId,
        litersRequested: s.litersRequested,
        refundDueCents: s.paidAt ? s.pricing.clientChargedCents : 0,
        cancelledAt: iso(cmd.now),
      },
    },
  ];
};

export const expireOrder = (s: Order, cmd: ExpireOrder): OrderEvent[] => {
  const now = cmd.now.getTime();
  const base = {
    orderId: s.id,
    clientId: s.clientId,
    surplusListingId: s.surplusListingId,
    litersRequested: s.litersRequested,
    expiredAt: iso(cmd.now),
  };
  if (isBidding(s.status) && now >= ms(s.expiresAt)) {
    return [
      { type: 'OrderExpired', data: { ...base, previousStatus: s.status, releasedOfferId: null, driverId: null } },
    ];
  }
  // A payment under review holds the order until the review ends (RejectPayment reopens the expiry).
  const paymentWindowOver =
    s.paymentExpiresAt !== null && now >= ms(s.paymentExpiresAt) && s.reportedPaymentId === null;
  if (s.status === 'WAITING_FOR_PAYMENT' && paymentWindowOver) {
    return [
      {
        type: 'OrderExpired',
        data: {
          ...base,
          previousStatus: 'WAITING_FOR_PAYMENT',
          releasedOfferId: s.acceptedOfferId,
          driverId: s.driverId,
        },
      },
    ];
  }
  return [];
};
