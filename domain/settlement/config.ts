import { z } from 'zod';
import type { Decider } from '../decider.js';
import { instant, type EventsOf } from '../eventSchema.js';
import { validationError } from '../errors.js';

/** The settlement configuration with the defaults of docs/domain-rules.md. */
export const SettlementConfig = z.object({
  cutoffEnabled: z.boolean(),
  cutoffTime: z.string(),
  payoutEnabled: z.boolean(),
  payoutTime: z.string(),
  minBalanceCents: z.int(),
  /** Index 0 is Sunday. */
  activeDays: z.array(z.boolean()),
  ivaPrc: z.number(),
  timezone: z.string(),
});
export type SettlementConfig = z.infer<typeof SettlementConfig>;

export const DEFAULT_CONFIG: SettlementConfig = {
  cutoffEnabled: true,
  cutoffTime: '18:00',
  payoutEnabled: true,
  payoutTime: '19:00',
  minBalanceCents: 500,
  activeDays: [true, true, true, true, true, true, true],
  ivaPrc: 16,
  timezone: 'America/Caracas',
};

export const CONFIG_EVENTS = {
  SettlementConfigChanged: z.object({
    oldValues: SettlementConfig.partial(),
    newValues: SettlementConfig.partial(),
    adminId: z.int(),
    at: instant,
  }),
};
export type ConfigEvent = EventsOf<typeof CONFIG_EVENTS>;

export const evolveConfig = (s: SettlementConfig, e: ConfigEvent): SettlementConfig => ({ ...s, ...e.data.newValues });

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A partial update: only the fields that change are recorded (old and new); nothing changes, no event.
 * payout_time must be strictly after the effective cutoff_time (the one sent, else the stored one).
 */
export const decideConfig = (
  c: { patch: Partial<SettlementConfig>; adminId: number; at: string },
  s: SettlementConfig,
): ConfigEvent[] => {
  const cutoffTime = c.patch.cutoffTime ?? s.cutoffTime;
  const payoutTime = c.patch.payoutTime ?? s.payoutTime;
  // 'HH:mm' strings compare as times.
  if (payoutTime <= cutoffTime) {
    throw validationError({
      [c.patch.payoutTime !== undefined ? 'payout_time' : 'cutoff_time']: ['payout_time must be after cutoff_time.'],
    });
  }
  const oldValues: Partial<SettlementConfig> = {};
  const newValues: Partial<SettlementConfig> = {};
  for (const key of Object.keys(c.patch) as (keyof SettlementConfig)[]) {
    const value = c.patch[key];
    if (value === undefined || same(value, s[key])) continue;
    (oldValues as Record<string, unknown>)[key] = s[key];
    (newValues as Record<string, unknown>)[key] = value;
  }
  return Object.keys(newValues).length
    ? [{ type: 'SettlementConfigChanged', data: { oldValues, newValues, adminId: c.adminId, at: c.at } }]
    : [];
};

export type ConfigCommand = Parameters<typeof decideConfig>[0];

export const configDecider: Decider<ConfigCommand, SettlementConfig, ConfigEvent> = {
  initialState: DEFAULT_CONFIG,
  evolve: evolveConfig,
  decide: decideConfig,
};
