import { iso } from '../time.js';
import type { Decider } from '../decider.js';
import { conflict, validationError } from '../errors.js';
import type { BucketAmounts, CreditBucket, CreditEvent, CreditKind, CreditRefundReason } from './events.js';

export interface Redemption {
  kind: CreditKind;
  amountCents: number;
  split: BucketAmounts;
}

export interface CreditState {
  balances: BucketAmounts;
  /** Promotion grants and manual credits, ever (the summary's earned). */
  earnedCents: number;
  /** The live redemption of each order; a refund removes it. */
  redemptions: Record<number, Redemption>;
  grantIds: readonly number[];
}

export const initialState: CreditState = {
  balances: { ANY: 0, ORDERS: 0, SURPLUS: 0 },
  earnedCents: 0,
  redemptions: {},
  grantIds: [],
};

export interface GrantCredit {
  type: 'GrantCredit';
  clientId: number;
  grantId: number;
  promotionId: number;
  orderId: number | null;
  scope: CreditBucket;
  amountCents: number;
  now: Date;
}

export interface AdjustCredit {
  type: 'AdjustCredit';
  clientId: number;
  adminId: number;
  direction: 'CREDIT' | 'DEBIT';
  scope: CreditBucket;
  amountCents: number;
  reason: string;
  now: Date;
}

/**
 * Redeem exactly amountCents for the order, replacing any earlier redemption of the same order (a re-price
 * after an accepted counter-offer or a payment-method change): the earlier one is refunded first, so the
 * balances always equal grants ± adjustments − live redemptions. Sending the same amount again changes nothing.
 */
export interface RedeemCredit {
  type: 'RedeemCredit';
  clientId: number;
  orderId: number;
  kind: CreditKind;
  amountCents: number;
  now: Date;
}

/** The order was cancelled or expired: its redemption (if any) goes back. */
export interface RefundCredit {
  type: 'RefundCredit';
  clientId: number;
  orderId: number;
  reason: Exclude<CreditRefundReason, 'ORDER_REPRICED'>;
  now: Date;
}

export type CreditCommand = GrantCredit | AdjustCredit | RedeemCredit | RefundCredit;

/** The bucket a redemption draws from first: scoped credit is the less flexible, so it is spent before ANY. */
const SCOPED_BUCKET: Record<CreditKind, CreditBucket> = { order: 'ORDERS', surplus: 'SURPLUS' };

const add = (a: BucketAmounts, b: BucketAmounts, sign: 1 | -1): BucketAmounts => ({
  ANY: a.ANY + sign * b.ANY,
  ORDERS: a.ORDERS + sign * b.ORDERS,
  SURPLUS: a.SURPLUS + sign * b.SURPLUS,
});

/** A negative bucket (after a debit) offers nothing and does not eat into the others. */
const usableFrom = (balances: BucketAmounts, kind: CreditKind): number =>
  Math.max(0, balances[SCOPED_BUCKET[kind]]) + Math.max(0, balances.ANY);

/** Credit granted for surplus spends only on surplus orders: an order's kind follows from its listing. */
export const creditKindOf = (surplusListingId: number | null): CreditKind =>
  surplusListingId === null ? 'order' : 'surplus';

export const usableCredit = (s: CreditState, kind: CreditKind): number => usableFrom(s.balances, kind);

export const redeemedForOrder = (s: CreditState, orderId: number): number => s.redemptions[orderId]?.amountCents ?? 0;

/** What an order can be priced with now: usable credit as if this order's own redemption were given back. */
export const creditUsableForOrder = (s: CreditState, kind: CreditKind, orderId: number): number => {
  const previous = s.redemptions[orderId];
  return usableFrom(previous ? add(s.balances, previous.split, 1) : s.balances, kind);
};

/** The back-office credit summary, in cents (the API renders the _USD fields). */
export const creditSummary = (s: CreditState) => ({
  anyCents: s.balances.ANY,
  ordersCents: s.balances.ORDERS,
  surplusCents: s.balances.SURPLUS,
  usableOnOrdersCents: usableCredit(s, 'order'),
  usableOnSurplusCents: usableCredit(s, 'surplus'),
  earnedCents: s.earnedCents,
  redeemedCents: Object.values(s.redemptions).reduce((sum, r) => sum + r.amountCents, 0),
});

const assertPositiveCents = (amountCents: number): void => {
  if (!Number.isSafeInteger(amountCents) || amountCents < 1)
    throw validationError({ amount: ['The amount must be at least 0.01.'] });
};

export const decide = (cmd: CreditCommand, s: CreditState): CreditEvent[] => {
  switch (cmd.type) {
    case 'GrantCredit': {
      if (s.grantIds.includes(cmd.grantId)) return [];
      assertPositiveCents(cmd.amountCents);
      return [
        {
          type: 'CreditGranted',
          data: {
            clientId: cmd.clientId,
            grantId: cmd.grantId,
            promotionId: cmd.promotionId,
            orderId: cmd.orderId,
            scope: cmd.scope,
            amountCents: cmd.amountCents,
            balanceAfterCents: s.balances[cmd.scope] + cmd.amountCents,
            grantedAt: iso(cmd.now),
          },
        },
      ];
    }

    case 'AdjustCredit': {
      assertPositiveCents(cmd.amountCents);
      const reason = cmd.reason.trim();
      if (reason.length < 10 || reason.length > 500)
        throw validationError({ reason: ['The reason must be 10 to 500 characters.'] });
      const signed = cmd.direction === 'CREDIT' ? cmd.amountCents : -cmd.amountCents;
      return [
        {
          type: 'CreditAdjusted',
          data: {
            clientId: cmd.clientId,
            adminId: cmd.adminId,
            direction: cmd.direction,
            scope: cmd.scope,
            amountCents: cmd.amountCents,
            reason,
            balanceAfterCents: s.balances[cmd.scope] + signed,
            adjustedAt: iso(cmd.now),
          },
        },
      ];
    }

    case 'RedeemCredit': {
      if (!Number.isSafeInteger(cmd.amountCents) || cmd.amountCents < 0)
        throw new RangeError(`bad redemption: ${cmd.amountCents}`);
      const previous = s.redemptions[cmd.orderId];
      if (previous ? previous.amountCents === cmd.amountCents && previous.kind === cmd.kind : cmd.amountCents === 0)
        return [];
      const events: CreditEvent[] = [];
      let balances = s.balances;
      if (previous) {
        balances = add(balances, previous.split, 1);
        events.push({
          type: 'CreditRefunded',
          data: {
            clientId: cmd.clientId,
            orderId: cmd.orderId,
            amountCents: previous.amountCents,
            split: previous.split,
            balancesAfter: balances,
            reason: 'ORDER_REPRICED',
            refundedAt: iso(cmd.now),
          },
        });
      }
      if (cmd.amountCents === 0) return events;
      const usable = usableFrom(balances, cmd.kind);
      if (cmd.amountCents > usable) {
        throw conflict('InsufficientCredit', 'Not enough credit for this order.', {
          usableCents: usable,
          requestedCents: cmd.amountCents,
        });
      }
      const scoped = SCOPED_BUCKET[cmd.kind];
      const fromScoped = Math.min(cmd.amountCents, Math.max(0, balances[scoped]));
      const split: BucketAmounts = { ANY: cmd.amountCents - fromScoped, ORDERS: 0, SURPLUS: 0 };
      split[scoped] = fromScoped;
      events.push({
        type: 'CreditRedeemed',
        data: {
          clientId: cmd.clientId,
          orderId: cmd.orderId,
          kind: cmd.kind,
          amountCents: cmd.amountCents,
          split,
          balancesAfter: add(balances, split, -1),
          redeemedAt: iso(cmd.now),
        },
      });
      return events;
    }

    case 'RefundCredit': {
      const previous = s.redemptions[cmd.orderId];
      if (!previous) return [];
      return [
        {
          type: 'CreditRefunded',
          data: {
            clientId: cmd.clientId,
            orderId: cmd.orderId,
            amountCents: previous.amountCents,
            split: previous.split,
            balancesAfter: add(s.balances, previous.split, 1),
            reason: cmd.reason,
            refundedAt: iso(cmd.now),
          },
        },
      ];
    }
  }
};

export const evolve = (s: CreditState, e: CreditEvent): CreditState => {
  switch (e.type) {
    case 'CreditGranted':
      return {
        ...s,
        balances: { ...s.balances, [e.data.scope]: s.balances[e.data.scope] + e.data.amountCents },
        earnedCents: s.earnedCents + e.data.amountCents,
        grantIds: [...s.grantIds, e.data.grantId],
      };
    case 'CreditAdjusted': {
      const credit = e.data.direction === 'CREDIT';
      const signed = credit ? e.data.amountCents : -e.data.amountCents;
      return {
        ...s,
        balances: { ...s.balances, [e.data.scope]: s.balances[e.data.scope] + signed },
        earnedCents: credit ? s.earnedCents + e.data.amountCents : s.earnedCents,
      };
    }
    case 'CreditRedeemed':
      return {
        ...s,
        balances: add(s.balances, e.data.split, -1),
        redemptions: {
          ...s.redemptions,
          [e.data.orderId]: { kind: e.data.kind, amountCents: e.data.amountCents, split: e.data.split },
        },
      };
    case 'CreditRefunded': {
      const redemptions = { ...s.redemptions };
      delete redemptions[e.data.orderId];
      return { ...s, balances: add(s.balances, e.data.split, 1), redemptions };
    }
  }
};

export const creditDecider: Decider<CreditCommand, CreditState, CreditEvent> = { initialState, evolve, decide };
