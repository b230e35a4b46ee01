import { randomBytes } from 'node:crypto';

/**
 * The payment providers behind the online methods (docs/architecture.md, outside providers): an immediate
 * bank debit (PAYPROV_DI: the payer's bank sends an OTP, the payer submits it) and an exchange wallet
 * with a hosted checkout (EXCHANGE_PAY: the payer is redirected, the provider confirms by webhook).
 * A simulator by default; JSON-over-HTTP adapters when PAYMENT_PROVIDER_URL is set.
 */

/** declined: the provider said no (wrong OTP, no funds); unavailable: no answer, the outcome is unknown. */
export class PaymentProviderError extends Error {
  constructor(
    readonly kind: 'declined' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'PaymentProviderError';
  }
}

export interface DebitPayer {
  bankCode: string;
  idNumber: string;
  phone: string;
  name: string | null;
}

export interface ImmediateDebitProvider {
  /** Step 1: asks the payer's bank to send an OTP for this debit; returns the provider's reference. */
  requestOtp(input: { paymentId: number; amountCents: number; payer: DebitPayer }): Promise<{ providerRef: string }>;
  /** Step 2: debits with the OTP. CONFIRMED: the money moved; PENDING: the provider confirms later by webhook. */
  debit(input: {
    providerRef: string;
    otp: string;
    amountCents: number;
    payer: DebitPayer;
  }): Promise<{ status: 'CONFIRMED' | 'PENDING'; reference: string }>;
}

export interface CheckoutProvider {
  createIntent(input: {
    paymentId: number;
    orderId: number;
    amountCents: number;
    currency: string;
  }): Promise<{ providerRef: string; checkoutUrl: string }>;
}

export interface PaymentProviders {
  immediateDebit: ImmediateDebitProvider;
  checkout: CheckoutProvider;
}

declare module '../providers.js' {
  interface Providers {
    payments: PaymentProviders;
  }
}

/** The provider name each method's payments carry (and the webhook path segment that confirms them). */
export const PROVIDER_OF_METHOD: Record<string, string> = {
  CASH_USD: 'cash',
  EXCHANGE_PAY: 'exchangepay',
  PAYPROV_DI: 'payprov',
  PAYMENT_FORM: 'manual',
  PAGO_MOVIL: 'pagomovil',
};

/** Providers that confirm payments by webhook. */
export const WEBHOOK_PROVIDERS: readonly string[] = ['exchangepay', 'payprov'];

const token = (bytes = 8) => randomBytes(bytes).toString('hex');

/** The simulator accepts any 6-digit OTP except 000000 (docs/domain-rules.md, payments). */
export const simulatedImmediateDebit: ImmediateDebitProvider = {
  async requestOtp({ paymentId }) {
    return { providerRef: `di_${paymentId}_${token()}` };
  },
  async debit({ otp }) {
    if (!/^\d{6}$/.test(otp) || otp === '000000')
      throw new PaymentProviderError('declined', 'The bank rejected the OTP.');
    return { status: 'CONFIRMED', reference: `DI${token(5).toUpperCase()}` };
  },
};

export const simulatedCheckout: CheckoutProvider = {
  async createIntent({ paymentId }) {
    const providerRef = `xp_${paymentId}_${token()}`;
    return { providerRef, checkoutUrl: `https://checkout.exchangepay.test/pay/${providerRef}` };
  },
};

export const simulatedPaymentProviders: PaymentProviders = {
  immediateDebit: simulatedImmediateDebit,
  checkout: simulatedCheckout,
};

type Json = Record<string, unknown>;

/**
 * POST a JSON body with the bearer key. 2xx: the JSON answer. 4xx: the provider declined (its message).
 * Anything else (5xx, network error, timeout, a body that is not JSON): unavailable.
 */
const postJson = async (url: string, key: string | undefined, body: Json, timeoutMs: number): Promise<Json> => {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new PaymentProviderError('unavailable', `Payment provider unreachable: ${(err as Error).message}`);
  }
  let answer: Json | null = null;
  try {
    const parsed: unknown = await res.json();
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) answer = parsed as Json;
  } catch {
    answer = null;
  }
  if (res.status >= 400 && res.status < 500) {
    const message = typeof answer?.message === 'string' ? answer.message : `Payment provider declined (${res.status}).`;
    throw new PaymentProviderError('declined', message);
  }
  if (!res.ok || answer === null)
    throw new PaymentProviderError('unavailable', `Payment provider answered ${res.status}.`);
  return answer;
};

const stringField = (answer: Json, field: string): string => {
  const v = answer[field];
  if (typeof v !== 'string' || v.length === 0 || v.length > 200)
    throw new PaymentProviderError('unavailable', `Payment provider answer lacks ${field}.`);
  return v;
};

/**
 * The provider's HTTP API (one base URL for both products):
 *   POST {base}/payprov/otp    {reference, amount_cents, bank_code, id_number, phone, name} → {provider_ref}
 *   POST {base}/payprov/debit  {provider_ref, otp, amount_cents, bank_code, id_number, phone} → {status, reference}
 *   POST {base}/exchangepay/intents {reference, order_reference, amount_cents, currency} → {provider_ref, checkout_url}
 */
export const createHttpPaymentProviders = (
  baseUrl: string,
  key: string | undefined,
  timeoutMs = 10_000,
): PaymentProviders => {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    immediateDebit: {
      async requestOtp({ paymentId, amountCents, payer }) {
        const answer = await postJson(
          `${base}/payprov/otp`,
          key,
          {
            reference: String(paymentId),
            amount_cents: amountCents,
            bank_code: payer.bankCode,
            id_number: payer.idNumber,
            phone: payer.phone,
            name: payer.name,
          },
          timeoutMs,
        );
        return { providerRef: stringField(answer, 'provider_ref') };
      },
      async debit({ providerRef, otp, amountCents, payer }) {
        const answer = await postJson(
          `${base}/payprov/debit`,
          key,
          {
            provider_ref: providerRef,
            otp,
            amount_cents: amountCents,
            bank_code: payer.bankCode,
            id_number: payer.idNumber,
            phone: payer.phone,
          },
          timeoutMs,
        );
        const status = answer.status;
        if (status === 'REJECTED')
          throw new PaymentProviderError(
            'declined',
            typeof answer.message === 'string' ? answer.message : 'The bank rejected the debit.',
          );
        if (status !== 'CONFIRMED' && status !== 'PENDING')
          throw new PaymentProviderError('unavailable', 'Payment provider answered an unknown status.');
        return { status, reference: stringField(answer, 'reference') };
      },
    },
    checkout: {
      async createIntent({ paymentId, orderId, amountCents, currency }) {
        const answer = await postJson(
          `${base}/exchangepay/intents`,
          key,
          { reference: String(paymentId), order_reference: String(orderId), amount_cents: amountCents, currency },
          timeoutMs,
        );
        const checkoutUrl = stringField(answer, 'checkout_url');
        if (!/^https?:\/\//.test(checkoutUrl))
          throw new PaymentProviderError('unavailable', 'Payment provider answered a bad checkout_url.');
        return { providerRef: stringField(answer, 'provider_ref'), checkoutUrl };
      },
    },
  };
};
