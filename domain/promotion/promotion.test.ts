import { describe, expect, it } from 'vitest';
import { combinationErrors, countingFrom, frozenFieldsTouched, isRunning, milestoneReached } from './promotion.js';

const at = (s: string) => new Date(s);
const running = { active: true, startsAt: null, endsAt: null, maxGrants: null, grantsCount: 0 };

describe('promotion campaign rules', () => {
  it('runs only when active, inside its window and under its cap', () => {
    const now = at('2026-05-10T12:00:00Z');
    expect(isRunning(running, now)).toBe(true);
    expect(isRunning({ ...running, active: false }, now)).toBe(false);
    expect(isRunning({ ...running, startsAt: at('2026-05-10T12:00:00Z') }, now)).toBe(true);
    expect(isRunning({ ...running, startsAt: at('2026-05-11T00:00:00Z') }, now)).toBe(false);
    expect(isRunning({ ...running, endsAt: at('2026-05-10T12:00:00Z') }, now)).toBe(false);
    expect(isRunning({ ...running, maxGrants: 2, grantsCount: 1 }, now)).toBe(true);
    expect(isRunning({ ...running, maxGrants: 2, grantsCount: 2 }, now)).toBe(false);
  });

  it('freezes the grant terms once something was granted', () => {
    expect(frozenFieldsTouched(0, ['amount_usd', 'name'])).toEqual([]);
    expect(frozenFieldsTouched(1, ['name', 'amount_usd', 'audience', 'active'])).toEqual(['audience', 'amount_usd']);
  });

  it('keeps credit_scope for clients only and ends_at after starts_at', () => {
    expect(combinationErrors({ audience: 'CLIENT', creditScope: 'ANY', startsAt: null, endsAt: null })).toEqual({});
    expect(combinationErrors({ audience: 'CLIENT', creditScope: null, startsAt: null, endsAt: null })).toHaveProperty(
      'credit_scope',
    );
    expect(combinationErrors({ audience: 'DRIVER', creditScope: 'ANY', startsAt: null, endsAt: null })).toHaveProperty(
      'credit_scope',
    );
    expect(
      combinationErrors({
        audience: 'DRIVER',
        creditScope: null,
        startsAt: at('2026-01-02'),
        endsAt: at('2026-01-02'),
      }),
    ).toHaveProperty('ends_at');
  });

  it('counts CAMPAIGN deliveries from the later of start and creation', () => {
    const createdAt = at('2026-03-01T00:00:00Z');
    expect(countingFrom({ milestoneBasis: 'LIFETIME', startsAt: null, createdAt })).toBeNull();
    expect(countingFrom({ milestoneBasis: 'CAMPAIGN', startsAt: null, createdAt })).toEqual(createdAt);
    expect(countingFrom({ milestoneBasis: 'CAMPAIGN', startsAt: at('2026-01-01'), createdAt })).toEqual(createdAt);
    expect(countingFrom({ milestoneBasis: 'CAMPAIGN', startsAt: at('2026-04-01'), createdAt })).toEqual(
      at('2026-04-01'),
    );
  });

  it('is reached at the milestone and past it', () => {
    expect(milestoneReached({ milestoneOrders: 3 }, 2)).toBe(false);
    expect(milestoneReached({ milestoneOrders: 3 }, 3)).toBe(true);
    expect(milestoneReached({ milestoneOrders: 3 }, 4)).toBe(true);
  });
});
