import { creditDecider } from '../../domain/credit/credit.js';
import { creditStream } from '../../domain/credit/events.js';
import type { OrderDeliveredData } from '../../domain/order/events.js';
import { countingFrom, milestoneReached } from '../../domain/promotion/promotion.js';
import type { AppContext } from '../../infra/context.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import type { ScheduledJob } from '../../infra/scheduler.js';
import { causedBy, derivedEventId } from '../origin.js';
import { processManager, type Cause } from '../processManager.js';
import { walletCommands } from '../wallet/handlers.js';
import { recordGrant, toCampaign } from './campaigns.js';


/**
 * The city an order was served in is its driver's profile city (orders carry coordinates but no city;
 * a driver works in one city). Used for city campaigns and for the admins' city scope of customers.
 */
const driverCity = async (ctx: AppContext, driverId: number): Promise<number | null> =>
  (await ctx.db.selectFrom('drivers').select('city_id').where('driver_id', '=', driverId).executeTakeFirst())?.city_id ?? null;

/**
 * The client's deliveries up to and including this one (delivered_at ≤ its time), so a late catch-up
 * that already sees later deliveries in the read model still attributes the milestone to the right order.
 */
const countDeliveries = async (ctx: AppContext, d: OrderDeliveredData, opts: { from: Date | null; cityId: number | null }): Promise<number> => {
  let q = ctx.db
    .selectFrom('order_views as o')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('o.client_id', '=', d.clientId)
    .where('o.status', '=', 'DELIVERED')
    .where('o.delivered_at', '<=', new Date(d.deliveredAt));
  if (opts.from) q = q.where('o.delivered_at', '>=', opts.from);
  if (opts.cityId !== null) q = q.innerJoin('drivers as d', 'd.driver_id', 'o.driver_id').where('d.city_id', '=', opts.cityId);
  return Number((await q.executeTakeFirstOrThrow()).n);
};

/** Campaigns of one audience running at the delivery time, oldest first. */
const runningCampaigns = (ctx: AppContext, audience: 'CLIENT' | 'DRIVER', at: Date) =>
  ctx.db
    .selectFrom('promotions')
    .selectAll()
    .where('audience', '=', audience)
    .where('active', '=', true)
    .where((eb) => eb.or([eb('starts_at', 'is', null), eb('starts_at', '<=', at)]))
    .where((eb) => eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', at)]))
    .orderBy('id')
    .execute();

/**
 * Client milestone grants: on each delivery, every CLIENT campaign running at the delivery time (and
 * platform-wide or of the order's city) whose milestone the client has reached grants its amount once.
 * The grant row (unique per campaign and client) gives the grant id; the credit stream ignores a grant id
 * it already holds, and the events' ids derive from the grant, so running twice grants nothing more.
 * DRIVER campaigns grant through driverBonuses below.
 */
const clientCredits = async (ctx: AppContext, e: Cause): Promise<number> => {
  const d = e.data as OrderDeliveredData;
  // The milestone is counted on the orders read model: wait until it holds this delivery.
  const position = (e as Partial<RecordedEvent>).globalPosition;
  if (position !== undefined) await ctx.settle(position);
  const deliveredAt = new Date(d.deliveredAt);
  const campaigns = await runningCampaigns(ctx, 'CLIENT', deliveredAt);
  // Grants this delivery already won are paid out again (idempotently) even if their campaign has since
  // stopped: a crash between the grant row and the credit must not lose the credit.
  const payouts = await ctx.db
    .selectFrom('promotion_grants')
    .selectAll()
    .where('user_id', '=', d.clientId)
    .where('order_id', '=', d.orderId)
    .where('audience', '=', 'CLIENT')
    .execute();
  const settled = new Set(payouts.map((g) => g.promotion_id));
  const orderCity = campaigns.length ? await driverCity(ctx, d.driverId) : null;
  for (const row of campaigns) {
    if (settled.has(row.id) || (row.city_id !== null && row.city_id !== orderCity)) continue;
    const campaign = toCampaign(row);
    const counted = await countDeliveries(ctx, d, { from: countingFrom(campaign), cityId: row.city_id });
    if (!milestoneReached(campaign, counted)) continue;
    const grant = await recordGrant(ctx.db, { promotionId: row.id, userId: d.clientId, orderId: d.orderId, at: deliveredAt, now: ctx.clock.now() });
    // A grant won by an earlier delivery was paid out by that delivery's reaction.
    if (grant && grant.order_id === d.orderId) payouts.push(grant);
  }
  let last = 0;
  for (const grant of payouts) {
    if (grant.credit_scope === null) continue;
    const { position: appended } = await ctx.handle(
      creditDecider,
      creditStream(d.clientId),
      { type: 'GrantCredit', clientId: d.clientId, grantId: grant.id, promotionId: grant.promotion_id, orderId: d.orderId, scope: grant.credit_scope, amountCents: grant.amount_cents, now: grant.created_at },
      { eventIds: (i) => derivedEventId(`promotion-grant-${grant.id}`, `credit/${i}`), metadata: { causationId: e.eventId } },
    );
    last = Math.max(last, appended);
  }
  return last;
};

/** The driver's deliveries up to and including this one, as countDeliveries counts a client's. */
const countDriverDeliveries = async (ctx: AppContext, d: OrderDeliveredData, opts: { from: Date | null }): Promise<number> => {
  let q = ctx.db
    .selectFrom('order_views as o')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('o.driver_id', '=', d.driverId)
    .where('o.status', '=', 'DELIVERED')
    .where('o.delivered_at', '<=', new Date(d.deliveredAt));
  if (opts.from) q = q.where('o.delivered_at', '>=', opts.from);
  return Number((await q.executeTakeFirstOrThrow()).n);
};

/**
 * Driver milestone grants (#10): the same rules as the clients' (a grant row per campaign and driver's
 * user), paid into the driver's wallet as PROMO_BONUS. The entry's id and cause derive from the grant, so
 * running twice records nothing more. A driver campaign's city is the driver's own city.
 */
const driverBonuses = async (ctx: AppContext, e: Cause): Promise<number> => {
  const d = e.data as OrderDeliveredData;
  const position = (e as Partial<RecordedEvent>).globalPosition;
  if (position !== undefined) await ctx.settle(position);
  const deliveredAt = new Date(d.deliveredAt);
  const driver = await ctx.db.selectFrom('drivers').select(['user_id', 'city_id']).where('driver_id', '=', d.driverId).executeTakeFirst();
  if (!driver) return 0;
  const payouts = await ctx.db
    .selectFrom('promotion_grants')
    .selectAll()
    .where('user_id', '=', driver.user_id)
    .where('order_id', '=', d.orderId)
    .where('audience', '=', 'DRIVER')
    .execute();
  const settled = new Set(payouts.map((g) => g.promotion_id));
  for (const row of await runningCampaigns(ctx, 'DRIVER', deliveredAt)) {
    if (settled.has(row.id) || (row.city_id !== null && row.city_id !== driver.city_id)) continue;
    const campaign = toCampaign(row);
    if (!milestoneReached(campaign, await countDriverDeliveries(ctx, d, { from: countingFrom(campaign) }))) continue;
    const grant = await recordGrant(ctx.db, { promotionId: row.id, userId: driver.user_id, orderId: d.orderId, at: deliveredAt, now: ctx.clock.now() });
    if (grant && grant.order_id === d.orderId) payouts.push(grant);
  }
  let last = 0;
  for (const grant of payouts) {
    const cause = `promotion-grant-${grant.id}`;
    const { position: appended } = await walletCommands(ctx).record(
      {
        driverId: d.driverId,
        entryId: derivedEventId(cause, 'wallet/PROMO_BONUS'),
        ledgerType: 'PROMO_BONUS',
        direction: 'CREDIT',
        amountCents: grant.amount_cents,
        orderId: null,
        receiptId: null,
        exchangeRateAmount: null,
        description: `Bono de la promoción #${grant.promotion_id}`,
        causeId: cause,
      },
      causedBy(e),
    );
    last = Math.max(last, appended);
  }
  return last;
};

export const milestoneGrantsProcess = processManager<AppContext>({
  name: 'promotion-milestone-grants',
  reactsTo: (e) => e.type === 'OrderDelivered',
  react: async (ctx, e) => Math.max(await clientCredits(ctx, e), await driverBonuses(ctx, e)),
});

/** Only the catch-up half: deliveries are decided in the order area, which does not call into promotions. */
export const milestoneGrantsJob = (ctx: AppContext, everyMs = 2000): ScheduledJob => milestoneGrantsProcess.catchUpJob(ctx, { everyMs });
