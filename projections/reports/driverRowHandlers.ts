import type {
  DriverApprovedData,
  DriverDocumentRecordedData,
  DriverKycSubmittedData,
  DriverOnlineChangedData,
  DriverProfileUpdatedData,
  DriverRegisteredData,
  DriverRejectedData,
  DriverReinstatedData,
  DriverRenamedData,
  DriverSuspendedData,
  DriverTankUpdatedData,
} from '../../domain/driver/events.js';
import type { PayoutAccountSetData } from '../../domain/wallet/events.js';
import type { Trx } from '../../infra/db/database.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import type { EventHandler } from '../projector.js';
import type { ReportDriverRow } from './reportTables.js';

type E<D> = RecordedEvent<string, D>;

/**
 * The wallet's ledger event (stream wallet-<driverId>, issue #10), read by its type and fields only: the
 * report keeps the running balance, and cash debt is max(0, −balance) at query time.
 */
export interface LedgerEntryRecordedData {
  driverId: number;
  entryId: string | number;
  type: string;
  direction: 'CREDIT' | 'DEBIT';
  amountCents: number;
  balanceAfterCents: number;
}

const update = (trx: Trx, driverId: number, at: string | null, set: Partial<ReportDriverRow>) =>
  trx
    .updateTable('report_drivers')
    .set(at === null ? set : { ...set, last_activity_at: new Date(at) })
    .where('driver_id', '=', driverId)
    .execute();

/** report_drivers and report_driver_documents from the driver and wallet streams. */
export const driverRowHandlers: Record<string, EventHandler> = {
  DriverRegistered: (trx, { data: d }: E<DriverRegisteredData>) =>
    trx
      .insertInto('report_drivers')
      .values({
        driver_id: d.driverId,
        name: d.name,
        id_number: null,
        phone: d.phone,
        registered_at: new Date(d.registeredAt),
        status: 'PENDING_VERIFICATION',
        kyc_state: 'PENDING_KYC',
        kyc_approved_at: null,
        block_reason: null,
        is_online: false,
        plate: null,
        capacity_liters: null,
        city_id: null,
        deliveries: 0,
        own_cancellations: 0,
        liters_delivered: 0,
        gross_earnings_cents: 0,
        commission_paid_cents: 0,
        solidary_cents: 0,
        balance_cents: 0,
        rating_sum: 0,
        ratings_count: 0,
        incidents: 0,
        last_activity_at: new Date(d.registeredAt),
      })
      .onConflict((oc) => oc.column('driver_id').doNothing())
      .execute(),
  DriverRenamed: (trx, { data: d }: E<DriverRenamedData>) => update(trx, d.driverId, null, { name: d.name }),
  DriverProfileUpdated: (trx, { data: d }: E<DriverProfileUpdatedData>) =>
    update(trx, d.driverId, d.at, { plate: d.plate, capacity_liters: d.capacityLiters, city_id: d.cityId }),
  DriverDocumentRecorded: (trx, { data: d }: E<DriverDocumentRecordedData>) =>
    trx
      .insertInto('report_driver_documents')
      .values({ driver_id: d.driverId, type: d.type, expires_at: d.expiresAt, recorded_at: new Date(d.recordedAt) })
      .onConflict((oc) =>
        oc.columns(['driver_id', 'type']).doUpdateSet({ expires_at: d.expiresAt, recorded_at: new Date(d.recordedAt) }),
      )
      .execute(),
  DriverKycSubmitted: (trx, { data: d }: E<DriverKycSubmittedData>) =>
    update(trx, d.driverId, d.at, { kyc_state: 'PENDING_REVIEW', status: 'PENDING_VERIFICATION', block_reason: null }),
  DriverApproved: (trx, { data: d }: E<DriverApprovedData>) =>
    update(trx, d.driverId, null, {
      kyc_state: 'APPROVED',
      status: 'ACTIVE',
      block_reason: null,
      kyc_approved_at: new Date(d.at),
    }),
  DriverRejected: (trx, { data: d }: E<DriverRejectedData>) =>
    update(trx, d.driverId, null, {
      kyc_state: 'REJECTED',
      status: 'REJECTED',
      block_reason: d.reason,
      is_online: false,
    }),
  DriverSuspended: (trx, { data: d }: E<DriverSuspendedData>) =>
    update(trx, d.driverId, null, { status: 'SUSPENDED', block_reason: d.reason, is_online: false }),
  DriverReinstated: (trx, { data: d }: E<DriverReinstatedData>) =>
    update(trx, d.driverId, null, { status: 'ACTIVE', block_reason: null }),
  DriverWentOnline: (trx, { data: d }: E<DriverOnlineChangedData>) =>
    update(trx, d.driverId, d.at, { is_online: true }),
  DriverWentOffline: (trx, { data: d }: E<DriverOnlineChangedData>) =>
    update(trx, d.driverId, d.at, { is_online: false }),
  DriverTankUpdated: (trx, { data: d }: E<DriverTankUpdatedData>) => update(trx, d.driverId, d.at, {}),
  LedgerEntryRecorded: (trx, { data: d }: E<LedgerEntryRecordedData>) =>
    update(trx, d.driverId, null, { balance_cents: d.balanceAfterCents }),
  // A bank-transfer account may carry no id: the driver's national id stays the last one recorded.
  PayoutAccountSet: (trx, { data: d }: E<PayoutAccountSetData>) =>
    d.idNumber === null ? Promise.resolve() : update(trx, d.driverId, null, { id_number: d.idNumber }),
};
