import { describe, expect, it } from 'vitest';
import {
  centsToUsd,
  grossUpByPercent,
  percentOf,
  remainderAfterPercent,
  roundHalfAwayFromZero,
  usdToCents,
} from './money.js';

describe('roundHalfAwayFromZero', () => {
  it.each([
    [0.5, 1],
    [1.5, 2],
    [2.5, 3],
    [-0.5, -1],
    [-2.5, -3],
    [2.4999, 2],
    [-2.4999, -2],
    [0, 0],
    [-0.2, 0],
  ])('%d → %d', (x, expected) => {
    expect(roundHalfAwayFromZero(x)).toBe(expected);
  });

  it('treats float noise around a half as the half', () => {
    expect(roundHalfAwayFromZero(1.005 * 100)).toBe(101);
    expect(roundHalfAwayFromZero(-1.005 * 100)).toBe(-101);
  });

  it('never returns negative zero', () => {
    expect(Object.is(roundHalfAwayFromZero(-0.1), 0)).toBe(true);
  });
});

describe('usdToCents and centsToUsd', () => {
  it.each([
    [0.1 + 0.2, 30],
    [1.005, 101],
    [19.99, 1999],
    [0.07, 7],
    [100000, 10_000_000],
    [1.1 * 3, 330],
  ])('%d USD → %d cents', (usd, cents) => {
    expect(usdToCents(usd)).toBe(cents);
  });

  it('round-trips every cent amount', () => {
    const misses: number[] = [];
    for (let cents = -100_000; cents <= 10_000_000; cents += 61)
      if (usdToCents(centsToUsd(cents)) !== cents) misses.push(cents);
    expect(misses).toEqual([]);
  });

  it('renders cents as the decimal USD number', () => {
    expect(centsToUsd(30)).toBe(0.3);
    expect(centsToUsd(12345)).toBe(123.45);
  });
});

describe('percent arithmetic on cents', () => {
  it('rounds the percentage half away from zero', () => {
    expect(percentOf(150, 1)).toBe(2);
    expect(percentOf(149, 1)).toBe(1);
    expect(percentOf(-150, 1)).toBe(-2);
    expect(percentOf(12345, 0.5)).toBe(62);
    expect(percentOf(1000, 12.5)).toBe(125);
  });

  it('rounds the remainder once, not as cents minus the rounded percentage', () => {
    // 15 × 0.9 = 13.5 → 14, whereas 15 − round(1.5) would give 13.
    expect(remainderAfterPercent(15, 10)).toBe(14);
  });

  it('grosses up exactly', () => {
    expect(grossUpByPercent(90, 10)).toBe(100);
    expect(grossUpByPercent(1, 10)).toBe(1);
  });

  it('refuses what is not money or not a percentage', () => {
    expect(() => percentOf(1.5, 1)).toThrow(RangeError);
    expect(() => percentOf(100, 101)).toThrow(RangeError);
    expect(() => grossUpByPercent(100, 100)).toThrow(RangeError);
  });
});
