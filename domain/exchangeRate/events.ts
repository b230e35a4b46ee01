/**
 * The official rate drives every bolivar amount customers pay, so each change is recorded in the log
 * with the admin who made it: `exchangerate-<currency>` holds one ExchangeRateSet per change.
 */
export const exchangeRateStream = (currency: string): string => `exchangerate-${currency}`;

export interface ExchangeRateSet {
  type: 'ExchangeRateSet';
  data: {
    currency: string;
    /** Bolivars per USD, exactly as the admin gave it. */
    rate: string;
    rateCents: number;
    effectiveAt: string;
    adminId: number;
  };
}
