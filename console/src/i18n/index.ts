import { es, type Messages } from './es.js';

/** The console's strings. One language today; another is a module of type Messages picked here. */
export const t: Messages = es;

const locale = 'es-VE';
const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'medium' });
const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
// Money always shows two decimals and its thousands ('US$ 5,70', 'Bs. 5.109,60'); es-VE's own currency
// symbols ('USD', 'Bs.S') are not what operators read on their receipts.
const money = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: true });
const date = new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' });

export const fmt = {
  dateTime: (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : '—'),
  usd: (n: number | null | undefined) => (n === null || n === undefined ? '—' : `US$ ${money.format(n)}`),
  bs: (n: number | null | undefined) => (n === null || n === undefined ? '—' : `Bs. ${money.format(n)}`),
  /** A signed amount of a movement: '+US$ 44,55', '−US$ 12,50'. */
  signedUsd: (n: number, credit: boolean) => `${credit ? '+' : '−'}US$ ${money.format(n)}`,
  /** A calendar date (YYYY-MM-DD, or the date part of an instant stored at midnight UTC), never shifted by zone. */
  date: (iso: string | null | undefined) => (iso ? date.format(new Date(`${iso.slice(0, 10)}T00:00:00Z`)) : '—'),
  /** A stored number put back in a field, the way an operator types it: '7,5', '1250,25'. */
  typed: (n: number) => String(n).replace('.', ','),
  number: (n: number | null | undefined) => (n === null || n === undefined ? '—' : number.format(n)),
  bool: (b: boolean | null | undefined) => (b === null || b === undefined ? '—' : b ? t.common.yes : t.common.no),
  cell: (v: unknown): string => {
    if (v === null || v === undefined || v === '') return '—';
    if (typeof v === 'number') return number.format(v);
    if (typeof v === 'boolean') return v ? t.common.yes : t.common.no;
    if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v)) return dateTime.format(new Date(v));
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
  },
};

/** The Spanish label of an enum value; an unknown value (a newer API) shows as sent. */
export const label = (labels: Record<string, unknown>, value: string | null | undefined): string => {
  if (value === null || value === undefined || value === '') return '—';
  const l = labels[value];
  return typeof l === 'string' ? l : value;
};

/** A code wherever it shows: the enums' labels, then the other codes' table; unknown codes as sent. */
export const codeLabel = (code: string): string => {
  for (const labels of Object.values(t.enums)) if (code in labels) return labels[code];
  return t.codes[code] ?? code;
};
