import { describe, expect, it } from 'vitest';
import { hasDecimals, queryInteger } from './schemas.js';

/**
 * `multipleOf` is judged on a number's shortest decimal form (as JSON writes it), so the server counts decimals
 * the same way: scaling by 10^decimals refused valid rates from the hundreds up and took invalid ones.
 */
describe('hasDecimals counts the decimals a number is written with', () => {
  it('takes at most the given decimals at every magnitude', () => {
    for (const n of [0.01, 0.29, 12.5, 317.20886589, 60977778.91906527, 1e9, 1.5e-7, 1e21])
      expect(hasDecimals(n, 8), String(n)).toBe(true);
    for (const n of [0.29, 1.1, 1234567.89, 100]) expect(hasDecimals(n, 2), String(n)).toBe(true);
  });

  it('refuses one decimal more, however close to a multiple the double is', () => {
    for (const n of [60977778.919065274, 49551.726785089995, 123456.123456789, 1e-9, 1.5e-9])
      expect(hasDecimals(n, 8), String(n)).toBe(false);
    for (const n of [0.001, 1e-10, 0.299]) expect(hasDecimals(n, 2), String(n)).toBe(false);
  });

  it('refuses what is not a finite number', () => {
    for (const n of [NaN, Infinity]) expect(hasDecimals(n, 8)).toBe(false);
  });
});

/** An integer in a query string or a path is what the document's integer admits: plain digits, within bounds. */
describe('queryInteger reads plain digits only', () => {
  const limit = queryInteger(1, 100).default(25);
  it('takes digits within the bounds, and the default when absent', () => {
    expect(limit.parse('16')).toBe(16);
    expect(limit.parse('+7')).toBe(7);
    expect(limit.parse(undefined)).toBe(25);
  });

  it('refuses hex, spaces, exponents, decimals, blanks and what lies outside the bounds', () => {
    for (const text of ['0x10', ' 1', '1 ', '1e1', '1.0', '', '0', '101', '-3', 'Infinity'])
      expect(limit.safeParse(text).success, JSON.stringify(text)).toBe(false);
  });
});
