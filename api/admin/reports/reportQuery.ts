import { fromZonedTime } from 'date-fns-tz';
import { z } from 'zod';
import { validationError } from '../../../domain/errors.js';
import { dateOrderRule, rule as crossFieldRule, rules, type CrossFieldRules } from '../../crossFieldRules.js';
import { isoDate, queryInteger } from '../../schemas.js';

/** Query pieces every report shares, and the date window they resolve to. */

const DAY_MS = 86_400_000;

export const boolParam = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
export { cityIdParam, idParam } from '../../schemas.js';
/** Optional: each report knows its default order (desc, or its own when no sort key is given). */
export const direction = z.enum(['asc', 'desc']).optional();
export { page } from '../../orders/schemas.js';
export const limitParam = (max: number, def: number) => queryInteger(1, max).default(def);

/** The `sort` parameter: one of the report's keys, or absent for the report's default order. */
export const sortParam = <K extends string>(keys: readonly [K, ...K[]]) => z.enum(keys).optional();

export const addDays = (day: string, n: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

export const addMonths = (day: string, n: number): string => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + n);
  return d.toISOString().slice(0, 10);
};

export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

/** A span of calendar days in the report time zone, both ends inclusive, and the instants that bound it. */
export interface DateWindow {
  from: string;
  to: string;
  /** First instant of `from` in the time zone. */
  startAt: Date;
  /** First instant of the day after `to` (exclusive bound). */
  endAt: Date;
}

export const windowOf = (from: string, to: string, tz: string): DateWindow => ({
  from,
  to,
  startAt: fromZonedTime(`${from}T00:00:00`, tz),
  endAt: fromZonedTime(`${addDays(to, 1)}T00:00:00`, tz),
});

export interface RangeRule {
  /** Longest span in days, both ends counted (30; performance 366). */
  maxDays: number;
  /** date_from when only date_to is known. */
  defaultFrom: (to: string) => string;
  /** The same default in words, for the document. */
  defaultFromSays: string;
}

export const LAST_30_DAYS: RangeRule = {
  maxDays: 30,
  defaultFrom: (to) => addDays(to, -29),
  defaultFromSays: '29 days before date_to (30 days in all)',
};
export const LAST_3_MONTHS: RangeRule = {
  maxDays: 366,
  defaultFrom: (to) => addDays(addMonths(to, -3), 1),
  defaultFromSays: 'the day after the same day three months before date_to',
};

/** date_from and date_to of a report, each described with the range rule it follows. */
export const dateFiltersWithin = (range: RangeRule) => ({
  date_from: isoDate.optional().openapi({
    description: `First day, in the report time zone. When absent: ${range.defaultFromSays}.`,
  }),
  date_to: isoDate.optional().openapi({
    description:
      `Last day, in the report time zone; on or after date_from, at most ${range.maxDays} days after it ` +
      'counting both ends. When absent: today.',
  }),
});

const rangeMessage = (range: RangeRule) => `the range may span at most ${range.maxDays} days`;

/** What the document says of a report's window (api/crossFieldRules.ts). */
export const rangeRules = (range: RangeRule): CrossFieldRules =>
  rules(
    dateOrderRule('date_from', 'date_to', 'must be on or after date_from'),
    crossFieldRule(
      `The range spans at most ${range.maxDays} days, both ends counted; an open date_to is today, an open ` +
        `date_from ${range.defaultFromSays}.`,
      { date_from: [rangeMessage(range)], date_to: [rangeMessage(range)] },
    ),
  );

/** date_from / date_to with their defaults, or 422 naming the field at fault. */
export const resolveWindow = (
  q: { date_from?: string; date_to?: string },
  today: string,
  tz: string,
  rule: RangeRule,
): DateWindow => {
  const to = q.date_to ?? today;
  const from = q.date_from ?? rule.defaultFrom(to);
  if (from > to) throw validationError({ date_to: ['must be on or after date_from'] });
  if (daysBetween(from, to) + 1 > rule.maxDays) {
    const message = rangeMessage(rule);
    throw validationError({ date_from: [message], date_to: [message] });
  }
  return windowOf(from, to, tz);
};

/** ratingMin ≤ ratingMax style pairs: 422 on the upper bound when they cross. */
export const orderedPair = (q: Record<string, unknown>, low: string, high: string): void => {
  const a = q[low];
  const b = q[high];
  if (typeof a === 'number' && typeof b === 'number' && a > b)
    throw validationError({ [high]: [`must be greater than or equal to ${low}`] });
};
