import type { PayoutAnswer, PayoutProvider, PayoutRequest } from './port.js';

/**
 * The payout simulator of docs/domain-rules.md, by the beneficiary's id number: ending in 9 rejected (AC04), in 8 never
 * answers, in 7 acknowledged only (the webhook confirms later), otherwise confirmed at once. Like a real
 * provider it answers a repeated internal id with its first answer and pays it once.
 */
export class SimulatedPayoutProvider implements PayoutProvider {
  readonly name = 'simulator';
  private readonly answers = new Map<string, PayoutAnswer>();
  /** How many distinct payouts went through (tests check nothing is paid twice). */
  paidCount = 0;

  async send(request: PayoutRequest): Promise<PayoutAnswer> {
    const known = this.answers.get(request.internalId);
    if (known) return known;
    const last = (request.beneficiary.idNumber ?? '').trim().slice(-1);
    const answer: PayoutAnswer =
      last === '9'
        ? { kind: 'rejected', providerCode: 'AC04', reason: 'AC04' }
        : last === '8'
          ? { kind: 'unknown', error: 'no_answer', detail: 'the provider did not answer' }
          : last === '7'
            ? { kind: 'acknowledged', providerCode: 'PEND', transactionId: `SIM-${request.internalId.slice(0, 8)}` }
            : {
                kind: 'confirmed',
                providerCode: 'ACCP',
                transactionId: `SIM-${request.internalId.slice(0, 8)}`,
                reference: `REF-${request.internalId.slice(0, 8)}`,
              };
    if (answer.kind === 'confirmed') this.paidCount++;
    this.answers.set(request.internalId, answer);
    return answer;
  }
}
