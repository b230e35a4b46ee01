import { conflict, notFound, unprocessable } from '../../domain/errors.js';
import { surplusStream } from '../../domain/surplus/events.js';
import {
  isOpen,
  surplusClientPrice,
  surplusDecider,
  type SurplusCommand,
  type SurplusState,
} from '../../domain/surplus/surplus.js';
import type { Actor } from '../../domain/actor.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { loadState } from '../handle.js';
import { assertSelectableMethod, createOrder, pricingSettingsOf } from '../order/create.js';
import { nextId, SYSTEM } from '../origin.js';

type Deps = Pick<CommandDeps, 'clock' | 'config' | 'db' | 'reference' | 'handle' | 'logger' | 'settle' | 'store'>;

/** A listing's command through the one handler. */
const onListing = (ctx: Deps, listingId: number, command: SurplusCommand, metadata?: EventMetadata) =>
  ctx.handle(surplusDecider, surplusStream(listingId), command, { metadata });

export const loadSurplus = async (ctx: Deps, listingId: number): Promise<SurplusState> =>
  (await loadState(ctx.store, surplusStream(listingId), surplusDecider)).state;

export interface ListSurplusInput {
  availableLiters: number;
  driverGrossCents: number;
  description: string | null;
  latitude: number;
  longitude: number;
  address: string;
  durationMinutes: number;
}

/** POST /surplus: an approved driver without an active order publishes what is left in the tank. */
export const listSurplus = async (ctx: Deps, actor: Actor, input: ListSurplusInput, metadata?: EventMetadata) => {
  const now = ctx.clock.now();
  const driver = actor.driverId ? await ctx.reference.driver(actor.driverId, now) : null;
  if (!driver || driver.status !== 'ACTIVE') throw conflict('Conflict', 'Only an approved driver may publish surplus.');
  const driverHasActiveOrder = await ctx.reference.driverHasActiveOrder(driver.driverId);
  const listingId = await nextId(ctx.db, 'surplus_listing_id_seq');
  const result = await onListing(
    ctx,
    listingId,
    {
      type: 'ListSurplus',
      listingId,
      driverId: driver.driverId,
      cityId: driver.cityId,
      driverHasActiveOrder,
      ...input,
      now,
    },
    metadata,
  );
  return { listingId, position: result.position };
};

/** DELETE /surplus/{id} and POST /surplus/{id}/cancel. */
export const cancelSurplus = async (ctx: Deps, actor: Actor, listingId: number, metadata?: EventMetadata) => {
  const result = await onListing(
    ctx,
    listingId,
    { type: 'CancelSurplus', driverId: actor.driverId ?? -1, now: ctx.clock.now() },
    metadata,
  );
  return { position: result.position };
};

export interface ReserveSurplusInput {
  listingId: number;
  latitude: number;
  longitude: number;
  address: string;
  addressReference: string | null;
  paymentMethod: string;
  paymentFormId: number | null;
}

/**
 * POST /surplus/{id}/reserve. The listing is reserved first, on its own stream, naming the order id it
 * will create: of two clients racing for it, exactly one gets the reservation. Then the order is created
 * (skipping bidding, the listing's owner as driver). If that fails (the client or the driver already holds
 * an order, a refused method…), the reservation is released and the listing is ACTIVA again.
 */
export const reserveSurplus = async (ctx: Deps, actor: Actor, input: ReserveSurplusInput, metadata?: EventMetadata) => {
  const listing = await loadSurplus(ctx, input.listingId);
  if (!listing) throw notFound('NotFound', 'Surplus listing not found.');
  // Checks that need no reservation come first, so a refused request never flips the listing.
  if (!isOpen(listing, ctx.clock.now()))
    throw conflict('Conflict', 'This listing is no longer available (sold, cancelled or expired).');
  await assertSelectableMethod(ctx, input.paymentMethod, input.paymentFormId);
  if (!(await ctx.reference.officialRate(ctx.clock.now())))
    throw unprocessable('ExchangeRateUnavailable', 'No official VES exchange rate is in force.');

  const orderId = await nextId(ctx.db, 'order_id_seq');
  const reserved = await onListing(
    ctx,
    input.listingId,
    { type: 'ReserveSurplus', orderId, clientId: actor.id, now: ctx.clock.now() },
    metadata,
  );
  try {
    const created = await createOrder(
      ctx,
      {
        orderId,
        clientId: actor.id,
        latitude: input.latitude,
        longitude: input.longitude,
        address: input.address,
        addressReference: input.addressReference,
        litersRequested: listing.availableLiters,
        waterPriceCents: surplusClientPrice(listing.driverGrossCents, input.paymentMethod, pricingSettingsOf(ctx))
          .basePriceCents,
        waterType: 'POTABLE',
        paymentMethod: input.paymentMethod,
        paymentFormId: input.paymentFormId,
        notes: null,
        accessInstructions: null,
        billingProfileId: undefined,
        surplus: { listingId: input.listingId, driverId: listing.driverId },
      },
      metadata,
    );
    return { orderId, position: Math.max(reserved.position, created.position) };
  } catch (err) {
    try {
      // Settled before the error answers, so the caller's next read already shows the listing ACTIVA.
      const released = await onListing(
        ctx,
        input.listingId,
        { type: 'ReleaseReservation', orderId, now: ctx.clock.now() },
        metadata,
      );
      await ctx.settle(released.position);
    } catch (releaseErr) {
      ctx.logger.error({ err: releaseErr, listingId: input.listingId }, 'releasing a surplus reservation failed');
    }
    throw err;
  }
};

/** Timer: a no-op when the listing was reserved or cancelled meanwhile, or is not yet due. */
export const expireSurplus = (ctx: Deps, listingId: number) =>
  onListing(ctx, listingId, { type: 'ExpireSurplus', now: ctx.clock.now() }, SYSTEM);
