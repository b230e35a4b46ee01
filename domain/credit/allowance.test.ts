import { describe, expect, it } from 'vitest';
import { allowanceDecider, type AllowanceCommand } from './allowance.js';
import { spec } from '../../tests/support/deciderSpec.js';

const draw = (adjustmentId: string, amountCents: number): AllowanceCommand => ({
  type: 'DrawAllowance',
  adminId: 4,
  day: '2026-11-26',
  adjustmentId,
  amountCents,
  limitCents: 20_000,
  at: '2026-11-26T12:00:00.000Z',
});
const returned = (adjustmentId: string) => ({
  type: 'ManualCreditAllowanceReturned' as const,
  data: { adjustmentId, at: '2026-11-26T12:00:01.000Z' },
});

describe('a plain admin’s daily allowance of manual credit', () => {
  const allowance = spec(allowanceDecider);

  it('draws up to the limit and refuses beyond it on amount, naming what is left', () => {
    const err = allowance
      .givenCommands(draw('a', 15_000))
      .when(draw('b', 5_001))
      .thenThrows('ValidationError', {
        fieldErrors: { amount: [expect.stringContaining('50.00 USD left')] },
      });
    expect(err.kind).toBe('unprocessable');
    expect(allowance.givenCommands(draw('a', 15_000)).when(draw('b', 5_000)).events()).toHaveLength(1);
  });

  it('draws once per adjustment, and a draw returned by an earlier design is available again', () => {
    allowance.givenCommands(draw('a', 20_000)).when(draw('a', 20_000)).thenNothing();
    const drawn = allowance.given().when(draw('a', 20_000)).events();
    expect(
      allowance
        .given(...drawn, returned('a'))
        .when(draw('b', 20_000))
        .events(),
    ).toHaveLength(1);
  });
});
