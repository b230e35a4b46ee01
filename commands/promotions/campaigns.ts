import type { PromotionTerms } from '../../domain/promotion/events.js';
import { promotionStream } from '../../domain/promotion/events.js';
import { promotionDecider } from '../../domain/promotion/campaign.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { nextId } from '../origin.js';

/**
 * The back office's campaign commands, on the campaign's own stream (domain/promotion/campaign.ts): the
 * same stream its grants land on, so an edit and a grant never decide on a stale view of each other.
 */

type Ctx = Pick<CommandDeps, 'db' | 'handle' | 'clock' | 'reference'>;

/** Reference data the decision needs: whether the city a campaign names exists. */
const cityKnown = async (ctx: Ctx, cityId: number | null | undefined): Promise<boolean> =>
  cityId === null || cityId === undefined || (await ctx.reference.cityExists(cityId));

export const createPromotion = async (
  ctx: Ctx,
  terms: PromotionTerms,
  metadata?: EventMetadata,
): Promise<{ promotionId: number; position: number }> => {
  const known = await cityKnown(ctx, terms.cityId);
  const promotionId = await nextId(ctx.db, 'promotion_id_seq');
  const { position } = await ctx.handle(
    promotionDecider,
    promotionStream(promotionId),
    { type: 'CreatePromotion', promotionId, terms, cityKnown: known, now: ctx.clock.now() },
    { metadata },
  );
  return { promotionId, position };
};

/** Merge update: only the terms in `changes` change; the combinations are checked on the result. */
export const updatePromotion = async (
  ctx: Ctx,
  promotionId: number,
  changes: Partial<PromotionTerms>,
  sentFields: readonly string[],
  metadata?: EventMetadata,
): Promise<number> => {
  const known = await cityKnown(ctx, changes.cityId);
  const { position } = await ctx.handle(
    promotionDecider,
    promotionStream(promotionId),
    { type: 'UpdatePromotion', changes, sentFields, cityKnown: known, now: ctx.clock.now() },
    { metadata },
  );
  return position;
};

export const deletePromotion = async (ctx: Ctx, promotionId: number, metadata?: EventMetadata): Promise<number> =>
  (
    await ctx.handle(
      promotionDecider,
      promotionStream(promotionId),
      { type: 'DeletePromotion', now: ctx.clock.now() },
      { metadata },
    )
  ).position;
