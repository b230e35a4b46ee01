import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../domain/settlement/config.js';
import { dueOccurrences } from './schedule.js';

describe('which scheduled settlement runs are due', () => {
  it('uses the wall clock of the configured timezone (Caracas is UTC−4)', () => {
    expect(dueOccurrences(DEFAULT_CONFIG, new Date('2026-11-23T21:59:00Z'))).toEqual([]);
    expect(dueOccurrences(DEFAULT_CONFIG, new Date('2026-11-23T22:00:00Z'))).toEqual([
      { process: 'cutoff', runDate: '2026-11-23' },
    ]);
    expect(dueOccurrences(DEFAULT_CONFIG, new Date('2026-11-23T23:30:00Z'))).toEqual([
      { process: 'cutoff', runDate: '2026-11-23' },
      { process: 'payout', runDate: '2026-11-23' },
    ]);
    // 01:00 UTC on the 24th is still the evening of the 23rd in Caracas.
    expect(dueOccurrences(DEFAULT_CONFIG, new Date('2026-11-24T01:00:00Z')).map((o) => o.runDate)).toEqual([
      '2026-11-23',
      '2026-11-23',
    ]);
    expect(dueOccurrences({ ...DEFAULT_CONFIG, timezone: '+02:00' }, new Date('2026-11-23T16:00:00Z'))).toEqual([
      { process: 'cutoff', runDate: '2026-11-23' },
    ]);
  });

  it('honours the enabled flags and the active days (index 0 is Sunday)', () => {
    const monday = new Date('2026-11-23T23:30:00Z'); // Monday 19:30 in Caracas
    expect(
      dueOccurrences({ ...DEFAULT_CONFIG, activeDays: [true, false, true, true, true, true, true] }, monday),
    ).toEqual([]);
    expect(dueOccurrences({ ...DEFAULT_CONFIG, cutoffEnabled: false }, monday).map((o) => o.process)).toEqual([
      'payout',
    ]);
    expect(dueOccurrences({ ...DEFAULT_CONFIG, payoutEnabled: false }, monday).map((o) => o.process)).toEqual([
      'cutoff',
    ]);
    const sunday = new Date('2026-11-22T23:30:00Z');
    expect(
      dueOccurrences({ ...DEFAULT_CONFIG, activeDays: [false, true, true, true, true, true, true] }, sunday),
    ).toEqual([]);
  });
});
