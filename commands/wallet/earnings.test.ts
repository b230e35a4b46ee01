import { describe, expect, it } from 'vitest';
import type { OrderDeliveredData } from '../../domain/order/events.js';
import { samplePricing } from '../../tests/support/pricing.js';
import { exchangeRateAmount, walletEntriesForDelivery, type DeliveryCause } from './earnings.js';

const pricing = samplePricing;

const delivered = (over: Partial<OrderDeliveredData> = {}): DeliveryCause => ({
  eventId: 'delivery-event-1',
  data: {
    orderId: 31,
    clientId: 5,
    driverId: 8,
    litersRequested: 2000,
    actualLiters: 2000,
    paymentMethod: 'PAYPROV_DI',
    pricing: pricing(),
    isValidPromotion: false,
    deliveredAt: '2026-03-01T12:00:00.000Z',
    ...over,
  },
});

const order = { surplusListingId: null, officialRateCents: 3650 };
const ids = (purpose: string) => `id:${purpose}`;

describe('delivery → wallet entries', () => {
  it(
    'an order paid online earns driver_receives as ORDER_EARNING, ' +
      'at the order’s rate snapshot, caused by the delivery',
    () => {
      expect(walletEntriesForDelivery(delivered(), order, ids)).toEqual([
        {
          driverId: 8,
          entryId: 'id:wallet/ORDER_EARNING',
          ledgerType: 'ORDER_EARNING',
          direction: 'CREDIT',
          amountCents: 2227,
          orderId: 31,
          receiptId: null,
          exchangeRateAmount: '36.50',
          description: 'Ganancia del pedido #31',
          causeId: 'delivery-event-1',
          // The receipt's ORDER line shows the figures the delivery decided (docs/decisions/0098).
          orderFigures: {
            priceCents: 2500,
            commissionCents: 250,
            deliveredAt: '2026-03-01T12:00:00.000Z',
          },
        },
      ]);
    },
  );

  it('a surplus reservation paid online earns SURPLUS_EARNING', () => {
    const [e] = walletEntriesForDelivery(delivered(), { ...order, surplusListingId: 4 }, ids);
    expect(e).toMatchObject({ ledgerType: 'SURPLUS_EARNING', direction: 'CREDIT', amountCents: 2227 });
  });

  it('a cash order leaves the commission as debt; a cash surplus reservation too', () => {
    const cash = delivered({
      paymentMethod: 'CASH_USD',
      pricing: pricing({ paymentMethod: 'CASH_USD', driverReceivesCents: 2250 }),
    });
    for (const o of [order, { ...order, surplusListingId: 4 }]) {
      expect(walletEntriesForDelivery(cash, o, ids)).toEqual([
        expect.objectContaining({ ledgerType: 'CASH_COMMISSION_DEBT', direction: 'DEBIT', amountCents: 250 }),
      ]);
    }
  });

  it('a cash order delivered as a valid promotion also gets the credited part back as PROMO_REIMBURSEMENT', () => {
    const cash = delivered({
      paymentMethod: 'CASH_USD',
      isValidPromotion: true,
      pricing: pricing({ paymentMethod: 'CASH_USD', promoCreditCents: 1000, clientChargedCents: 1500 }),
    });
    expect(walletEntriesForDelivery(cash, order, ids).map((e) => [e.ledgerType, e.direction, e.amountCents])).toEqual([
      ['CASH_COMMISSION_DEBT', 'DEBIT', 250],
      ['PROMO_REIMBURSEMENT', 'CREDIT', 1000],
    ]);
  });

  it('an online order with credit earns the same (the client paid the credit part with platform money)', () => {
    const online = delivered({ isValidPromotion: true, pricing: pricing({ promoCreditCents: 1000 }) });
    expect(walletEntriesForDelivery(online, order, ids).map((e) => e.ledgerType)).toEqual(['ORDER_EARNING']);
  });

  it('a zero figure writes no entry', () => {
    const cash = delivered({
      paymentMethod: 'CASH_USD',
      pricing: pricing({ paymentMethod: 'CASH_USD', platformRevenueCents: 0 }),
    });
    expect(walletEntriesForDelivery(cash, order, ids)).toEqual([]);
  });

  it('renders the rate snapshot with two decimals', () => {
    expect([exchangeRateAmount(3650), exchangeRateAmount(5), exchangeRateAmount(4_012_345)]).toEqual([
      '36.50',
      '0.05',
      '40123.45',
    ]);
  });
});
