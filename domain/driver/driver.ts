import type { Decider } from '../decider.js';
import { conflict, notFound, validationError } from '../errors.js';
import {
  REQUIRED_DOCUMENT_TYPES,
  type DocumentType,
  type DriverEvent,
  type DriverStatus,
  type KycState,
} from './events.js';

export interface DriverState {
  driverId: number | null;
  status: DriverStatus;
  kycState: KycState;
  profile: { plate: string; capacityLiters: number; cityId: number } | null;
  name: string | null;
  /** Expiry (ISO date or null) of the latest record of each type. */
  documents: Partial<Record<DocumentType, string | null>>;
  isOnline: boolean;
  availableLiters: number;
}

export const initialState: DriverState = {
  driverId: null,
  status: 'PENDING_VERIFICATION',
  kycState: 'PENDING_KYC',
  profile: null,
  name: null,
  documents: {},
  isOnline: false,
  availableLiters: 0,
};

type At = { now: Date };
export type DriverCommand =
  | ({ type: 'RegisterDriver'; driverId: number; userId: number; phone: string; name: string | null } & At)
  | ({ type: 'RenameDriver'; name: string } & At)
  | ({ type: 'UpdateProfile'; plate: string; capacityLiters: number; cityId: number } & At)
  | ({ type: 'RecordDocument'; documentType: DocumentType; expiresAt: string | null; fileUrl: string | null } & At)
  | ({ type: 'ApproveDriver'; adminId: number } & At)
  | ({ type: 'RejectDriver'; adminId: number; reason: string } & At)
  | ({ type: 'SuspendDriver'; adminId: number; reason: string } & At)
  | ({ type: 'ReinstateDriver'; adminId: number } & At)
  /** `allowed` is the verdict of the other areas' checks (cash debt cap), fetched by the handler. */
  | ({ type: 'SetOnline'; online: boolean; allowed: boolean } & At)
  | ({ type: 'UpdateTank'; availableLiters: number } & At);

export const evolve = (s: DriverState, e: DriverEvent): DriverState => {
  switch (e.type) {
    case 'DriverRegistered':
      return { ...s, driverId: e.data.driverId, name: e.data.name };
    case 'DriverRenamed':
      return { ...s, name: e.data.name };
    case 'DriverProfileUpdated':
      return { ...s, profile: { plate: e.data.plate, capacityLiters: e.data.capacityLiters, cityId: e.data.cityId } };
    case 'DriverDocumentRecorded':
      return { ...s, documents: { ...s.documents, [e.data.type]: e.data.expiresAt } };
    case 'DriverKycSubmitted':
      return { ...s, kycState: 'PENDING_REVIEW', status: 'PENDING_VERIFICATION' };
    case 'DriverApproved':
      return { ...s, kycState: 'APPROVED', status: 'ACTIVE' };
    case 'DriverRejected':
      return { ...s, kycState: 'REJECTED', status: 'REJECTED', isOnline: false };
    case 'DriverSuspended':
      return { ...s, status: 'SUSPENDED', isOnline: false };
    case 'DriverReinstated':
      return { ...s, status: 'ACTIVE' };
    case 'DriverWentOnline':
      return { ...s, isOnline: true };
    case 'DriverWentOffline':
      return { ...s, isOnline: false };
    case 'DriverTankUpdated':
      return { ...s, availableLiters: e.data.availableLiters };
  }
};

const isoDate = (d: Date): string => d.toISOString().slice(0, 10);

/** A document counts while its expiry date (inclusive) has not passed. */
const isCurrent = (expiresAt: string | null | undefined, now: Date): boolean =>
  expiresAt === null || (expiresAt !== undefined && expiresAt >= isoDate(now));

const hasRequiredDocuments = (s: DriverState, now: Date): boolean =>
  REQUIRED_DOCUMENT_TYPES.every((t) => isCurrent(s.documents[t], now));

/** After a profile or document change: an incomplete or rejected application becomes ready for review. */
const submitIfComplete = (s: DriverState, now: Date): DriverEvent[] =>
  (s.kycState === 'PENDING_KYC' || s.kycState === 'REJECTED') && s.profile && hasRequiredDocuments(s, now)
    ? [{ type: 'DriverKycSubmitted', data: { driverId: s.driverId!, at: now.toISOString() } }]
    : [];

const wrongStatus = (message: string) => conflict('WrongStatus', message);

export const decide = (cmd: DriverCommand, s: DriverState): DriverEvent[] => {
  const at = cmd.now.toISOString();
  if (cmd.type === 'RegisterDriver') {
    if (s.driverId !== null) return [];
    return [
      {
        type: 'DriverRegistered',
        data: { driverId: cmd.driverId, userId: cmd.userId, phone: cmd.phone, name: cmd.name, registeredAt: at },
      },
    ];
  }
  if (s.driverId === null) throw notFound('DriverNotFound', 'No such driver.');
  const driverId = s.driverId;
  switch (cmd.type) {
    case 'RenameDriver':
      return s.name === cmd.name ? [] : [{ type: 'DriverRenamed', data: { driverId, name: cmd.name, at } }];
    case 'UpdateProfile': {
      if (cmd.capacityLiters < s.availableLiters)
        throw validationError({ capacityLiters: ['The tank holds more water than this capacity.'] });
      const e: DriverEvent = {
        type: 'DriverProfileUpdated',
        data: { driverId, plate: cmd.plate, capacityLiters: cmd.capacityLiters, cityId: cmd.cityId, at },
      };
      return [e, ...submitIfComplete(evolve(s, e), cmd.now)];
    }
    case 'RecordDocument': {
      if (cmd.expiresAt !== null && !isCurrent(cmd.expiresAt, cmd.now))
        throw validationError({ expiresAt: ['The document has already expired.'] });
      const e: DriverEvent = {
        type: 'DriverDocumentRecorded',
        data: { driverId, type: cmd.documentType, expiresAt: cmd.expiresAt, fileUrl: cmd.fileUrl, recordedAt: at },
      };
      return [e, ...submitIfComplete(evolve(s, e), cmd.now)];
    }
    case 'ApproveDriver':
      if (s.status !== 'PENDING_VERIFICATION') throw wrongStatus(`A driver in ${s.status} cannot be approved.`);
      if (s.kycState !== 'PENDING_REVIEW' || !hasRequiredDocuments(s, cmd.now))
        throw wrongStatus('The vehicle profile or a required document (ID_FRONT, LICENSE) is missing or expired.');
      return [{ type: 'DriverApproved', data: { driverId, adminId: cmd.adminId, at } }];
    case 'RejectDriver':
      if (s.status !== 'PENDING_VERIFICATION') throw wrongStatus(`A driver in ${s.status} cannot be rejected.`);
      return [{ type: 'DriverRejected', data: { driverId, adminId: cmd.adminId, reason: cmd.reason, at } }];
    case 'SuspendDriver':
      if (s.status !== 'ACTIVE') throw wrongStatus(`A driver in ${s.status} cannot be suspended.`);
      return [{ type: 'DriverSuspended', data: { driverId, adminId: cmd.adminId, reason: cmd.reason, at } }];
    case 'ReinstateDriver':
      if (s.status !== 'SUSPENDED') throw wrongStatus(`A driver in ${s.status} cannot be reinstated.`);
      return [{ type: 'DriverReinstated', data: { driverId, adminId: cmd.adminId, at } }];
    case 'SetOnline':
      if (!cmd.online) return s.isOnline ? [{ type: 'DriverWentOffline', data: { driverId, at } }] : [];
      if (s.status !== 'ACTIVE') throw conflict('NotAllowed', `A driver in ${s.status} cannot go online.`);
      if (!cmd.allowed) throw conflict('NotAllowed', 'The driver cannot go online (cash debt cap reached).');
      return s.isOnline ? [] : [{ type: 'DriverWentOnline', data: { driverId, at } }];
    case 'UpdateTank':
      if (!s.profile) throw wrongStatus('Complete the vehicle profile (tank capacity) first.');
      if (cmd.availableLiters > s.profile.capacityLiters)
        throw validationError({ availableLiters: [`At most the tank capacity (${s.profile.capacityLiters} liters).`] });
      return cmd.availableLiters === s.availableLiters
        ? []
        : [{ type: 'DriverTankUpdated', data: { driverId, availableLiters: cmd.availableLiters, at } }];
  }
};

export const driverDecider: Decider<DriverCommand, DriverState, DriverEvent> = { initialState, evolve, decide };
