import { describe, expect, it } from 'vitest';
import type { FormField } from './paymentForms.js';
import { checkFormValues } from './paymentFormValues.js';

const field = (index: number, input_type: FormField['input_type'], required = true): FormField => ({
  index,
  label: `f${index}`,
  required,
  hint: null,
  input_type,
});

describe('checkFormValues', () => {
  const fields = [field(1, 'bank'), field(2, 'phone'), field(3, 'reference'), field(4, 'date', false)];

  it('accepts a complete report, normalised and in field order, ignoring unknown indexes', () => {
    const r = checkFormValues(fields, [
      { index: 3, value: ' 00123456 ' },
      { index: 9, value: 'ignored' },
      { index: 2, value: '0414-123.45 67' },
      { index: 1, value: '0105 - Mercantil' },
    ]);
    expect(r.fieldErrors).toEqual({});
    expect(r.accepted.map((a) => [a.index, a.value])).toEqual([
      [1, '0105 - Mercantil'],
      [2, '04141234567'],
      [3, '00123456'],
    ]);
  });

  it('keys errors by field index: missing required, blank, bad format, repeated', () => {
    const r = checkFormValues(fields, [
      { index: 2, value: '12' },
      { index: 3, value: '   ' },
      { index: 4, value: '2026-02-30' },
      { index: 4, value: '2026-02-01' },
    ]);
    expect(Object.keys(r.fieldErrors).sort()).toEqual(['1', '2', '3', '4']);
    expect(r.fieldErrors['1']).toEqual(['is required']);
    expect(r.fieldErrors['4']).toEqual(['is given more than once']);
  });

  it.each([
    ['email', 'a@b.co', true],
    ['email', 'not-an-email', false],
    ['amount', '12.50', true],
    ['amount', '0', false],
    ['amount', '1.234', false],
    ['date', '2024-02-29', true],
    ['date', '2023-02-29', false],
    ['reference', 'AB-12', true],
    ['reference', 'a b', false],
    ['phone', '+584141234567', true],
    ['text', 'x'.repeat(256), false],
  ] as const)('%s %j → valid %s', (type, value, ok) => {
    const r = checkFormValues([field(1, type)], [{ index: 1, value }]);
    expect(Object.keys(r.fieldErrors).length === 0).toBe(ok);
  });

  it('leaves an optional field out when it is not given', () => {
    expect(checkFormValues([field(1, 'text', false)], [])).toEqual({ fieldErrors: {}, accepted: [] });
  });
});
