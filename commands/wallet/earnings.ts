import type { OrderDeliveredData } from '../../domain/order/events.js';
import { isCash } from '../../domain/pricing.js';
import type { EntryRequest } from '../../domain/wallet/wallet.js';

/**
 * What a delivery means for the driver's wallet (docs/domain-rules.md, wallet), as a pure decision: the executor
 * (walletReactions.ts) sends each entry through the wallet handler.
 * - paid online or by form: ORDER_EARNING (SURPLUS_EARNING for a surplus reservation) of driver_receives;
 * - CASH_USD: the driver kept the cash, so CASH_COMMISSION_DEBT of platform_revenue, and when promotional
 *   credit paid part of it (a valid promotion) the platform reimburses that part: PROMO_REIMBURSEMENT.
 * Each entry's id derives from the delivery event's id and its type, and its cause is that event.
 */
export interface DeliveryCause {
  eventId: string;
  data: OrderDeliveredData;
}

/** What the delivery event does not carry, read from the order's state. */
export interface DeliveredOrderFacts {
  surplusListingId: number | null;
  officialRateCents: number;
}

/** The official rate as the spec's `exchange_rate_amount` string: bolivars per USD with two decimals. */
export const exchangeRateAmount = (officialRateCents: number): string =>
  `${Math.trunc(officialRateCents / 100)}.${String(officialRateCents % 100).padStart(2, '0')}`;

export const walletEntriesForDelivery = (
  cause: DeliveryCause,
  order: DeliveredOrderFacts,
  entryId: (purpose: string) => string,
): EntryRequest[] => {
  const d = cause.data;
  const surplus = order.surplusListingId !== null;
  const what = surplus ? `reserva de excedente del pedido #${d.orderId}` : `pedido #${d.orderId}`;
  const common = {
    driverId: d.driverId,
    orderId: d.orderId,
    receiptId: null,
    exchangeRateAmount: exchangeRateAmount(order.officialRateCents),
    causeId: cause.eventId,
    // What the receipt's ORDER line shows, as this delivery decided it (docs/decisions/0098).
    orderFigures: {
      priceCents: d.pricing.basePriceCents,
      commissionCents: d.pricing.platformRevenueCents,
      deliveredAt: d.deliveredAt,
    },
  };
  const entries: EntryRequest[] = isCash(d.paymentMethod)
    ? [
        {
          ...common,
          entryId: entryId('wallet/CASH_COMMISSION_DEBT'),
          ledgerType: 'CASH_COMMISSION_DEBT',
          direction: 'DEBIT',
          amountCents: d.pricing.platformRevenueCents,
          description: `Comisión de la plataforma, ${what} (cobrado en efectivo)`,
        },
        ...(d.isValidPromotion
          ? [
              {
                ...common,
                entryId: entryId('wallet/PROMO_REIMBURSEMENT'),
                ledgerType: 'PROMO_REIMBURSEMENT' as const,
                direction: 'CREDIT' as const,
                amountCents: d.pricing.promoCreditCents,
                description: `Reintegro del crédito promocional, ${what}`,
              },
            ]
          : []),
      ]
    : [
        surplus
          ? {
              ...common,
              entryId: entryId('wallet/SURPLUS_EARNING'),
              ledgerType: 'SURPLUS_EARNING',
              direction: 'CREDIT',
              amountCents: d.pricing.driverReceivesCents,
              description: `Ganancia de la ${what}`,
            }
          : {
              ...common,
              entryId: entryId('wallet/ORDER_EARNING'),
              ledgerType: 'ORDER_EARNING',
              direction: 'CREDIT',
              amountCents: d.pricing.driverReceivesCents,
              description: `Ganancia del ${what}`,
            },
      ];
  // A zero figure (no commission, no credit) moves no money: the ledger holds only movements.
  return entries.filter((e) => e.amountCents > 0);
};
