/**
 * Money is integer cents everywhere inside the system; USD numbers exist only at the edges (request bodies,
 * `_usd` response fields). Every rounding is half away from zero.
 */

/**
 * Float results such as 1.005 * 100 = 100.49999999999999 are noise around an exact half; snapping to 15
 * significant digits (what a double can hold faithfully) first lets them round the way the decimal would.
 */
export const roundHalfAwayFromZero = (x: number): number => {
  const snapped = Number(x.toPrecision(15));
  return Math.sign(snapped) * Math.round(Math.abs(snapped)) || 0;
};

export const centsToUsd = (cents: number): number => cents / 100;

export const usdToCents = (usd: number): number => roundHalfAwayFromZero(usd * 100);

const assertCents = (cents: number): void => {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not an integer amount of cents: ${cents}`);
};

/** Percentages are settings with up to six decimals (12.5, 0.75); scaling them to integers keeps the maths exact. */
const PRC_SCALE = 1_000_000;
const HUNDRED_PRC = 100 * PRC_SCALE;

const scaledPrc = (prc: number): number => {
  if (!(prc >= 0 && prc <= 100)) throw new RangeError(`percentage out of range: ${prc}`);
  return Math.round(prc * PRC_SCALE);
};

/** n / d for integers, rounded half away from zero, in BigInt so no intermediate product loses precision. */
const divRound = (n: bigint, d: bigint): number => {
  const negative = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (2n * an + ad) / (2n * ad);
  return Number(negative ? -q : q);
};

/** round(cents × prc / 100). */
export const percentOf = (cents: number, prc: number): number => {
  assertCents(cents);
  return divRound(BigInt(cents) * BigInt(scaledPrc(prc)), BigInt(HUNDRED_PRC));
};

/** round(cents × (100 − prc) / 100): what remains after taking prc percent, rounded once (not cents − percentOf). */
export const remainderAfterPercent = (cents: number, prc: number): number => {
  assertCents(cents);
  return divRound(BigInt(cents) * BigInt(HUNDRED_PRC - scaledPrc(prc)), BigInt(HUNDRED_PRC));
};

/** round(cents / (1 − prc / 100)): the inverse of remainderAfterPercent before rounding. */
export const grossUpByPercent = (cents: number, prc: number): number => {
  assertCents(cents);
  const keep = HUNDRED_PRC - scaledPrc(prc);
  if (keep === 0) throw new RangeError('cannot gross up by 100 percent');
  return divRound(BigInt(cents) * BigInt(HUNDRED_PRC), BigInt(keep));
};
