import { sql, type Kysely, type Migration } from 'kysely';
import type { RatingSubmittedData } from '../../domain/rating/events.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector } from '../projector.js';

/** The ratings read model: one row per rated order, with the contract's field names. */
export interface RatingRow {
  id: number;
  order_id: number;
  from_user_id: number;
  to_driver_id: number;
  score: number;
  comment: string | null;
  tags: string[];
  created_at: Date;
  updated_at: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    ratings: RatingRow;
  }
}

export const ratingViewMigrations: Record<string, Migration> = {
  '0800_ratings': {
    async up(db: Kysely<unknown>) {
      // Rating ids are the spec's integers, handed out by the command side before the event.
      await sql`CREATE SEQUENCE IF NOT EXISTS rating_id_seq`.execute(db);
      await sql`CREATE TABLE ratings (
        id bigint PRIMARY KEY,
        order_id bigint NOT NULL UNIQUE,
        from_user_id bigint NOT NULL,
        to_driver_id bigint NOT NULL,
        score smallint NOT NULL,
        comment text,
        tags jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX ratings_driver ON ratings (to_driver_id, created_at DESC, id DESC)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE ratings`.execute(db);
      await sql`DROP SEQUENCE rating_id_seq`.execute(db);
    },
  },
};

export const ratingViewsProjector = projector('ratings', {
  tables: ['ratings'],
  handlers: {
    RatingSubmitted: (trx, { data: d }: RecordedEvent<string, RatingSubmittedData>) =>
      trx
        .insertInto('ratings')
        .values({
          id: d.ratingId,
          order_id: d.orderId,
          from_user_id: d.clientId,
          to_driver_id: d.driverId,
          score: d.score,
          comment: d.comment,
          tags: JSON.stringify(d.tags) as unknown as string[],
          created_at: new Date(d.ratedAt),
          updated_at: new Date(d.ratedAt),
        })
        .execute(),
  },
});
