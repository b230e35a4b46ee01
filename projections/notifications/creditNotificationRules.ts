import { idOf, usdText, type NotificationRuleSet } from './ruleTypes.js';

/** Promotional credit (domain/credit/events.ts) → the client's inbox. */
export const creditNotificationRules: NotificationRuleSet = {
  types: ['credit_granted', 'credit_adjusted'],
  rules: {
    CreditGranted: (e) => {
      const userId = idOf(e.data?.clientId);
      const amount = usdText(e.data?.amountCents);
      if (userId === null) return [];
      return [
        {
          userId,
          type: 'credit_granted',
          title: 'You earned credit',
          body: amount ? `${amount} of credit was added to your account.` : 'Credit was added to your account.',
          data: {
            grant_id: idOf(e.data?.grantId),
            promotion_id: idOf(e.data?.promotionId),
            order_id: idOf(e.data?.orderId),
            amount_usd: typeof e.data?.amountCents === 'number' ? e.data.amountCents / 100 : null,
          },
        },
      ];
    },
    CreditAdjusted: (e) => {
      const userId = idOf(e.data?.clientId);
      if (userId === null) return [];
      const amount = usdText(e.data?.amountCents);
      const debit = e.data?.direction === 'DEBIT';
      return [
        {
          userId,
          type: 'credit_adjusted',
          title: 'Credit adjusted',
          body: amount
            ? `Support ${debit ? 'removed' : 'added'} ${amount} of credit ${debit ? 'from' : 'to'} your account.`
            : 'Support adjusted your credit.',
          data: {
            direction: e.data?.direction ?? null,
            amount_usd: typeof e.data?.amountCents === 'number' ? e.data.amountCents / 100 : null,
          },
        },
      ];
    },
  },
};
