import type { FakeAnswer } from '../../infra/payouts/fakePayoutServer.js';

type Status = 'paid' | 'rejected' | 'pending';

/**
 * A payout provider as the conservation property meets it over HTTP: it pays an internal id at most once
 * and its explicit answers are true (a rejected id is never paid), but many answers say nothing usable.
 * A payment's answer may be lost (a timeout, a 408, a 409 "already processed" or a 503 after paying), a
 * request may be turned away unprocessed (429, 503, garbage), an id may be acknowledged and decided later.
 * `payments` is its own book: what the property checks "no receipt paid twice" against.
 */
export const fakeProvider = () => {
  const ids = new Map<string, Status>();
  const payments: { internalId: string; amountBsCents: number }[] = [];
  const amounts = new Map<string, number>();
  let random: () => number = Math.random;
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
  const accp = (id: string): FakeAnswer => ({
    status: 200,
    body: { status: 'ACCP', transaction_id: `T-${id.slice(0, 8)}`, ref_ibp: `IBP-${id.slice(0, 8)}` },
  });
  const rjct: FakeAnswer = { status: 200, body: { status: 'RJCT', rejected_code: 'AC01' } };
  const pay = (id: string) => {
    ids.set(id, 'paid');
    payments.push({ internalId: id, amountBsCents: amounts.get(id)! });
  };

  const answer = (request: { internal_id: string }): FakeAnswer => {
    const id = request.internal_id;
    amounts.set(id, (request as { amount_bs_cents?: number }).amount_bs_cents ?? 0);
    const r = random();
    switch (ids.get(id)) {
      case 'paid':
        // Never paid again; said so plainly, or not at all.
        return r < 0.5
          ? accp(id)
          : pick<FakeAnswer>([
              { status: 409, body: { error: 'already processed' } },
              'hang',
              { status: 503, body: {} },
            ]);
      case 'rejected':
        return rjct;
      case 'pending':
        return r < 0.5 ? { status: 200, body: { status: 'PROC' } } : { status: 429, body: { error: 'slow down' } };
      default:
        if (r < 0.25) {
          pay(id);
          return accp(id);
        }
        if (r < 0.5) {
          pay(id);
          return pick<FakeAnswer>([
            'hang',
            { status: 408, body: {} },
            { status: 409, body: { error: 'already processed' } },
            { status: 503, body: {} },
          ]);
        }
        if (r < 0.62) {
          ids.set(id, 'rejected');
          return rjct;
        }
        if (r < 0.75) {
          ids.set(id, 'pending');
          return { status: 200, body: { status: 'PEND' } };
        }
        return pick<FakeAnswer>([{ status: 429, body: {} }, { status: 503, body: {} }, 'garbage']);
    }
  };

  /** The provider's final status of an id for a webhook (deciding an acknowledged one now); null if it never saw it. */
  const settle = (id: string): 'ACCP' | 'RJCT' | null => {
    if (ids.get(id) === 'pending') {
      if (random() < 0.6) pay(id);
      else ids.set(id, 'rejected');
    }
    const s = ids.get(id);
    return s === 'paid' ? 'ACCP' : s === 'rejected' ? 'RJCT' : null;
  };

  return {
    answer,
    settle,
    payments,
    paid: (id: string) => ids.get(id) === 'paid',
    /** The dice of one sequence, so a seed replays the same answers. */
    roll: (r: () => number) => {
      random = r;
    },
  };
};
