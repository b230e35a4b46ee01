import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../domain/errors.js';
import { LAST_30_DAYS, LAST_3_MONTHS, resolveWindow } from './reportQuery.js';

const TZ = 'America/Caracas';
const fieldsOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return Object.keys((e as DomainError).details?.fieldErrors as object);
  }
  throw new Error('no error');
};

describe('resolveWindow', () => {
  it('defaults to the last 30 calendar days, today included, bounded by Caracas midnights', () => {
    const w = resolveWindow({}, '2026-03-11', TZ, LAST_30_DAYS);
    expect(w).toEqual({
      from: '2026-02-10',
      to: '2026-03-11',
      startAt: new Date('2026-02-10T04:00:00Z'),
      endAt: new Date('2026-03-12T04:00:00Z'),
    });
    expect(resolveWindow({ date_to: '2026-01-31' }, '2026-03-11', TZ, LAST_30_DAYS).from).toBe('2026-01-02');
    expect(resolveWindow({ date_from: '2026-03-01' }, '2026-03-11', TZ, LAST_30_DAYS).to).toBe('2026-03-11');
  });

  it('defaults the performance window to the last three months and allows 366 days', () => {
    expect(resolveWindow({}, '2026-03-11', TZ, LAST_3_MONTHS).from).toBe('2025-12-12');
    expect(
      resolveWindow({ date_from: '2025-03-11', date_to: '2026-03-11' }, '2026-03-11', TZ, LAST_3_MONTHS).from,
    ).toBe('2025-03-11');
    expect(
      fieldsOf(() =>
        resolveWindow({ date_from: '2025-03-10', date_to: '2026-03-11' }, '2026-03-11', TZ, LAST_3_MONTHS),
      ),
    ).toContain('date_to');
  });

  it('refuses a span over the limit or an end before the start, naming the field', () => {
    expect(resolveWindow({ date_from: '2026-01-01', date_to: '2026-01-30' }, '2026-03-11', TZ, LAST_30_DAYS).to).toBe(
      '2026-01-30',
    );
    expect(
      fieldsOf(() => resolveWindow({ date_from: '2026-01-01', date_to: '2026-01-31' }, '2026-03-11', TZ, LAST_30_DAYS)),
    ).toEqual(['date_from', 'date_to']);
    expect(
      fieldsOf(() => resolveWindow({ date_from: '2026-01-02', date_to: '2026-01-01' }, '2026-03-11', TZ, LAST_30_DAYS)),
    ).toEqual(['date_to']);
  });
});
