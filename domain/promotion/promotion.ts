import type { PromotionTerms } from './events.js';

/**
 * Milestone promotion campaigns (docs/domain-rules.md): the rules a campaign's decider (campaign.ts)
 * and the back office's answers share.
 */
export const AUDIENCES = ['CLIENT', 'DRIVER'] as const;
export type Audience = (typeof AUDIENCES)[number];
export const MILESTONE_BASES = ['LIFETIME', 'CAMPAIGN'] as const;
export type MilestoneBasis = (typeof MILESTONE_BASES)[number];

/** Fields that a first grant freezes: changing them would make earlier grants unfair. */
export const FROZEN_AFTER_GRANT = [
  'audience',
  'credit_scope',
  'milestone_orders',
  'milestone_basis',
  'amount_usd',
] as const;

/** A campaign as its rules read it: the terms its events carry (the window as dates) and its grants so far. */
export type Campaign = Omit<PromotionTerms, 'name' | 'description' | 'startsAt' | 'endsAt'> & {
  startsAt: Date | null;
  endsAt: Date | null;
  grantsCount: number;
  createdAt: Date;
};

/** Inside its window at `at`: starts_at inclusive, ends_at exclusive, either open. */
export const inWindow = (c: Pick<Campaign, 'startsAt' | 'endsAt'>, at: Date): boolean =>
  (c.startsAt === null || c.startsAt.getTime() <= at.getTime()) &&
  (c.endsAt === null || at.getTime() < c.endsAt.getTime());

/** Active, inside its window and under its cap. */
export const isRunning = (
  c: Pick<Campaign, 'active' | 'startsAt' | 'endsAt' | 'maxGrants' | 'grantsCount'>,
  at: Date,
): boolean => c.active && inWindow(c, at) && (c.maxGrants === null || c.grantsCount < c.maxGrants);

/** The fields of a PATCH body that a granted campaign refuses (409 PromotionAlreadyGranted lists them). */
export const frozenFieldsTouched = (grantsCount: number, sent: readonly string[]): string[] =>
  grantsCount > 0 ? FROZEN_AFTER_GRANT.filter((f) => sent.includes(f)) : [];

/**
 * The combinations a create or a merge update must keep, checked on the effective values (the sent
 * value, else the stored one): credit_scope only and always for clients, ends_at after starts_at.
 */
export const combinationErrors = (
  c: Pick<Campaign, 'audience' | 'creditScope' | 'startsAt' | 'endsAt'>,
): Record<string, string[]> => {
  const errors: Record<string, string[]> = {};
  if (c.audience === 'DRIVER' && c.creditScope !== null)
    errors.credit_scope = ['must be null when the audience is DRIVER'];
  if (c.audience === 'CLIENT' && c.creditScope === null)
    errors.credit_scope = ['is required when the audience is CLIENT'];
  if (c.startsAt && c.endsAt && c.endsAt.getTime() <= c.startsAt.getTime())
    errors.ends_at = ['must be after starts_at'];
  return errors;
};

/**
 * Deliveries count from the campaign's opening for the CAMPAIGN basis: its start, or its creation when
 * it started earlier (deliveries before the campaign existed were not made for it) or has no start.
 */
export const countingFrom = (c: Pick<Campaign, 'milestoneBasis' | 'startsAt' | 'createdAt'>): Date | null => {
  if (c.milestoneBasis === 'LIFETIME') return null;
  return c.startsAt && c.startsAt.getTime() > c.createdAt.getTime() ? c.startsAt : c.createdAt;
};

/**
 * A delivery triggers the grant when the recipient's counted deliveries, this one included, reach the
 * milestone. "At least" rather than "exactly": a recipient already past the milestone when a LIFETIME
 * campaign opens qualifies on their next delivery. Once per campaign and recipient (the grant row).
 */
export const milestoneReached = (c: Pick<Campaign, 'milestoneOrders'>, countedDeliveries: number): boolean =>
  countedDeliveries >= c.milestoneOrders;
