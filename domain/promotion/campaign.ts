import { conflict, notFound, validationError } from '../errors.js';
import type { PromotionEvent, PromotionTerms } from './events.js';
import {
  combinationErrors,
  countingFrom,
  frozenFieldsTouched,
  isRunning,
  milestoneReached,
  type Campaign,
} from './promotion.js';

/**
 * The user ids granted, newest first, as a persistent list: every delivery folds each running campaign's
 * whole stream, one grant per recipient, and an array copied per grant made that fold quadratic (8 s at
 * 20,000 grants); the one lookup per decision is a scan.
 */
type Granted = { readonly userId: number; readonly rest: Granted } | null;

/**
 * A promotion campaign as its stream folds: its terms, what it has granted and to whom. Null before it
 * is created; a deleted campaign keeps its stream but answers as unknown.
 */
export interface CampaignState {
  promotionId: number;
  terms: PromotionTerms;
  createdAt: string;
  /** Users granted, one grant each. */
  granted: Granted;
  /** How many: the grants count the cap and the frozen terms read. */
  grantsCount: number;
  deleted: boolean;
}

const wasGranted = (s: CampaignState, userId: number): boolean => {
  for (let g = s.granted; g !== null; g = g.rest) if (g.userId === userId) return true;
  return false;
};

export type PromotionState = CampaignState | null;
export const initialState: PromotionState = null;

export const evolve = (state: PromotionState, event: PromotionEvent): PromotionState => {
  switch (event.type) {
    case 'PromotionCreated':
      return {
        promotionId: event.data.promotionId,
        terms: event.data.terms,
        createdAt: event.data.createdAt,
        granted: null,
        grantsCount: 0,
        deleted: false,
      };
    case 'PromotionUpdated':
      return state && { ...state, terms: { ...state.terms, ...event.data.changes } };
    case 'PromotionDeleted':
      return state && { ...state, deleted: true };
    case 'PromotionGranted':
      return (
        state && {
          ...state,
          granted: { userId: event.data.userId, rest: state.granted },
          grantsCount: state.grantsCount + 1,
        }
      );
  }
};

/** The campaign's window as the rules (promotion.ts) read it: dates, not the event's strings. */
const windowOf = (t: Pick<PromotionTerms, 'startsAt' | 'endsAt'>): Pick<Campaign, 'startsAt' | 'endsAt'> => ({
  startsAt: t.startsAt === null ? null : new Date(t.startsAt),
  endsAt: t.endsAt === null ? null : new Date(t.endsAt),
});

export const campaignOf = (s: CampaignState): Campaign => ({
  audience: s.terms.audience,
  creditScope: s.terms.creditScope,
  milestoneOrders: s.terms.milestoneOrders,
  milestoneBasis: s.terms.milestoneBasis,
  amountCents: s.terms.amountCents,
  cityId: s.terms.cityId,
  ...windowOf(s.terms),
  maxGrants: s.terms.maxGrants,
  grantsCount: s.grantsCount,
  active: s.terms.active,
  createdAt: new Date(s.createdAt),
});

/** Where the milestone's deliveries are counted from (null: the recipient's whole history). */
export const deliveriesCountedFrom = (s: CampaignState): Date | null => countingFrom(campaignOf(s));

export interface CreatePromotion {
  type: 'CreatePromotion';
  promotionId: number;
  terms: PromotionTerms;
  /** Whether terms.cityId names a city (reference data the handler reads before deciding). */
  cityKnown: boolean;
  now: Date;
}

export interface UpdatePromotion {
  type: 'UpdatePromotion';
  changes: Partial<PromotionTerms>;
  /** The body's field names, as the spec lists the frozen ones (amount_usd, not amountCents). */
  sentFields: readonly string[];
  cityKnown: boolean;
  now: Date;
}

export interface DeletePromotion {
  type: 'DeletePromotion';
  now: Date;
}

/** What a delivery tells a campaign about one recipient: the facts the milestone is judged on. */
export interface GrantMilestone {
  type: 'GrantMilestone';
  grantId: number;
  userId: number;
  driverId: number | null;
  orderId: number;
  /** The city the order was served in (its driver's city). */
  cityId: number | null;
  deliveredAt: Date;
  /** The recipient's deliveries counted from deliveriesCountedFrom(state), this one included. */
  countedDeliveries: number;
  now: Date;
}

export type PromotionCommand = CreatePromotion | UpdatePromotion | DeletePromotion | GrantMilestone;

export const promotionNotFound = () => notFound('PromotionNotFound', 'Promotion not found.');

const checkTerms = (terms: PromotionTerms, cityKnown: boolean): void => {
  const errors = combinationErrors({ audience: terms.audience, creditScope: terms.creditScope, ...windowOf(terms) });
  if (Object.keys(errors).length) throw validationError(errors);
  if (terms.cityId !== null && !cityKnown) throw validationError({ city_id: ['Unknown city.'] });
};

/**
 * Whether a delivery may grant this campaign to its recipient, the milestone aside: running at the delivery
 * time (active, in its window, under its cap), of the order's city or platform-wide, not yet granted to them.
 */
export const opensTo = (
  state: PromotionState,
  cmd: Pick<GrantMilestone, 'userId' | 'cityId' | 'deliveredAt'>,
): state is CampaignState =>
  state !== null &&
  !state.deleted &&
  !wasGranted(state, cmd.userId) &&
  (state.terms.cityId === null || state.terms.cityId === cmd.cityId) &&
  isRunning(campaignOf(state), cmd.deliveredAt);

/**
 * Whether a delivery grants this campaign to its recipient: it is open to them and their counted
 * deliveries reach the milestone. Judged again on every attempt, so two deliveries racing for the last
 * grant under a cap get one.
 */
export const grants = (
  state: PromotionState,
  cmd: Omit<GrantMilestone, 'type' | 'grantId' | 'now'>,
): state is CampaignState => opensTo(state, cmd) && milestoneReached(campaignOf(state), cmd.countedDeliveries);

export const decide = (cmd: PromotionCommand, state: PromotionState): PromotionEvent[] => {
  switch (cmd.type) {
    case 'CreatePromotion': {
      if (state !== null) throw conflict('Conflict', 'This promotion already exists.');
      checkTerms(cmd.terms, cmd.cityKnown);
      return [
        {
          type: 'PromotionCreated',
          data: { promotionId: cmd.promotionId, terms: cmd.terms, createdAt: cmd.now.toISOString() },
        },
      ];
    }
    case 'UpdatePromotion': {
      if (state === null || state.deleted) throw promotionNotFound();
      const frozen = frozenFieldsTouched(state.grantsCount, cmd.sentFields);
      if (frozen.length)
        throw conflict(
          'PromotionAlreadyGranted',
          `The campaign has grants; these fields can no longer change: ${frozen.join(', ')}.`,
          { fields: frozen },
        );
      // Combinations are checked on the effective terms; the city only when it is the one sent.
      checkTerms({ ...state.terms, ...cmd.changes }, cmd.changes.cityId === undefined || cmd.cityKnown);
      if (Object.keys(cmd.changes).length === 0) return [];
      return [
        {
          type: 'PromotionUpdated',
          data: { promotionId: state.promotionId, changes: cmd.changes, updatedAt: cmd.now.toISOString() },
        },
      ];
    }
    case 'DeletePromotion': {
      if (state === null || state.deleted) throw promotionNotFound();
      if (state.grantsCount > 0)
        throw conflict('PromotionHasGrants', 'The campaign has grants and cannot be deleted; deactivate it instead.');
      return [{ type: 'PromotionDeleted', data: { promotionId: state.promotionId, deletedAt: cmd.now.toISOString() } }];
    }
    case 'GrantMilestone': {
      // A campaign that does not grant (stopped, capped, granted already) is no refusal: nothing to do.
      if (!grants(state, cmd)) return [];
      return [
        {
          type: 'PromotionGranted',
          data: {
            promotionId: state.promotionId,
            grantId: cmd.grantId,
            audience: state.terms.audience,
            userId: cmd.userId,
            driverId: cmd.driverId,
            orderId: cmd.orderId,
            creditScope: state.terms.creditScope,
            amountCents: state.terms.amountCents,
            grantedAt: cmd.now.toISOString(),
          },
        },
      ];
    }
  }
};

export const promotionDecider = { initialState, evolve, decide };
