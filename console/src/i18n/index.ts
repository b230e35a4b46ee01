import { es, type Messages } from './es';

/** The console's strings. One language today; another is a module of type Messages picked here. */
export const t: Messages = es;

const locale = 'es-VE';
const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'medium' });
const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });

export const fmt = {
  dateTime: (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : '—'),
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
