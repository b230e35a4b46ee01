import type { CreditBucket } from '../../domain/credit/events.js';
import type { Audience, Campaign } from '../../domain/promotion/promotion.js';
import type { Db } from '../../infra/db/database.js';
import type { PromotionGrantRow, PromotionRow } from './promotionViews.js';
import { newestFirstPage } from '../../infra/db/keyset.js';

/** Reads of the campaigns read model and its grant rows (promotionViews.ts). */
export const listPromotions = (
  db: Db,
  f: { audience?: Audience; creditScope?: CreditBucket; active?: boolean; cityId?: number },
): Promise<PromotionRow[]> => {
  let q = db.selectFrom('promotions').selectAll();
  if (f.audience) q = q.where('audience', '=', f.audience);
  if (f.creditScope) q = q.where('credit_scope', '=', f.creditScope);
  if (f.active !== undefined) q = q.where('active', '=', f.active);
  if (f.cityId !== undefined) q = q.where('city_id', '=', f.cityId);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
};

/** A row as the campaign rules read it (is_running in answers; which campaigns a delivery may grant). */
export const toCampaign = (r: PromotionRow): Campaign => ({
  audience: r.audience,
  creditScope: r.credit_scope,
  milestoneOrders: r.milestone_orders,
  milestoneBasis: r.milestone_basis,
  amountCents: r.amount_cents,
  cityId: r.city_id,
  startsAt: r.starts_at,
  endsAt: r.ends_at,
  maxGrants: r.max_grants,
  grantsCount: r.grants_count,
  active: r.active,
  createdAt: r.created_at,
});

/** A switched-on campaign's audience, city and window: which deliveries it may grant (milestone grants). */
export interface CampaignWindow {
  id: number;
  audience: Audience;
  cityId: number | null;
  startsAt: Date | null;
  endsAt: Date | null;
}

export const switchedOnCampaigns = async (db: Db): Promise<CampaignWindow[]> =>
  (
    await db
      .selectFrom('promotions')
      .select(['id', 'audience', 'city_id', 'starts_at', 'ends_at'])
      .where('active', '=', true)
      .orderBy('id')
      .execute()
  ).map((r) => ({ id: r.id, audience: r.audience, cityId: r.city_id, startsAt: r.starts_at, endsAt: r.ends_at }));

export const promotionById = (db: Db, id: number): Promise<PromotionRow | undefined> =>
  db.selectFrom('promotions').selectAll().where('id', '=', id).executeTakeFirst();

export type GrantWithUser = PromotionGrantRow & { user_name: string | null; user_phone: string };

/** Newest first, keyed by the grant id (ids grow with time). */
export const grantsOf = async (
  db: Db,
  promotionId: number,
  page: { limit: number; beforeId?: number },
): Promise<{ rows: GrantWithUser[]; hasMore: boolean }> => {
  const q = db
    .selectFrom('promotion_grants as g')
    // A grant goes to a user who ordered, and users are never deleted: every grant has its user.
    .innerJoin('users as u', 'u.id', 'g.user_id')
    .selectAll('g')
    .select(['u.name as user_name', 'u.phone as user_phone'])
    .where('g.promotion_id', '=', promotionId);
  return newestFirstPage(q, ['g.id'], page.beforeId === undefined ? undefined : [page.beforeId], page.limit);
};
