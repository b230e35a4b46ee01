/** The payment methods an admin reviews (the API's queue and reviewed list filter by them). */
export const REVIEW_METHODS = ['CASH_USD', 'EXCHANGE_PAY', 'PAYPROV_DI', 'PAYMENT_FORM'] as const;
export type ReviewMethod = (typeof REVIEW_METHODS)[number];
