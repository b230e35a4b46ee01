import { sql } from 'kysely';
import type { RatingSubmittedData } from '../../domain/rating/events.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import type { EventHandler } from '../projector.js';

/**
 * Rating events as the drivers read model (projections/drivers) needs them: avg_rating and ratings_count,
 * which GET /me's driver block and the back office read. They write only `drivers`, so they are spread
 * into the drivers projector's handlers.
 *
 * The sum of a driver's scores is an integer, so round(avg_rating × ratings_count) recovers it exactly and
 * the new average is one correctly rounded division: no drift however many ratings come in, and the same
 * number as the ratings summary's sum / count.
 */
export const driverRatingHandlers: Record<string, EventHandler> = {
  RatingSubmitted: (trx, { data: d }: RecordedEvent<string, RatingSubmittedData>) =>
    trx
      .updateTable('drivers')
      .set({
        avg_rating: sql<number>`(round(avg_rating * ratings_count) + ${d.score}::integer)::double precision /
          (ratings_count + 1)`,
        ratings_count: sql<number>`ratings_count + 1`,
      })
      .where('driver_id', '=', d.driverId)
      .execute(),
};
