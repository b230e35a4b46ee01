import { afterEach, describe, expect, it } from 'vitest';
import { HttpPayoutProvider } from './httpPayoutProvider.js';
import { startFakePayoutProvider, type FakeAnswer } from './fakePayoutServer.js';

const request = {
  internalId: 'key-1',
  amountCents: 1000,
  amountBsCents: 36500,
  beneficiary: {
    name: 'Ana',
    method: 'PAGO_MOVIL' as const,
    idNumber: 'V1',
    bankCode: '0102',
    account: '0414',
    accountType: null,
  },
};

describe('HTTP payout provider against a local fake provider', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(() => close?.());

  const answering = async (a: FakeAnswer) => {
    const fake = await startFakePayoutProvider(() => a);
    close = fake.close;
    return { fake, provider: new HttpPayoutProvider({ url: fake.url, key: 'secret', timeoutMs: 200 }) };
  };

  it('maps provider statuses to what they prove about the money', async () => {
    const cases: [FakeAnswer, unknown][] = [
      [
        { status: 200, body: { status: 'ACCP', transaction_id: 'T1', ref_ibp: 'R1' } },
        { kind: 'confirmed', providerCode: 'ACCP', transactionId: 'T1', reference: 'R1' },
      ],
      [
        { status: 200, body: { status: 'PEND', transaction_id: 'T1' } },
        { kind: 'acknowledged', providerCode: 'PEND', transactionId: 'T1' },
      ],
      [
        { status: 202, body: { status: 'PROC' } },
        { kind: 'acknowledged', providerCode: 'PROC', transactionId: null },
      ],
      [
        { status: 200, body: { status: 'RJCT', rejected_code: 'AC04' } },
        { kind: 'rejected', providerCode: 'AC04', reason: 'AC04' },
      ],
      [
        { status: 200, body: { status: 'CANC' } },
        { kind: 'rejected', providerCode: 'CANC', reason: 'CANC' },
      ],
      // The provider's status decides whatever the HTTP code: an explicit RJCT on a 422, the first answer on a 409.
      [
        { status: 422, body: { status: 'RJCT', rejected_code: 'AC01' } },
        { kind: 'rejected', providerCode: 'AC01', reason: 'AC01' },
      ],
      [
        { status: 409, body: { status: 'ACCP', transaction_id: 'T0', ref_ibp: 'R0' } },
        { kind: 'confirmed', providerCode: 'ACCP', transactionId: 'T0', reference: 'R0' },
      ],
    ];
    for (const [a, expected] of cases) {
      const { provider, fake } = await answering(a);
      expect(await provider.send(request)).toEqual(expected);
      expect(fake.calls).toEqual([{ internal_id: 'key-1', authorization: 'Bearer secret' }]);
      await fake.close();
      close = undefined;
    }
  });

  it('a timeout, a 5xx or a malformed answer is an unknown outcome, never a rejection', async () => {
    for (const [a, error] of [
      ['hang', 'timeout'],
      [{ status: 503, body: {} }, 'server_error'],
      ['garbage', 'malformed'],
      [{ status: 200, body: { status: 'DONE' } }, 'malformed'],
    ] as const) {
      const { provider, fake } = await answering(a);
      expect(await provider.send(request)).toMatchObject({ kind: 'unknown', error });
      await fake.close();
      close = undefined;
    }
  });

  it(
    'an HTTP refusal without a payout status (408, 409 already processed, ' +
      '429, 400) is an unknown outcome: the money may have gone',
    async () => {
      for (const status of [408, 409, 429, 400, 401]) {
        const { provider, fake } = await answering({
          status,
          body: { error: status === 409 ? 'already processed' : 'no' },
        });
        expect(await provider.send(request), `HTTP ${status}`).toMatchObject({
          kind: 'unknown',
          error: 'refused',
          detail: `HTTP ${status} without a payout status`,
        });
        await fake.close();
        close = undefined;
      }
    },
  );

  it('an unreachable provider is an unknown outcome', async () => {
    const provider = new HttpPayoutProvider({ url: 'http://127.0.0.1:9', timeoutMs: 200 });
    expect(await provider.send(request)).toMatchObject({ kind: 'unknown', error: 'network' });
  });
});
