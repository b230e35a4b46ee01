import { z } from 'zod';
// Extends zod with `.openapi()` before the schemas below use it, whichever module is imported first.
import './openapi.js';
import { usdToCents } from '../domain/money.js';
import { MAX_CITY_ID } from '../stores/identity/identityTables.js';

/**
 * Request pieces every area shares, written so that the OpenAPI document says exactly what the service
 * accepts: a generated client (or Schemathesis) that follows the document is never refused, and what the
 * document refuses is refused here too.
 */

/** The largest id a client can send: 2^53 − 1, the largest integer a JSON number carries exactly. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** Plain digits, with a sign at most: no hex, no exponent, no spaces, no blank (which Number reads as 0). */
const INTEGER = /^[+-]?\d+$/;

/**
 * An integer in a query string or a path, between min and max: documented as an integer with its bounds,
 * parsed from plain digits only (`0x10`, ` 1` or `1e1` are refused, as the document's integer refuses them).
 */
export const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(INTEGER, 'Must be an integer.')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .openapi({ type: 'integer', minimum: min, maximum: max, pattern: undefined } as never);

/** An id in a query string. */
export const idParam = queryInteger(1, MAX_ID);

/** A city's id in a body: no larger than its column holds (an unknown one is the route's own refusal). */
export const cityId = z.number().int().positive().max(MAX_CITY_ID);

/** A city's id in a query string. */
export const cityIdParam = queryInteger(1, MAX_CITY_ID);

/** A calendar day (YYYY-MM-DD, format: date): 2026-02-30 is refused, as the document's format says. */
export const isoDate = z.iso.date('must be a calendar date (YYYY-MM-DD)');

/** An optional window of calendar days, both ends included; its rule between fields is `inDateOrder`. */
export const dateWindow = {
  date_from: isoDate.optional(),
  date_to: isoDate.optional().openapi({ description: 'On or after date_from.' }),
};

/** `.refine(...inDateOrder)` on a query with `dateWindow`: 422 on date_to when it is before date_from. */
export const inDateOrder: [
  (q: { date_from?: string; date_to?: string }) => boolean,
  { path: string[]; message: string },
] = [
  (q) => !q.date_from || !q.date_to || q.date_to >= q.date_from,
  { path: ['date_to'], message: 'must not be before date_from' },
];

/** An instant with its offset (ISO 8601, format: date-time), e.g. 2026-11-23T14:05:00-04:00. */
export const isoDateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with offset' });

/**
 * One label of a domain name as `format: email` takes it: 1 to 63 letters, digits or hyphens, neither first
 * nor last a hyphen, and no `--` in third and fourth place (that marks an internationalized label).
 */
const DOMAIN_LABEL =
  '[A-Za-z0-9](?:[A-Za-z0-9-]{0,2}[A-Za-z0-9]|[A-Za-z0-9-](?:[A-Za-z0-9][A-Za-z0-9-]|-[A-Za-z0-9])[A-Za-z0-9-]{0,58}[A-Za-z0-9])?';

/**
 * The server's address rule: dot-separated words of letters, digits, `_'+-` before the @ (zod's rule), then
 * domain labels and a top-level domain of letters, as `format: email` has them.
 */
const EMAIL = new RegExp(
  `^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:${DOMAIN_LABEL}\\.)+[A-Za-z]{2,63}$`,
);

/** What comes before the @ is at most 64 characters (RFC 5321), which `format: email` says and a pattern cannot. */
const LOCAL_PART_MAX = 64;

/**
 * An email address as the server takes it: the rule above, documented as its `pattern` beside `format:
 * email`, so that an address is accepted exactly when it matches both (the format alone admits addresses
 * such as `0@com` that the pattern refuses; the pattern alone, a part before the @ longer than the format's).
 */
export const emailAddress = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .regex(EMAIL, 'Must be an email address.')
    .refine((e) => e.indexOf('@') <= LOCAL_PART_MAX, `At most ${LOCAL_PART_MAX} characters before the @.`)
    .openapi({ format: 'email', pattern: EMAIL.source });

/** A day (YYYY-MM-DD, read as midnight UTC where an instant is meant) or an instant with its offset. */
export const dayOrInstant = z.union([isoDate, isoDateTime]);

/**
 * Whether n has at most `decimals` decimals as JSON writes it: its shortest decimal form (1.5e-7 has 8), which
 * is how `multipleOf` is judged. Scaling by 10^decimals instead cannot tell at large magnitudes, where a double
 * is spaced closer than 10^−decimals apart but the product is not (60977778.919065271 passed for 8).
 */
export const hasDecimals = (n: number, decimals: number) => {
  const [digits, exponent = '0'] = String(Math.abs(n)).split('e');
  const written = digits.split('.')[1]?.length ?? 0;
  return Number.isFinite(n) && written - Number(exponent) <= decimals;
};

/**
 * A USD amount: a JSON number of at least one cent, at most `max`, with at most two decimals; inside it is
 * cents. (Above 0 alone let 1e-10 through, whose two decimals round to 0 cents.)
 */
export const usdAmount = (max: number) =>
  z
    .number()
    .min(0.01, `must be at least 0.01`)
    .max(max, `must be at most ${max}`)
    .refine((n) => hasDecimals(n, 2), 'at most 2 decimals')
    .openapi({ multipleOf: 0.01 })
    .transform(usdToCents);

export const latitude = z.number().min(-90).max(90);
export const longitude = z.number().min(-180).max(180);

/** Decimal notation, with an exponent if need be: no hex, Infinity, or the empty string (which Number reads as 0). */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A number in a query string, between min and max: documented as a number with its bounds (a query
 * string carries no null, so none is documented), parsed from plain decimal notation only.
 */
export const queryNumber = (min: number, max: number, { exclusiveMin = false } = {}) =>
  z
    .string()
    .trim()
    .regex(DECIMAL, 'Must be a decimal number.')
    .transform(Number)
    .pipe(exclusiveMin ? z.number().gt(min).max(max) : z.number().min(min).max(max))
    .openapi({
      type: 'number',
      ...(exclusiveMin ? { exclusiveMinimum: min } : { minimum: min }),
      maximum: max,
      pattern: undefined,
    } as never);

/**
 * A list's optional filter in a query string: one of `values`, or one of them in the other case (`activa` for
 * ACTIVA, as the station filters take them), read as the listed one. The document lists both spellings; a blank
 * value is refused like any other the enum does not list.
 */
export const queryFilter = <T extends string>(values: readonly [T, ...T[]]) => {
  const otherCase = values.map((v) => (v === v.toUpperCase() ? v.toLowerCase() : v.toUpperCase()));
  return z
    .enum([...new Set([...values, ...otherCase])] as [string, ...string[]])
    .transform((v) => values.find((listed) => listed.toLowerCase() === v.toLowerCase())!)
    .optional();
};

/** A query parameter left blank (`?radiusKm=`) is the parameter left out. */
export const blankIsAbsent = (v: unknown) => (v === '' ? undefined : v);

/** Fields that come together or not at all (documented as dependentRequired); refused on the last field. */
export const requiredTogether = <T extends z.ZodObject>(schema: T, fields: string[], message: string) =>
  schema
    .refine((b: Record<string, unknown>) => new Set(fields.map((f) => b[f] === undefined)).size === 1, {
      path: [fields[fields.length - 1]],
      message,
    })
    .openapi({ dependentRequired: Object.fromEntries(fields.map((f) => [f, fields.filter((g) => g !== f)])) } as never);

/** A latitude and a longitude in a query string. */
export const queryLatitude = queryNumber(-90, 90);
export const queryLongitude = queryNumber(-180, 180);
