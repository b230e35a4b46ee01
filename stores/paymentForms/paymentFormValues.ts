import type { FormField, InputType } from './paymentForms.js';

/** One entry of a customer's report: a field index of the form and what they typed. */
export interface ReportedValue {
  index: number;
  value: string;
}

export interface AcceptedValue {
  index: number;
  label: string;
  input_type: InputType;
  value: string;
}

const MAX_VALUE_LENGTH = 255;

const isCalendarDate = (s: string): boolean => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
};

/** Normalises a value of this input type, or says what is wrong with it. */
const checks: Record<InputType, (v: string) => { value: string } | { error: string }> = {
  text: (v) => ({ value: v }),
  bank: (v) =>
    v.length >= 2 && v.length <= 100 ? { value: v } : { error: 'must be a bank name or code of 2 to 100 characters' },
  phone: (v) => {
    const digits = v.replace(/[\s().-]/g, '');
    return /^\+?\d{10,15}$/.test(digits) ? { value: digits } : { error: 'must be a phone number of 10 to 15 digits' };
  },
  reference: (v) =>
    /^[A-Za-z0-9-]{4,40}$/.test(v) ? { value: v } : { error: 'must be 4 to 40 letters, digits or dashes' },
  date: (v) => (isCalendarDate(v) ? { value: v } : { error: 'must be a date as YYYY-MM-DD' }),
  email: (v) =>
    /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) ? { value: v.toLowerCase() } : { error: 'must be an email address' },
  amount: (v) =>
    /^\d{1,9}(\.\d{1,2})?$/.test(v) && Number(v) > 0
      ? { value: v }
      : { error: 'must be a positive amount with at most 2 decimals' },
};

/**
 * Checks a report against the form's fields. Errors are keyed by field index (the spec's shape for
 * payment-form values); values for indexes the form does not have are ignored, as the spec says.
 * `accepted` holds the normalised values of the form's fields, in field order, ready to snapshot.
 */
export const checkFormValues = (
  fields: FormField[],
  values: ReportedValue[],
): { fieldErrors: Record<string, string[]>; accepted: AcceptedValue[] } => {
  const fieldErrors: Record<string, string[]> = {};
  const given = new Map<number, string>();
  for (const { index, value } of values) {
    if (!fields.some((f) => f.index === index)) continue;
    if (given.has(index)) fieldErrors[index] = ['is given more than once'];
    given.set(index, value.trim());
  }
  const accepted: AcceptedValue[] = [];
  for (const field of fields) {
    const raw = given.get(field.index) ?? '';
    if (fieldErrors[field.index]) continue;
    if (raw === '') {
      if (field.required) fieldErrors[field.index] = ['is required'];
      continue;
    }
    if (raw.length > MAX_VALUE_LENGTH) {
      fieldErrors[field.index] = [`must be at most ${MAX_VALUE_LENGTH} characters`];
      continue;
    }
    const checked = checks[field.input_type](raw);
    if ('error' in checked) fieldErrors[field.index] = [checked.error];
    else accepted.push({ index: field.index, label: field.label, input_type: field.input_type, value: checked.value });
  }
  return { fieldErrors, accepted };
};
