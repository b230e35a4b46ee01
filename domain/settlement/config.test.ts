import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { decideConfig, DEFAULT_CONFIG } from './config.js';

const at = '2026-11-23T12:00:00.000Z';

describe('settlement config', () => {
  it('records only the fields that change', () => {
    const [e] = decideConfig({ patch: { cutoffTime: '18:00', minBalanceCents: 700 }, adminId: 1, at }, DEFAULT_CONFIG);
    expect(e.data.oldValues).toEqual({ minBalanceCents: 500 });
    expect(e.data.newValues).toEqual({ minBalanceCents: 700 });
  });
  it('a no-op update records nothing', () => {
    expect(
      decideConfig(
        { patch: { ivaPrc: 16, activeDays: [...DEFAULT_CONFIG.activeDays] }, adminId: 1, at },
        DEFAULT_CONFIG,
      ),
    ).toEqual([]);
  });
  it('payout_time must follow the effective cutoff_time', () => {
    expect(() => decideConfig({ patch: { payoutTime: '17:00' }, adminId: 1, at }, DEFAULT_CONFIG)).toThrow(DomainError);
    expect(() => decideConfig({ patch: { cutoffTime: '19:30' }, adminId: 1, at }, DEFAULT_CONFIG)).toThrow(DomainError);
    expect(
      decideConfig({ patch: { cutoffTime: '19:30', payoutTime: '20:00' }, adminId: 1, at }, DEFAULT_CONFIG),
    ).toHaveLength(1);
  });
});
