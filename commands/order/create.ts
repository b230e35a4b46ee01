import { randomInt } from 'node:crypto';
import { creditDecider, creditKindOf, usableCredit } from '../../domain/credit/credit.js';
import { creditStream } from '../../domain/credit/events.js';
import { conflict, unprocessable, validationError } from '../../domain/errors.js';
import { orderStream, type WaterType } from '../../domain/order/events.js';
import { orderDecider } from '../../domain/order/order.js';
import { PAYMENT_FORM, type PricingSettings } from '../../domain/pricing.js';
import type { AppContext } from '../../infra/context.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { billingSnapshotFor } from '../../stores/billing/billingQueries.js';
import { officialRateAt } from '../../stores/exchangeRates/exchangeRateQueries.js';
import { activePaymentForm } from '../../stores/paymentForms/paymentFormQueries.js';
import { findPaymentMethod } from '../../stores/paymentMethods/paymentMethodQueries.js';
import { loadState } from '../handle.js';
import { nextId } from '../origin.js';
import { reactToOrderEvents } from './reactions.js';
import { withCustomerSlot, withDriverSlot } from './slots.js';
import { nearestCityId } from '../../domain/city.js';
import { cityCentres } from '../../infra/cities/cityCentres.js';

/** Creating an order: reference data (method, rate, billing, credit) read once, then one decision. */

export const minutes = (n: number) => n * 60_000;

export const pricingSettingsOf = (ctx: AppContext): PricingSettings => ({
  platformCommissionPrc: ctx.config.PLATFORM_COMMISSION_PRC,
  clientSolidaryPrc: ctx.config.CLIENT_SOLIDARY_PRC,
  driverSolidaryPrc: ctx.config.DRIVER_SOLIDARY_PRC,
  platformSolidaryPrc: ctx.config.PLATFORM_SOLIDARY_PRC,
});

/** A 4-digit PIN the client hands over at delivery; drawn here because the domain holds no randomness. */
const newDeliveryPin = (): string => String(randomInt(0, 10_000)).padStart(4, '0');

/** 422 naming the field when the method is unknown or switched off, or the form is missing or inactive. */
export const assertSelectableMethod = async (ctx: AppContext, paymentMethod: string, paymentFormId: number | null | undefined): Promise<number | null> => {
  const method = await findPaymentMethod(ctx.db, paymentMethod);
  if (!method || !method.active) throw validationError({ paymentMethod: ['is not an available payment method'] });
  if (paymentMethod !== PAYMENT_FORM) return null;
  if (paymentFormId === undefined || paymentFormId === null) throw validationError({ paymentFormId: ['is required for PAYMENT_FORM'] });
  if (!(await activePaymentForm(ctx.db, paymentFormId))) throw validationError({ paymentFormId: ['is not an active payment form'] });
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

/** POST /orders (and, with `surplus`, the order a surplus reservation creates). */
export const createOrder = async (ctx: AppContext, input: CreateOrderInput, metadata?: EventMetadata) => {
  const now = ctx.clock.now();
  const paymentFormId = await assertSelectableMethod(ctx, input.paymentMethod, input.paymentFormId);
  const rate = await officialRateAt(ctx.db, now);
  if (!rate) throw unprocessable('ExchangeRateUnavailable', 'No official VES exchange rate is in force.');
  const snapshot = await billingSnapshotFor(ctx.db, input.clientId, input.billingProfileId, { required: ctx.config.BILLING_REQUIRED });
  const billing = snapshot && { entityType: snapshot.entity_type, idNumber: snapshot.id_number, name: snapshot.name, address: snapshot.address, phone: snapshot.phone };
  // A fresh id names no stream yet: the decision needs no read of it.
  const fresh = input.orderId === undefined;
  const orderId = input.orderId ?? (await nextId(ctx.db, 'order_id_seq'));
  const cityId = nearestCityId(await cityCentres(ctx.db), input);
  const create = async () => {
    const credit = await loadState(ctx.store, creditStream(input.clientId), creditDecider);
    const decided = await ctx.handle(
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
        surplus: input.surplus ? { ...input.surplus, paymentExpiresAt: new Date(now.getTime() + minutes(ctx.config.PAYMENT_WINDOW_MINUTES)) } : null,
      },
      { metadata, loaded: fresh ? { state: null, version: 0 } : undefined },
    );
    const reacted = await reactToOrderEvents(ctx, decided, { clientId: input.clientId, loaded: credit });
    return { orderId, position: Math.max(decided.position, reacted) };
  };
  const activeOrderExists = () => conflict('ActiveOrderExists', 'You already have an active order.');
  const withCustomer = () => withCustomerSlot(ctx, input.clientId, orderId, activeOrderExists, create, metadata);
  return input.surplus
    ? withDriverSlot(ctx, input.surplus.driverId, orderId, () => conflict('Conflict', 'The driver is busy with another order.'), withCustomer, metadata)
    : withCustomer();
};
