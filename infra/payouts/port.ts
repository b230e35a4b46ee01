import type { Beneficiary } from '../../domain/settlement/events.js';

/** One payout order as the provider receives it; `internalId` is its idempotency key. */
export interface PayoutRequest {
  internalId: string;
  amountCents: number;
  amountBsCents: number;
  beneficiary: Beneficiary;
}

/**
 * What the provider's answer proves about the money:
 * - confirmed: it went (ACCP);
 * - acknowledged: accepted for processing, the final answer comes by webhook (PEND, PROC);
 * - rejected: the provider's explicit RJCT or CANC: it did not go, retry is safe;
 * - unknown: no usable answer (timeout, 5xx, an HTTP refusal without a payout status such as 408, 409
 *   or 429, malformed body, silence): it may or may not have gone, so the order stays open and is re-sent
 *   with the same internal id until the reconciliation deadline.
 */
export type PayoutAnswer =
  | { kind: 'confirmed'; providerCode: string; transactionId: string | null; reference: string | null }
  | { kind: 'acknowledged'; providerCode: string; transactionId: string | null }
  | { kind: 'rejected'; providerCode: string; reason: string }
  | {
      kind: 'unknown';
      error: 'timeout' | 'server_error' | 'refused' | 'malformed' | 'no_answer' | 'network';
      detail: string;
    };

export interface PayoutProvider {
  readonly name: string;
  send(request: PayoutRequest): Promise<PayoutAnswer>;
}

declare module '../providers.js' {
  interface Providers {
    payouts: PayoutProvider;
  }
}
