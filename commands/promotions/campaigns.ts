import { sql, type Generated, type Kysely, type Migration, type Selectable } from 'kysely';
import type { CreditBucket } from '../../domain/credit/events.js';
import { conflict, notFound, validationError } from '../../domain/errors.js';
import { combinationErrors, frozenFieldsTouched, isRunning, type Audience, type Campaign, type MilestoneBasis } from '../../domain/promotion/promotion.js';
import type { Db, Trx } from '../../infra/db/database.js';

/**
 * Promotion campaigns are state-stored configuration (an admin edits a handful of rows; no other
 * aggregate decides on them). Grants are rows with one per campaign and recipient, written in the same
 * transaction that locks the campaign, so the cap, the frozen terms and the delete block are all
 * serialised on the campaign row. The money itself moves on the recipient's event-sourced credit stream.
 */
declare module '../../infra/db/database.js' {
  interface Database {
    promotions: {
      id: Generated<number>;
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
      grants_count: Generated<number>;
      granted_amount_cents: Generated<number>;
      active: boolean;
      created_at: Date;
      updated_at: Date;
    };
    promotion_grants: {
      id: Generated<number>;
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

export type PromotionRow = Selectable<import('../../infra/db/database.js').Database['promotions']>;
export type PromotionGrantRow = Selectable<import('../../infra/db/database.js').Database['promotion_grants']>;

export const promotionMigrations: Record<string, Migration> = {
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
};

export const promotionNotFound = () => notFound('PromotionNotFound', 'Promotion not found.');

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

/** The writable fields, as the routes hand them over (amounts in cents, dates parsed). */
export interface CampaignFields {
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
  active: boolean;
}

const checkCity = async (db: Db | Trx, cityId: number | null | undefined) => {
  if (cityId === null || cityId === undefined) return;
  const city = await db.selectFrom('cities').select('id').where('id', '=', cityId).executeTakeFirst();
  if (!city) throw validationError({ city_id: ['Unknown city.'] });
};

const checkCombinations = (f: Pick<CampaignFields, 'audience' | 'credit_scope' | 'starts_at' | 'ends_at'>) => {
  const errors = combinationErrors({ audience: f.audience, creditScope: f.credit_scope, startsAt: f.starts_at, endsAt: f.ends_at });
  if (Object.keys(errors).length) throw validationError(errors);
};

export const createPromotion = async (db: Db, fields: CampaignFields, now: Date): Promise<PromotionRow> => {
  checkCombinations(fields);
  await checkCity(db, fields.city_id);
  return db
    .insertInto('promotions')
    .values({ ...fields, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
};

const lockPromotion = async (trx: Trx, id: number): Promise<PromotionRow> => {
  const row = await trx.selectFrom('promotions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  if (!row) throw promotionNotFound();
  return row;
};

/** Merge update: only the fields present in `patch` change; the combinations are checked on the result. */
export const updatePromotion = (db: Db, id: number, patch: Partial<CampaignFields>, sentFields: readonly string[], now: Date): Promise<PromotionRow> =>
  db.transaction().execute(async (trx) => {
    const stored = await lockPromotion(trx, id);
    const frozen = frozenFieldsTouched(stored.grants_count, sentFields);
    if (frozen.length) throw conflict('PromotionAlreadyGranted', `The campaign has grants; these fields can no longer change: ${frozen.join(', ')}.`, { fields: frozen });
    const effective = { ...stored, ...patch };
    checkCombinations(effective);
    await checkCity(trx, patch.city_id);
    if (Object.keys(patch).length === 0) return stored;
    return trx.updateTable('promotions').set({ ...patch, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  });

export const deletePromotion = (db: Db, id: number): Promise<void> =>
  db.transaction().execute(async (trx) => {
    const stored = await lockPromotion(trx, id);
    if (stored.grants_count > 0) throw conflict('PromotionHasGrants', 'The campaign has grants and cannot be deleted; deactivate it instead.');
    await trx.deleteFrom('promotions').where('id', '=', id).execute();
  });

/**
 * Records the grant of a campaign to one recipient, once: the (campaign, recipient) row is the grant, and
 * its id is the grant id the credit stream deduplicates on. Answers the recipient's grant row, new or
 * earlier, or null when the campaign no longer grants (deleted, stopped, outside its window, capped).
 */
export const recordGrant = (
  db: Db,
  input: { promotionId: number; userId: number; orderId: number | null; at: Date; now: Date },
): Promise<PromotionGrantRow | null> =>
  db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('promotions').selectAll().where('id', '=', input.promotionId).forUpdate().executeTakeFirst();
    if (!row) return null;
    const earlier = await trx.selectFrom('promotion_grants').selectAll().where('promotion_id', '=', row.id).where('user_id', '=', input.userId).executeTakeFirst();
    if (earlier) return earlier;
    if (!isRunning(toCampaign(row), input.at)) return null;
    const grant = await trx
      .insertInto('promotion_grants')
      .values({
        promotion_id: row.id,
        user_id: input.userId,
        order_id: input.orderId,
        audience: row.audience,
        credit_scope: row.credit_scope,
        amount_cents: row.amount_cents,
        created_at: input.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('promotions')
      .set((eb) => ({ grants_count: eb('grants_count', '+', 1), granted_amount_cents: eb('granted_amount_cents', '+', row.amount_cents) }))
      .where('id', '=', row.id)
      .execute();
    return grant;
  });
