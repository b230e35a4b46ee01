import { describe, expect, it } from 'vitest';
import type { ReferenceData } from '../referenceData.js';
import type { PaymentForm } from '../../stores/paymentForms/paymentForms.js';
import type { PaymentMethod } from '../../stores/paymentMethods/paymentMethods.js';
import { assertSelectableMethod } from './create.js';

/**
 * The method check an order's creation and a method change share, on reference data handed in as
 * functions (no database): the first 422 names the field the client must fix.
 */
const methods: PaymentMethod[] = [
  { code: 'CASH_USD', name: 'Efectivo', kind: 'cash', active: true },
  { code: 'PAYMENT_FORM', name: 'Formulario', kind: 'form', active: true },
  { code: 'PAGO_MOVIL', name: 'Pago móvil', kind: 'online', active: false },
];
const form = (id: number, active: boolean) => ({ id, active }) as PaymentForm;
const forms = [form(1, true), form(2, false)];

const reference = {
  paymentMethod: async (code: string) => methods.find((m) => m.code === code) ?? null,
  activePaymentForm: async (id: number) => forms.find((f) => f.id === id && f.active) ?? null,
} as ReferenceData;

const check = (method: string, formId?: number | null) => assertSelectableMethod({ reference }, method, formId);

const refusal = async (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: { code: string; details?: unknown }) => ({ code: err.code, details: err.details }),
  );

describe('a selectable payment method', () => {
  it('an active method other than a form needs no form id, and a given one is ignored', async () => {
    expect(await check('CASH_USD')).toBeNull();
    expect(await check('CASH_USD', 2)).toBeNull();
  });

  it('a form payment names its active form', async () => {
    expect(await check('PAYMENT_FORM', 1)).toBe(1);
  });

  it('an unknown or switched-off method is a 422 on paymentMethod', async () => {
    for (const method of ['BITCOIN', 'PAGO_MOVIL'])
      expect(await refusal(check(method))).toEqual({
        code: 'ValidationError',
        details: { fieldErrors: { paymentMethod: ['is not an available payment method'] } },
      });
  });

  it('a form payment without a form, or with an inactive or unknown one, is a 422 on paymentFormId', async () => {
    for (const formId of [undefined, null])
      expect(await refusal(check('PAYMENT_FORM', formId))).toEqual({
        code: 'ValidationError',
        details: { fieldErrors: { paymentFormId: ['is required for PAYMENT_FORM'] } },
      });
    for (const formId of [2, 99])
      expect(await refusal(check('PAYMENT_FORM', formId))).toEqual({
        code: 'ValidationError',
        details: { fieldErrors: { paymentFormId: ['is not an active payment form'] } },
      });
  });
});
