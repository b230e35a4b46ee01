import { z } from 'zod';
import type { PayoutAnswer, PayoutProvider, PayoutRequest } from './port.js';

const Answer = z.object({
  status: z.enum(['ACCP', 'PEND', 'PROC', 'RJCT', 'CANC']),
  transaction_id: z.string().nullish(),
  ref_ibp: z.string().nullish(),
  rejected_code: z.string().nullish(),
});

/**
 * The payout provider over HTTP: POST {url}/payouts with the order, bearer key, bounded by a timeout.
 * Only the provider's own status in a readable answer says what became of the money, whatever the HTTP
 * code (a 409 "already processed" may carry the first answer's status). An HTTP code alone proves
 * nothing: a 408, a 409, a 429 or a 5xx may follow a payment the provider already made under this
 * internal id, so it is an unknown outcome, re-sent with the same id, never a rejection (a rejection
 * lets an admin retry under a new id, which would pay twice).
 */
export class HttpPayoutProvider implements PayoutProvider {
  readonly name = 'payprov';

  constructor(private readonly opts: { url: string; key?: string; timeoutMs: number }) {}

  async send(request: PayoutRequest): Promise<PayoutAnswer> {
    let res: Response;
    try {
      res = await fetch(`${this.opts.url.replace(/\/$/, '')}/payouts`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.opts.key ? { authorization: `Bearer ${this.opts.key}` } : {}),
        },
        body: JSON.stringify({
          internal_id: request.internalId,
          amount_cents: request.amountCents,
          amount_bs_cents: request.amountBsCents,
          method: request.beneficiary.method,
          beneficiary: {
            name: request.beneficiary.name,
            id_number: request.beneficiary.idNumber,
            bank_code: request.beneficiary.bankCode,
            account: request.beneficiary.account,
            account_type: request.beneficiary.accountType,
          },
        }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      const name = (err as Error).name;
      return name === 'TimeoutError' || name === 'AbortError'
        ? { kind: 'unknown', error: 'timeout', detail: `no answer within ${this.opts.timeoutMs} ms` }
        : { kind: 'unknown', error: 'network', detail: (err as Error).message };
    }
    const text = await res.text().catch(() => '');
    if (res.status >= 500) return { kind: 'unknown', error: 'server_error', detail: `HTTP ${res.status}` };
    let parsed: z.infer<typeof Answer>;
    try {
      parsed = Answer.parse(JSON.parse(text));
    } catch {
      return res.status >= 400
        ? { kind: 'unknown', error: 'refused', detail: `HTTP ${res.status} without a payout status` }
        : { kind: 'unknown', error: 'malformed', detail: `unreadable answer (HTTP ${res.status})` };
    }
    switch (parsed.status) {
      case 'ACCP':
        return {
          kind: 'confirmed',
          providerCode: 'ACCP',
          transactionId: parsed.transaction_id ?? null,
          reference: parsed.ref_ibp ?? null,
        };
      case 'PEND':
      case 'PROC':
        return { kind: 'acknowledged', providerCode: parsed.status, transactionId: parsed.transaction_id ?? null };
      case 'RJCT':
      case 'CANC':
        return {
          kind: 'rejected',
          providerCode: parsed.rejected_code ?? parsed.status,
          reason: parsed.rejected_code ?? parsed.status,
        };
    }
  }
}
