import { describe, expect, it } from 'vitest';
import { readAmount } from '../../console/src/ui/amount.js';
import { es } from '../../console/src/i18n/es.js';

/** The console's reading of a typed amount (decision 0093): the es-VE form and the plain form alike. */
describe('readAmount', () => {
  it.each([
    ['12,50', 12.5],
    ['12,5', 12.5],
    ['12.50', 12.5],
    ['7,5', 7.5],
    ['1.250,50', 1250.5],
    ['1.234.567,89', 1234567.89],
    ['1.234.567', 1234567],
    ['1250.50', 1250.5],
    ['1250,50', 1250.5],
    ['1250', 1250],
    ['0,01', 0.01],
    ['0.125', 0.125],
    ['1234.567', 1234.567],
    ['  5  ', 5],
  ])('reads %s as %d', (typed, value) => {
    expect(readAmount(typed, 3)).toEqual({ ok: true, value });
  });

  it('refuses a dot or comma before exactly three digits, saying both ways to write it', () => {
    expect(readAmount('1.250', 2)).toEqual({ ok: false, message: es.amount.ambiguous('1.250', '1250', '1,25') });
    expect(readAmount('1,250', 2)).toEqual({ ok: false, message: es.amount.ambiguous('1,250', '1250', '1,25') });
    expect(readAmount('5.000', 2)).toEqual({ ok: false, message: es.amount.ambiguous('5.000', '5000', '5') });
  });

  it.each(['1,250.50', '1.25.0', '12,50,1', 'abc', '12a', '1e3', ',5', '5,', '1 250', '0x10', '٣'])(
    'refuses %s as unreadable',
    (typed) => {
      expect(readAmount(typed, 2)).toEqual({ ok: false, message: es.amount.unreadable });
    },
  );

  it('refuses a sign, an empty field and more decimals than the field takes', () => {
    expect(readAmount('-5', 2)).toEqual({ ok: false, message: es.amount.signed });
    expect(readAmount(' ', 2)).toEqual({ ok: false, message: es.amount.empty });
    expect(readAmount('1,255', 2)).toEqual({ ok: false, message: es.amount.ambiguous('1,255', '1255', '1,255') });
    expect(readAmount('0,125', 2)).toEqual({ ok: false, message: es.amount.decimals(2) });
    expect(readAmount('12,5', 0)).toEqual({ ok: false, message: es.amount.whole });
  });
});
