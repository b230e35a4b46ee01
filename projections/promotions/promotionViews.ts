import { sql, type Kysely, type Migration, type Selectable, type Updateable } from 'kysely';
import type { CreditBucket } from '../../domain/credit/events.js';
import type {
  PromotionCreatedData,
  PromotionDeletedData,
  PromotionGrantedData,
  PromotionTerms,
  PromotionUpdatedData,
} from '../../domain/promotion/events.js';
import type { Audience, MilestoneBasis } from '../../domain/promotion/promotion.js';
import type { Database } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { dateOrNull, projector } from '../projector.js';

/** The campaigns read model: one row per campaign with its grant counters, and one row per grant. */
declare module '../../infra/db/database.js' {
  interface Database {
    promotions: {
      id: number;
      name: string;
      description: string | null;
      audience: Audience;
      credit_scope: CreditBucket | null;
      milestone_orders: number;
      milestone_basis: MilestoneBasis;
      amount_cents: number;
      city_id: number | null;
      starts_at: Date | null;
      ends_at: Date | null;
      max_grants: number | null;
      grants_count: number;
      granted_amount_cents: number;
      active: boolean;
      created_at: Date;
      updated_at: Date;
    };
    promotion_grants: {
      id: number;
      promotion_id: number;
      user_id: number;
      /** The delivery that reached the milestone. */
      order_id: number | null;
      audience: Audience;
      credit_scope: CreditBucket | null;
      amount_cents: number;
      created_at: Date;
    };
  }
}

export type PromotionRow = Selectable<Database['promotions']>;
export type PromotionGrantRow = Selectable<Database['promotion_grants']>;

export const promotionViewMigrations: Record<string, Migration> = {
  '0980_promotions': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE promotions (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name text NOT NULL,
        description text,
        audience text NOT NULL CHECK (audience IN ('CLIENT', 'DRIVER')),
        credit_scope text CHECK (credit_scope IN ('ANY', 'ORDERS', 'SURPLUS')),
        milestone_orders integer NOT NULL,
        milestone_basis text NOT NULL CHECK (milestone_basis IN ('LIFETIME', 'CAMPAIGN')),
        amount_cents integer NOT NULL,
        city_id integer,
        starts_at timestamptz,
        ends_at timestamptz,
        max_grants integer,
        grants_count integer NOT NULL DEFAULT 0,
        granted_amount_cents bigint NOT NULL DEFAULT 0,
        active boolean NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX promotions_running ON promotions (audience, active)`.execute(db);
      await sql`CREATE TABLE promotion_grants (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        promotion_id bigint NOT NULL REFERENCES promotions (id),
        user_id bigint NOT NULL,
        order_id bigint,
        audience text NOT NULL,
        credit_scope text,
        amount_cents integer NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (promotion_id, user_id)
      )`.execute(db);
      await sql`CREATE INDEX promotion_grants_newest ON promotion_grants (promotion_id, id DESC)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE promotion_grants, promotions`.execute(db);
    },
  },
  // Campaigns became event-sourced (issue #9): the tables are a read model whose ids come from the events,
  // minted by the command side from these sequences (docs/decisions/0025-promotion-campaigns.md).
  '0986_promotions_from_events': {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE promotion_grants DROP CONSTRAINT IF EXISTS promotion_grants_promotion_id_fkey`.execute(db);
      await sql`ALTER TABLE promotions ALTER COLUMN id DROP IDENTITY IF EXISTS`.execute(db);
      await sql`ALTER TABLE promotion_grants ALTER COLUMN id DROP IDENTITY IF EXISTS`.execute(db);
      await sql`CREATE SEQUENCE IF NOT EXISTS promotion_id_seq`.execute(db);
      await sql`CREATE SEQUENCE IF NOT EXISTS promotion_grant_id_seq`.execute(db);
      await sql`SELECT setval('promotion_id_seq', max(id)) FROM promotions HAVING max(id) IS NOT NULL`.execute(db);
      await sql`SELECT setval('promotion_grant_id_seq', max(id)) FROM promotion_grants
        HAVING max(id) IS NOT NULL`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP SEQUENCE promotion_grant_id_seq, promotion_id_seq`.execute(db);
      await sql`ALTER TABLE promotions ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY`.execute(db);
      await sql`ALTER TABLE promotion_grants ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY`.execute(db);
    },
  },
};

/** The columns the sent terms change (only those present). */
const columnsOf = (t: Partial<PromotionTerms>): Updateable<Database['promotions']> => {
  const c: Updateable<Database['promotions']> = {};
  if (t.name !== undefined) c.name = t.name;
  if (t.description !== undefined) c.description = t.description;
  if (t.audience !== undefined) c.audience = t.audience;
  if (t.creditScope !== undefined) c.credit_scope = t.creditScope;
  if (t.milestoneOrders !== undefined) c.milestone_orders = t.milestoneOrders;
  if (t.milestoneBasis !== undefined) c.milestone_basis = t.milestoneBasis;
  if (t.amountCents !== undefined) c.amount_cents = t.amountCents;
  if (t.cityId !== undefined) c.city_id = t.cityId;
  if (t.startsAt !== undefined) c.starts_at = dateOrNull(t.startsAt);
  if (t.endsAt !== undefined) c.ends_at = dateOrNull(t.endsAt);
  if (t.maxGrants !== undefined) c.max_grants = t.maxGrants;
  if (t.active !== undefined) c.active = t.active;
  return c;
};

type On<D> = RecordedEvent<string, D>;

export const promotionViewsProjector = projector('promotions', {
  tables: ['promotions', 'promotion_grants'],
  handlers: {
    PromotionCreated: (trx, { data: d }: On<PromotionCreatedData>) =>
      trx
        .insertInto('promotions')
        .values({
          id: d.promotionId,
          name: d.terms.name,
          description: d.terms.description,
          audience: d.terms.audience,
          credit_scope: d.terms.creditScope,
          milestone_orders: d.terms.milestoneOrders,
          milestone_basis: d.terms.milestoneBasis,
          amount_cents: d.terms.amountCents,
          city_id: d.terms.cityId,
          starts_at: dateOrNull(d.terms.startsAt),
          ends_at: dateOrNull(d.terms.endsAt),
          max_grants: d.terms.maxGrants,
          grants_count: 0,
          granted_amount_cents: 0,
          active: d.terms.active,
          created_at: new Date(d.createdAt),
          updated_at: new Date(d.createdAt),
        })
        .execute(),
    PromotionUpdated: (trx, { data: d }: On<PromotionUpdatedData>) =>
      trx
        .updateTable('promotions')
        .set({ ...columnsOf(d.changes), updated_at: new Date(d.updatedAt) })
        .where('id', '=', d.promotionId)
        .execute(),
    PromotionDeleted: (trx, { data: d }: On<PromotionDeletedData>) =>
      trx.deleteFrom('promotions').where('id', '=', d.promotionId).execute(),
    PromotionGranted: async (trx, { data: d }: On<PromotionGrantedData>) => {
      await trx
        .insertInto('promotion_grants')
        .values({
          id: d.grantId,
          promotion_id: d.promotionId,
          user_id: d.userId,
          order_id: d.orderId,
          audience: d.audience,
          credit_scope: d.creditScope,
          amount_cents: d.amountCents,
          created_at: new Date(d.grantedAt),
        })
        .execute();
      await trx
        .updateTable('promotions')
        .set((eb) => ({
          grants_count: eb('grants_count', '+', 1),
          granted_amount_cents: eb('granted_amount_cents', '+', d.amountCents),
        }))
        .where('id', '=', d.promotionId)
        .execute();
    },
  },
});
