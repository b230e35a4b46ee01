import { randomInt } from 'node:crypto';
import { creditDecider, creditKindOf, usableCredit } from '../../domain/credit/credit.js';
import { creditStream } from '../../domain/credit/events.js';
import { unprocessable, validationError } from '../../domain/errors.js';
import { orderStream, type WaterType } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { PAYMENT_FORM, type PricingSettings } from '../../domain/pricing.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { CommandDeps } from '../deps.js';
import { loadState } from '../handle.js';
import { nextId } from '../origin.js';
import { customerSlotFor, driverSlotFor } from './slots.js';
import { nearestCityId } from '../../domain/city.js';

/** Creating an order: reference data (method, rate, billing, credit) read once, then one decision. */

export const minutes = (n: number) => n * 60_000;

type PricingConfig = Pick<
  CommandDeps['config'],
  'PLATFORM_COMMISSION_PRC' | 'CLIENT_SOLIDARY_PRC' | 'DRIVER_SOLIDARY_PRC' | 'PLATFORM_SOLIDARY_PRC'
>;

export const pricingSettingsOf = (ctx: { config: PricingConfig }): PricingSettings => ({
  platformCommissionPrc: ctx.config.PLATFORM_COMMISSION_PRC,
  clientSolidaryPrc: ctx.config.CLIENT_SOLIDARY_PRC,
  driverSolidaryPrc: ctx.config.DRIVER_SOLIDARY_PRC,
  platformSolidaryPrc: ctx.config.PLATFORM_SOLIDARY_PRC,
});

/** A 4-digit PIN the client hands over at delivery; drawn here because the domain holds no randomness. */
const newDeliveryPin = (): string => String(randomInt(0, 10_000)).padStart(4, '0');

/** 422 naming the field when the method is unknown or switched off, or the form is missing or inactive. */
export const assertSelectableMethod = async (
  ctx: Pick<CommandDeps, 'reference'>,
  paymentMethod: string,
  paymentFormId: number | null | undefined,
): Promise<number | null> => {
  const method = await ctx.reference.paymentMethod(paymentMethod);
  if (!method || !method.active) throw validationError({ paymentMethod: ['is not an available payment method'] });
  if (paymentMethod !== PAYMENT_FORM) return null;
  if (paymentFormId === undefined || paymentFormId === null)
    throw validationError({ paymentFormId: ['is required for PAYMENT_FORM'] });
  if (!(await ctx.reference.activePaymentForm(paymentFormId)))
    throw validationError({ paymentFormId: ['is not an active payment form'] });
  return paymentFormId;
};

export interface CreateOrderInput {
  clientId: number;
  latitude: number;
  longitude: number;
  address: string;
  addressReference: string | null;
  litersRequested: number;
  /** The client's published price (basePrice), or a surplus listing's derived base price. */
  waterPriceCents: number;
  waterType: WaterType;
  paymentMethod: string;
  paymentFormId: number | null;
  notes: string | null;
  accessInstructions: string | null;
  /** undefined: the client's default profile; null: no billing. */
  billingProfileId: number | null | undefined;
  /** A surplus reservation: the listing's owner is the driver, no bidding. */
  surplus?: { listingId: number; driverId: number };
  /** Allocated beforehand (nextId) by a caller that records the order's id elsewhere first: the surplus reservation. */
  orderId?: number;
}

type CreateDeps = Pick<CommandDeps, 'handle' | 'clock' | 'logger' | 'store' | 'db' | 'reference'> & {
  config: PricingConfig &
    Pick<CommandDeps['config'], 'BILLING_REQUIRED' | 'ORDER_BROADCAST_MINUTES' | 'PAYMENT_WINDOW_MINUTES'>;
};

/**
 * POST /orders (and, with `surplus`, the order a surplus reservation creates). The client's slot (and, for
 * a surplus reservation, the driver's) is taken once the order is decided, before it is appended.
 */
export const createOrder = async (ctx: CreateDeps, input: CreateOrderInput, metadata?: EventMetadata) => {
  const now = ctx.clock.now();
  const paymentFormId = await assertSelectableMethod(ctx, input.paymentMethod, input.paymentFormId);
  const rate = await ctx.reference.officialRate(now);
  if (!rate) throw unprocessable('ExchangeRateUnavailable', 'No official VES exchange rate is in force.');
  const snapshot = await ctx.reference.billingSnapshot(input.clientId, input.billingProfileId, {
    required: ctx.config.BILLING_REQUIRED,
  });
  const billing = snapshot && {
    entityType: snapshot.entity_type,
    idNumber: snapshot.id_number,
    name: snapshot.name,
    address: snapshot.address,
    phone: snapshot.phone,
  };
  // A fresh id names no stream yet: the decision needs no read of it.
  const fresh = input.orderId === undefined;
  const orderId = input.orderId ?? (await nextId(ctx.db, 'order_id_seq'));
  const cityId = nearestCityId(await ctx.reference.cityCentres(), input);
  const credit = await loadState(ctx.store, creditStream(input.clientId), creditDecider);
  const reservations = [
    ...(input.surplus ? [driverSlotFor(ctx, input.surplus.driverId, orderId, metadata)] : []),
    customerSlotFor(ctx, input.clientId, orderId, metadata),
  ];
  const created = await ctx.handle(
    orderDecider,
    orderStream(orderId),
    {
      type: 'CreateOrder',
      orderId,
      clientId: input.clientId,
      latitude: input.latitude,
      longitude: input.longitude,
      address: input.address,
      addressReference: input.addressReference,
      litersRequested: input.litersRequested,
      waterPriceCents: input.waterPriceCents,
      waterType: input.waterType,
      paymentMethod: input.paymentMethod,
      paymentFormId,
      notes: input.notes,
      accessInstructions: input.accessInstructions,
      billing,
      officialRateCents: rate.rateCents,
      pricingSettings: pricingSettingsOf(ctx),
      creditAvailableCents: usableCredit(credit.state, creditKindOf(input.surplus?.listingId ?? null)),
      deliveryPin: newDeliveryPin(),
      cityId,
      now,
      expiresAt: new Date(now.getTime() + minutes(ctx.config.ORDER_BROADCAST_MINUTES)),
      surplus: input.surplus
        ? { ...input.surplus, paymentExpiresAt: new Date(now.getTime() + minutes(ctx.config.PAYMENT_WINDOW_MINUTES)) }
        : null,
    },
    {
      metadata,
      loaded: fresh ? { state: null, version: 0 } : undefined,
      read: [[creditStream(input.clientId), credit]],
      reservations,
    },
  );
  return { orderId, position: created.position };
};
