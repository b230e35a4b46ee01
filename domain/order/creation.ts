import { creditKindOf } from '../credit/credit.js';
import { priceOrder } from '../pricing.js';
import { iso } from '../time.js';
import { paymentFormIdFor, needsOnlinePayment } from './rules.js';
import type { CreateOrder } from './commands.js';
import type { OrderEvent } from './events.js';

/**
 * Creating an order: priced at once, broadcast for bids or,
 * for a surplus reservation, assigned to the listing's driver.
 */

export const createOrder = (cmd: CreateOrder): OrderEvent[] => {
  const paymentFormId = paymentFormIdFor(cmd.paymentMethod, cmd.paymentFormId);
  const pricing = priceOrder({
    waterPriceCents: cmd.waterPriceCents,
    paymentMethod: cmd.paymentMethod,
    settings: cmd.pricingSettings,
    creditAvailableCents: cmd.creditAvailableCents,
  });
  const payOnline = cmd.surplus !== null && needsOnlinePayment(pricing);
  return [
    {
      type: 'OrderCreated',
      data: {
        orderId: cmd.orderId,
        clientId: cmd.clientId,
        surplusListingId: cmd.surplus?.listingId ?? null,
        driverId: cmd.surplus?.driverId ?? null,
        cityId: cmd.cityId,
        status: cmd.surplus === null ? 'BROADCASTING' : payOnline ? 'WAITING_FOR_PAYMENT' : 'CONFIRMED',
        latitude: cmd.latitude,
        longitude: cmd.longitude,
        address: cmd.address,
        addressReference: cmd.addressReference,
        litersRequested: cmd.litersRequested,
        waterType: cmd.waterType,
        paymentMethod: cmd.paymentMethod,
        paymentFormId,
        notes: cmd.notes,
        accessInstructions: cmd.accessInstructions,
        billing: cmd.billing,
        officialRateCents: cmd.officialRateCents,
        pricingSettings: cmd.pricingSettings,
        pricing,
        creditKind: creditKindOf(cmd.surplus?.listingId ?? null),
        deliveryPin: cmd.deliveryPin,
        createdAt: iso(cmd.now),
        expiresAt: iso(cmd.expiresAt),
        paymentExpiresAt: payOnline && cmd.surplus ? iso(cmd.surplus.paymentExpiresAt) : null,
      },
    },
  ];
};
