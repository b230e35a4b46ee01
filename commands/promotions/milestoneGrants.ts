import { creditDecider } from '../../domain/credit/credit.js';
import { creditStream } from '../../domain/credit/events.js';
import type { OrderDeliveredData } from '../../domain/order/events.js';
import {
  deliveriesCountedFrom,
  grants,
  opensTo,
  promotionDecider,
  type GrantMilestone,
  type PromotionState,
} from '../../domain/promotion/campaign.js';
import { promotionStream, type PromotionGrantedData } from '../../domain/promotion/events.js';
import {
  countedDeliveries,
  type MilestoneCountingRules,
  type MilestoneDelivery,
} from '../../domain/promotion/milestoneCounting.js';
import { inWindow, type Audience } from '../../domain/promotion/promotion.js';
import { usdToCents } from '../../domain/money.js';
import type { Config } from '../../infra/config.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import type { ScheduledJob } from '../../infra/scheduler.js';
import { derivedEventId, nextId } from '../origin.js';
import { processManager, send, type Cause, type ReactionContext, type Send, type Streams } from '../processManager.js';
import { loadSettlementConfig } from '../settlement/settlementConfig.js';
import { sendToWallet } from '../wallet/handlers.js';
import type { ReferenceData } from '../referenceData.js';

type GrantContext = ReactionContext & {
  config: Pick<Config, 'PROMO_MIN_LITERS' | 'PROMO_MIN_USD'>;
  reference: Pick<ReferenceData, 'driver' | 'deliveries' | 'switchedOnCampaigns'>;
};

/**
 * Milestone grants (docs/domain-rules.md, promotion campaigns): a delivery tells every campaign running at its time
 * about its client and its driver; a campaign whose milestone they reached grants once (its own stream
 * decides: domain/promotion/campaign.ts); each grant then pays out on the recipient's stream, a client's
 * credit (PROMO_GRANT) or a driver's wallet (PROMO_BONUS).
 */

/** One campaign a delivery may grant, for one recipient: the campaign as its stream stands and the facts. */
export interface GrantCandidate {
  promotionId: number;
  campaign: PromotionState;
  /** Minted before deciding, only for a candidate the campaign grants as it stands (null otherwise). */
  grantId: number | null;
  facts: Omit<GrantMilestone, 'type' | 'grantId' | 'now'>;
}

export type GrantReactionState = GrantCandidate[];

/** The ids of a grant's payout follow from the grant, so paying it twice appends nothing. */
const grantCause = (grantId: number) => `promotion-grant-${grantId}`;

const payout = (g: PromotionGrantedData): Send[] => {
  const cause = grantCause(g.grantId);
  if (g.audience === 'DRIVER') {
    if (g.driverId === null) return [];
    const entryId = derivedEventId(cause, 'wallet/PROMO_BONUS');
    return [
      sendToWallet(
        {
          type: 'RecordEntry',
          driverId: g.driverId,
          entryId,
          ledgerType: 'PROMO_BONUS',
          direction: 'CREDIT',
          amountCents: g.amountCents,
          orderId: null,
          receiptId: null,
          exchangeRateAmount: null,
          description: `Bono de la promoción #${g.promotionId}`,
          causeId: cause,
          now: new Date(g.grantedAt),
        },
        'wallet/PROMO_BONUS',
      ),
    ];
  }
  if (g.creditScope === null) return [];
  return [
    send(
      creditDecider,
      creditStream(g.userId),
      {
        type: 'GrantCredit',
        clientId: g.userId,
        grantId: g.grantId,
        promotionId: g.promotionId,
        orderId: g.orderId,
        scope: g.creditScope,
        amountCents: g.amountCents,
        now: new Date(g.grantedAt),
      },
      'credit',
      { eventIds: (i) => derivedEventId(cause, `credit/${i}`) },
    ),
  ];
};

/**
 * Pure: a delivery sends each candidate campaign that grants its recipient a GrantMilestone (the campaign
 * decides again on its stream, so a cap reached meanwhile grants nothing); a grant pays out.
 */
export const grantReactions = (e: Cause, candidates: GrantReactionState, now: Date): Send[] => {
  if (e.type === 'PromotionGranted') return payout(e.data as PromotionGrantedData);
  return candidates
    .filter((c) => c.grantId !== null && grants(c.campaign, c.facts))
    .map((c) =>
      send(
        promotionDecider,
        promotionStream(c.promotionId),
        { type: 'GrantMilestone', grantId: c.grantId!, ...c.facts, now },
        `promotion-${c.promotionId}/grant/${c.facts.userId}`,
      ),
    );
};

/**
 * Campaigns of one audience switched on and running at the delivery time in its city (reference data, kept
 * in memory until a campaign changes; each campaign's stream has the last word).
 */
const runningCampaigns = async (ctx: GrantContext, audience: Audience, at: Date, cityId: number | null) =>
  (await ctx.reference.switchedOnCampaigns()).filter(
    (c) => c.audience === audience && inWindow(c, at) && (c.cityId === null || c.cityId === cityId),
  );

/**
 * A recipient's deliveries up to and including this one (delivered_at ≤ its time), so a late catch-up that
 * already sees later deliveries in the read model still attributes the milestone to the right order. A
 * city campaign counts the client's deliveries in its city only. Only those that count towards a
 * milestone are returned (domain/promotion/milestoneCounting.ts).
 */
const milestoneDeliveriesOf = async (
  ctx: GrantContext,
  d: OrderDeliveredData,
  who: { clientId: number } | { driverId: number },
  from: Date | null,
  cityId: number | null,
  rules: MilestoneCountingRules,
): Promise<MilestoneDelivery[]> => {
  const at = new Date(d.deliveredAt).getTime();
  const found = await ctx.reference.deliveries({ who, upTo: new Date(d.deliveredAt), from, cityId });
  // Deliveries at the same instant are taken in order id order: a later order never counts before this one.
  return countedDeliveries(
    found.filter((r) => r.deliveredAt.getTime() < at || r.orderId <= d.orderId),
    rules,
  );
};
/**
 * I/O: the campaigns a delivery may grant, each read from its stream, with the recipient's counted
 * deliveries and, where the campaign grants, a grant id. The city an order was served in is its driver's
 * profile city (orders carry coordinates but no city; a driver works in one city).
 */
const deliveryCandidates = async (ctx: GrantContext, streams: Streams, e: Cause): Promise<GrantReactionState> => {
  const d = e.data as OrderDeliveredData;
  // Milestones are counted on the orders read model: wait until it holds this delivery.
  const position = (e as Partial<RecordedEvent>).globalPosition;
  if (position !== undefined) await ctx.settle(position);
  const deliveredAt = new Date(d.deliveredAt);
  const driver = await ctx.reference.driver(d.driverId, deliveredAt);
  if (!driver) return [];
  const rules: MilestoneCountingRules = {
    minLiters: ctx.config.PROMO_MIN_LITERS,
    minCents: usdToCents(ctx.config.PROMO_MIN_USD),
    timezone: (await loadSettlementConfig(ctx)).timezone,
  };
  const recipients = [
    { audience: 'CLIENT' as const, userId: d.clientId, driverId: null, who: { clientId: d.clientId } },
    { audience: 'DRIVER' as const, userId: driver.userId, driverId: d.driverId, who: { driverId: d.driverId } },
  ];
  const candidates: GrantCandidate[] = [];
  for (const r of recipients) {
    for (const { id } of await runningCampaigns(ctx, r.audience, deliveredAt, driver.cityId)) {
      const campaign = await streams.read(promotionStream(id), promotionDecider);
      const recipient = { userId: r.userId, cityId: driver.cityId, deliveredAt };
      // Deliveries are counted only where the campaign as it stands could grant at all.
      if (!opensTo(campaign, recipient)) continue;
      // A client's city campaign counts deliveries in its city; a driver's are all in the driver's city.
      const countedCity = r.audience === 'CLIENT' ? campaign.terms.cityId : null;
      const counted = await milestoneDeliveriesOf(ctx, d, r.who, deliveriesCountedFrom(campaign), countedCity, rules);
      // A delivery that does not count moves no milestone: it grants nothing.
      if (!counted.some((c) => c.orderId === d.orderId)) continue;
      const facts = {
        ...recipient,
        driverId: r.driverId,
        orderId: d.orderId,
        countedDeliveries: counted.length,
      };
      const grantId = grants(campaign, facts) ? await nextId(ctx.db, 'promotion_grant_id_seq') : null;
      candidates.push({ promotionId: id, campaign, grantId, facts });
    }
  }
  return candidates;
};

export const milestoneGrantsProcess = (ctx: GrantContext) =>
  processManager<GrantContext, GrantReactionState>({
    name: 'promotion-milestone-grants',
    reactsTo: (e) => (e.type === 'OrderDelivered' && e.streamId.startsWith('order-')) || e.type === 'PromotionGranted',
    stateOf: (streams, e) => (e.type === 'OrderDelivered' ? deliveryCandidates(ctx, streams, e) : Promise.resolve([])),
    decide: grantReactions,
  });

/** Only the catch-up half: deliveries are decided in the order area, which does not call into promotions. */
export const milestoneGrantsJob = (ctx: GrantContext, everyMs = 2000): ScheduledJob =>
  milestoneGrantsProcess(ctx).catchUpJob(ctx, { everyMs });
