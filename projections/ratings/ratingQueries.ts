import type { Db } from '../../infra/db/database.js';
import type { RatingRow } from './ratingViews.js';

// Read side of ratings, for this area and for others (the order receipt embeds the rating).

/** How many commented ratings the driver's summary shows. */
export const RECENT_COMMENTED_RATINGS = 10;

export const ratingOfOrder = async (db: Db, orderId: number): Promise<RatingRow | null> =>
  (await db.selectFrom('ratings').selectAll().where('order_id', '=', orderId).executeTakeFirst()) ?? null;

/** The receipt's rating object, or null while the order is unrated. */
export const ratingForOrder = async (db: Db, orderId: number) => {
  const r = await ratingOfOrder(db, orderId);
  return r
    ? { score: r.score, comment: r.comment, tags: r.tags, created_at: new Date(r.created_at).toISOString() }
    : null;
};

export interface DriverRatingSummary {
  average: number;
  total: number;
  distribution: Record<'1' | '2' | '3' | '4' | '5', number>;
  recent: { score: number; comment: string | null; tags: string[]; created_at: string }[];
}

/**
 * average is sum / count of the scores (0 without ratings): the same number the drivers read model keeps
 * as avg_rating. recent holds the latest commented ratings without who gave them.
 */
export const ratingSummaryOfDriver = async (db: Db, driverId: number): Promise<DriverRatingSummary> => {
  const counts = await db
    .selectFrom('ratings')
    .select(['score', db.fn.countAll<string>().as('n')])
    .where('to_driver_id', '=', driverId)
    .groupBy('score')
    .execute();
  const distribution: DriverRatingSummary['distribution'] = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 };
  let total = 0;
  let sum = 0;
  for (const c of counts) {
    const n = Number(c.n);
    distribution[String(c.score) as keyof DriverRatingSummary['distribution']] = n;
    total += n;
    sum += n * c.score;
  }
  const recent = await db
    .selectFrom('ratings')
    .select(['score', 'comment', 'tags', 'created_at'])
    .where('to_driver_id', '=', driverId)
    .where('comment', 'is not', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(RECENT_COMMENTED_RATINGS)
    .execute();
  return {
    average: total === 0 ? 0 : sum / total,
    total,
    distribution,
    recent: recent.map((r) => ({
      score: r.score,
      comment: r.comment,
      tags: r.tags,
      created_at: new Date(r.created_at).toISOString(),
    })),
  };
};
