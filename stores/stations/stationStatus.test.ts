import { describe, expect, it } from 'vitest';
import { currentStatus, type RecentReport } from './stationStatus.js';

const now = new Date('2026-03-01T12:00:00Z');
const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
const report = (color: RecentReport['color'], minutesAgo: number, waitMinutes: number | null = null): RecentReport => ({
  color,
  waitMinutes,
  createdAt: ago(minutesAgo),
});

describe('currentStatus', () => {
  it('is null for a station never reported', () => {
    expect(currentStatus([], null, now)).toBeNull();
  });

  it('one fresh report: its colour at confidence 0.5; agreeing reports raise it', () => {
    expect(currentStatus([report('GREEN', 0, 10)], { color: 'GREEN', at: now }, now)).toEqual({
      current_color: 'GREEN',
      confidence: 0.5,
      report_count: 1,
      avg_wait_minutes: 10,
      last_report_at: now.toISOString(),
    });
    expect(
      currentStatus([report('GREEN', 0), report('GREEN', 0), report('GREEN', 0)], { color: 'GREEN', at: now }, now)
        ?.confidence,
    ).toBe(0.88);
  });

  it('weighs by recency: one fresh report outweighs two an hour old', () => {
    const s = currentStatus(
      [report('RED', 0, 60), report('GREEN', 60, 0), report('GREEN', 60, 0)],
      { color: 'RED', at: now },
      now,
    )!;
    expect(s.current_color).toBe('RED'); // 1 against 2 × 0.25
    expect(s.avg_wait_minutes).toBe(40); // 60·1 / 1.5
    expect(s.confidence).toBe(0.43); // (1 / 1.5) × (1 − 0.5^1.5)
  });

  it('a tie goes to the colour reported most recently', () => {
    expect(
      currentStatus([report('CLOSED', 0), report('GREEN', 0)], { color: 'CLOSED', at: now }, now)?.current_color,
    ).toBe('CLOSED');
  });

  it('with nothing left in the window the last colour stays, confidence 0', () => {
    expect(currentStatus([], { color: 'YELLOW', at: ago(500) }, now)).toEqual({
      current_color: 'YELLOW',
      confidence: 0,
      report_count: 0,
      avg_wait_minutes: null,
      last_report_at: ago(500).toISOString(),
    });
  });
});
