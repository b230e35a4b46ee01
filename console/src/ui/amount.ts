// With its extension: the service's tests import this file too (tests/console/amount.test.ts).
import { t } from '../i18n/index.js';

/** What an operator typed as an amount or a quantity: its value, or why it cannot be read. */
export type Reading = { ok: true; value: number } | { ok: false; message: string };

const m = t.amount;

/**
 * Reads an amount the way Venezuelans write it (`1.250,50`, `12,5`) and the plain way (`1250.50`),
 * whatever the browser's language (decision 0093). A dot or comma followed by exactly three digits
 * (`1.250`, `1,250`) is read one way by one form and another way by the other, so it is refused with a
 * message that says how to write either; so is any other grouping (`1,250.50`). The value is built from
 * the digits as written, so `12,50` is 12.5 exactly, never 1250.
 */
export const readAmount = (typed: string, decimals: number): Reading => {
  const s = typed.trim();
  if (s === '') return { ok: false, message: m.empty };
  if (/^[+-]/.test(s)) return { ok: false, message: m.signed };
  let whole: string;
  let fraction = '';
  let match: RegExpMatchArray | null;
  if (/^\d+$/.test(s)) whole = s;
  else if ((match = /^([1-9]\d{0,2})[.,](\d{3})$/.exec(s))) {
    const decimal = match[2].replace(/0+$/, '');
    return { ok: false, message: m.ambiguous(s, match[1] + match[2], decimal ? `${match[1]},${decimal}` : match[1]) };
  } else if ((match = /^(\d+)[.,](\d+)$/.exec(s))) [, whole, fraction] = match;
  else if ((match = /^(\d{1,3}(?:\.\d{3})+)(?:,(\d+))?$/.exec(s))) {
    whole = match[1].replaceAll('.', '');
    fraction = match[2] ?? '';
  } else return { ok: false, message: m.unreadable };
  if (fraction.length > decimals) return { ok: false, message: decimals === 0 ? m.whole : m.decimals(decimals) };
  return { ok: true, value: Number(fraction ? `${whole}.${fraction}` : whole) };
};

/**
 * The react-hook-form rule of an amount field: readable, then within `range` when given (its message
 * says so when not; without one the service judges the range). The form reads the value again with
 * amountOf when it sends it.
 */
export const amountRule =
  (decimals: number, range?: { min: number; max: number; message: string }) =>
  (typed: string): true | string => {
    const r = readAmount(typed, decimals);
    if (!r.ok) return r.message;
    return !range || (r.value >= range.min && r.value <= range.max) || range.message;
  };

/** The value of a field its rule has already accepted. */
export const amountOf = (typed: string, decimals: number): number => {
  const r = readAmount(typed, decimals);
  if (!r.ok) throw new Error(r.message);
  return r.value;
};
