import type { CityCentre } from '../domain/city.js';
import { cityCentres } from '../infra/cities/cityCentres.js';
import type { Db } from '../infra/db/database.js';
import { findDriver, type DriverRecord } from '../projections/drivers/driverQueries.js';
import {
  activeOrderOfDriver,
  deliveriesOf,
  findOrderRow,
  orderFiguresOf,
  type DeliveryFacts,
  type DeliveryFilter,
  type OrderFigures,
} from '../projections/orders/orderQueries.js';
import type { OrderViewRow } from '../projections/orders/orderTables.js';
import { switchedOnCampaigns, type CampaignWindow } from '../projections/promotions/promotionQueries.js';
import { cityExists } from '../stores/identity/identityQueries.js';
import { billingSnapshotFor, type BillingSnapshot } from '../stores/billing/billingQueries.js';
import { officialRateAt } from '../stores/exchangeRates/exchangeRateQueries.js';
import type { ExchangeRate } from '../stores/exchangeRates/exchangeRates.js';
import { activePaymentForm, findPaymentForm } from '../stores/paymentForms/paymentFormQueries.js';
import type { PaymentForm } from '../stores/paymentForms/paymentForms.js';
import { findPaymentMethod } from '../stores/paymentMethods/paymentMethodQueries.js';
import type { PaymentMethod } from '../stores/paymentMethods/paymentMethods.js';

/**
 * What commands decide on besides the streams they write: other areas' records, each read as a function.
 * A command names `reference` among its dependencies instead of the database, so what it reads shows in
 * one list, and a test may hand in its own. The composition root builds it over the database.
 */
export interface ReferenceData {
  /** A payment method by code, switched on or off; null when unknown. */
  paymentMethod(code: string): Promise<PaymentMethod | null>;
  /** A manual payment form by id, active or not. */
  paymentForm(id: number): Promise<PaymentForm | null>;
  /** The form when it exists and is active. */
  activePaymentForm(id: number): Promise<PaymentForm | null>;
  /** The official VES rate in force at `at`, or null when none is. */
  officialRate(at: Date): Promise<ExchangeRate | null>;
  /** The billing data an order freezes: the given profile, the client's default, or none (see `required`). */
  billingSnapshot(
    clientId: number,
    profileId: number | null | undefined,
    options: { required: boolean },
  ): Promise<BillingSnapshot | null>;
  /** The centres of the cities that have one, in their display order. */
  cityCentres(): Promise<CityCentre[]>;
  /** A driver's record as of `today` (status, online, tank, last position). */
  driver(driverId: number, today: Date): Promise<DriverRecord | null>;
  /** An order as its read model shows it (parties, status), for the areas that hang off an order (chat). */
  order(orderId: number): Promise<OrderViewRow | null>;
  /** Whether the driver holds an order that is not finished. */
  driverHasActiveOrder(driverId: number): Promise<boolean>;
  /** Each known order's price, commission and delivery, as a settlement receipt's lines show them. */
  orderFigures(orderIds: readonly number[]): Promise<Map<number, OrderFigures>>;
  /** Whether the city exists (identity's cities). */
  cityExists(cityId: number): Promise<boolean>;
  /** A client's or a driver's delivered orders in a window, optionally in one city (milestone counting). */
  deliveries(filter: DeliveryFilter): Promise<DeliveryFacts[]>;
  /** The promotion campaigns switched on, with their audience, city and window, in id order. */
  switchedOnCampaigns(): Promise<CampaignWindow[]>;
}

export const referenceDataOf = (db: Db): ReferenceData => ({
  paymentMethod: (code) => findPaymentMethod(db, code),
  paymentForm: (id) => findPaymentForm(db, id),
  activePaymentForm: (id) => activePaymentForm(db, id),
  officialRate: (at) => officialRateAt(db, at),
  billingSnapshot: (clientId, profileId, options) => billingSnapshotFor(db, clientId, profileId, options),
  cityCentres: () => cityCentres(db),
  driver: (driverId, today) => findDriver(db, driverId, today),
  order: (orderId) => findOrderRow(db, orderId),
  driverHasActiveOrder: async (driverId) => (await activeOrderOfDriver(db, driverId)) !== null,
  orderFigures: (orderIds) => orderFiguresOf(db, orderIds),
  cityExists: (cityId) => cityExists(db, cityId),
  deliveries: (filter) => deliveriesOf(db, filter),
  switchedOnCampaigns: () => switchedOnCampaigns(db),
});
