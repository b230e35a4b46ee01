import { describe, expect, it } from 'vitest';
import { derivedEventId } from '../origin.js';
import type { OrderDeliveredData } from '../../domain/order/events.js';
import type { Pricing } from '../../domain/pricing.js';
import { samplePricing } from '../../tests/support/pricing.js';
import { walletDecider, type WalletCommand, type WalletState } from '../../domain/wallet/wallet.js';
import { spec } from '../../tests/support/deciderSpec.js';
import type { Cause, Send } from '../processManager.js';
import { deliveryReactions } from './walletReactions.js';

/**
 * The wallet's reaction to a delivery: given the order's facts and
 * the driver's wallet, when OrderDelivered, then these commands.
 */

const NOW = new Date('2026-03-01T12:05:00.000Z');
const DRIVER = 8;
const CAP_CENTS = 5000;

const pricing = (over: Partial<Pricing> = {}): Pricing => samplePricing({ paymentMethod: 'CASH_USD', ...over });

const delivery = (over: Partial<OrderDeliveredData> = {}): Cause => ({
  eventId: 'delivery-1',
  type: 'OrderDelivered',
  streamId: 'order-31',
  data: {
    orderId: 31,
    clientId: 5,
    driverId: DRIVER,
    litersRequested: 2000,
    actualLiters: 2000,
    paymentMethod: 'CASH_USD',
    pricing: pricing(),
    isValidPromotion: false,
    deliveredAt: '2026-03-01T12:00:00.000Z',
    ...over,
  },
});

const order = { surplusListingId: null, officialRateCents: 3650 };

/** A wallet holding one manual adjustment of this many cents (negative: debt). */
const walletWith = (balanceCents: number): WalletState =>
  balanceCents === 0
    ? spec(walletDecider)
        .givenCommands({ type: 'OpenWallet', driverId: DRIVER, now: new Date('2026-02-01T00:00:00Z') })
        .state()
    : spec(walletDecider)
        .givenCommands({
          type: 'AdjustBalance',
          driverId: DRIVER,
          entryId: 'adj-1',
          direction: balanceCents < 0 ? 'DEBIT' : 'CREDIT',
          amountCents: Math.abs(balanceCents),
          reason: 'saldo inicial',
          adminId: 1,
          now: new Date('2026-02-01T00:00:00Z'),
        })
        .state();

const when = (wallet: WalletState, e: Cause = delivery(), o: typeof order | null = order) =>
  deliveryReactions(CAP_CENTS)(e, { order: o, wallet }, NOW);
const commands = (sends: Send[]) => sends.map((s) => ({ streamId: s.streamId, command: s.command as WalletCommand }));

describe('wallet reactions to a delivery', () => {
  it('a cash delivery records the commission as debt on the driver’s wallet, under the entry’s own id', () => {
    const sends = when(walletWith(0));
    expect(commands(sends)).toEqual([
      {
        streamId: `wallet-${DRIVER}`,
        command: expect.objectContaining({
          type: 'RecordEntry',
          ledgerType: 'CASH_COMMISSION_DEBT',
          direction: 'DEBIT',
          amountCents: 250,
          entryId: derivedEventId('delivery-1', 'wallet/CASH_COMMISSION_DEBT'),
          now: NOW,
        }),
      },
    ]);
    const ledgerEvent = { type: 'LedgerEntryRecorded', data: { entryId: 'the-entry' } };
    expect(sends[0].eventIds?.(0, ledgerEvent)).toBe('the-entry');
  });

  it(
    'a commission that brings the debt to the cap also takes the ' +
      'driver offline, with an id that follows from the delivery',
    () => {
      const sends = when(walletWith(-(CAP_CENTS - 250)));
      expect(sends.map((s) => s.streamId)).toEqual([`wallet-${DRIVER}`, `driver-${DRIVER}`]);
      expect(sends[1].command).toEqual({ type: 'SetOnline', online: false, allowed: true, now: NOW });
      expect(sends[1].eventIds?.(0, { type: 'DriverWentOffline', data: {} })).toBe(
        derivedEventId('delivery-1', 'wallet/offline-at-cap'),
      );
    },
  );

  it('a commission that stays a cent below the cap leaves the driver online', () => {
    expect(when(walletWith(-(CAP_CENTS - 251))).map((s) => s.streamId)).toEqual([`wallet-${DRIVER}`]);
  });

  it('the cap is judged after the promotional reimbursement of the same delivery', () => {
    const e = delivery({ isValidPromotion: true, pricing: pricing({ promoCreditCents: 500 }) });
    const sends = when(walletWith(-(CAP_CENTS - 250)), e);
    // 4 750 of debt + 250 of commission − 500 reimbursed = 4 500, below the cap: no SetOnline.
    expect(commands(sends).map((c) => [c.streamId, c.command.type === 'RecordEntry' && c.command.ledgerType])).toEqual([
      [`wallet-${DRIVER}`, 'CASH_COMMISSION_DEBT'],
      [`wallet-${DRIVER}`, 'PROMO_REIMBURSEMENT'],
    ]);
  });

  it(
    'a redelivered delivery whose entries are already recorded ' +
      'still holds the driver to the cap, and records nothing new',
    () => {
      const first = when(walletWith(-(CAP_CENTS - 250)));
      const recorded = spec(walletDecider)
        .givenCommands(
          {
            type: 'AdjustBalance',
            driverId: DRIVER,
            entryId: 'adj-1',
            direction: 'DEBIT',
            amountCents: CAP_CENTS - 250,
            reason: 'saldo inicial',
            adminId: 1,
            now: new Date('2026-02-01T00:00:00Z'),
          },
          first[0].command as WalletCommand,
        )
        .state();
      const again = when(recorded);
      expect(walletDecider.decide(again[0].command as WalletCommand, recorded)).toEqual([]);
      expect(again.map((s) => s.streamId)).toEqual([`wallet-${DRIVER}`, `driver-${DRIVER}`]);
    },
  );

  it('an online payment earns driver_receives as ORDER_EARNING', () => {
    const sends = when(
      walletWith(-CAP_CENTS),
      delivery({ paymentMethod: 'PAYPROV_DI', pricing: pricing({ paymentMethod: 'PAYPROV_DI' }) }),
    );
    expect(commands(sends)).toEqual([
      {
        streamId: `wallet-${DRIVER}`,
        command: expect.objectContaining({ ledgerType: 'ORDER_EARNING', direction: 'CREDIT', amountCents: 2227 }),
      },
    ]);
  });

  it('a delivery of an order no longer found decides nothing', () => {
    expect(when(walletWith(0), delivery(), null)).toEqual([]);
  });
});
