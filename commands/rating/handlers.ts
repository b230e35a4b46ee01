import { ratingStream } from '../../domain/rating/events.js';
import { ratingDecider } from '../../domain/rating/rating.js';
import type { Actor } from '../../domain/actor.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { partyOfOrder } from '../../domain/order/access.js';
import { orderStream } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { loadState } from '../handle.js';
import { nextId } from '../origin.js';

type Deps = Pick<CommandDeps, 'clock' | 'db' | 'handle' | 'store'>;

export interface RateDriverInput {
  orderId: number;
  score: number;
  tags: string[];
  comment: string | null;
}

/** The order is read from its stream, not the read model: whether it is delivered is decided on the truth. */
export const rateDriver = async (ctx: Deps, actor: Actor, input: RateDriverInput, metadata?: EventMetadata) => {
  const { state: order } = await loadState(ctx.store, orderStream(input.orderId), orderDecider);
  const party = order ? partyOfOrder(order, actor) : null;
  const ratingId = await nextId(ctx.db, 'rating_id_seq');
  const result = await ctx.handle(
    ratingDecider,
    ratingStream(input.orderId),
    {
      type: 'RateDriver',
      ratingId,
      order: order && { id: order.id, clientId: order.clientId, driverId: order.driverId, status: order.status },
      party,
      score: input.score,
      tags: input.tags,
      comment: input.comment,
      now: ctx.clock.now(),
    },
    { metadata },
  );
  return { position: result.position, rating: result.state! };
};
