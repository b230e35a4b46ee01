import type { DomainEvent } from '../decider.js';

/** PENDING_VERIFICATION until an admin approves the KYC; BANNED exists in the spec but no route reaches it yet. */
export const DRIVER_STATUSES = ['PENDING_VERIFICATION', 'ACTIVE', 'REJECTED', 'SUSPENDED', 'BANNED'] as const;
export type DriverStatus = (typeof DRIVER_STATUSES)[number];

/** The documents report's KYC states (docs/domain-rules.md, drivers). */
export const KYC_STATES = ['PENDING_KYC', 'PENDING_REVIEW', 'APPROVED', 'REJECTED'] as const;
export type KycState = (typeof KYC_STATES)[number];

/** The tracked document types of the documents report (docs/domain-rules.md, drivers). */
export const DOCUMENT_TYPES = ['ID_FRONT', 'LICENSE', 'MEDICAL_CERT', 'RCV', 'ADDRESS_PROOF', 'SANITARY_CERT'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** A missing document of these types blocks the driver (docs/domain-rules.md, drivers), so review needs them. */
export const REQUIRED_DOCUMENT_TYPES: readonly DocumentType[] = ['ID_FRONT', 'LICENSE'];

export const DOCUMENT_LABELS: Record<DocumentType, string> = {
  ID_FRONT: 'Cédula de identidad',
  LICENSE: 'Licencia de conducir',
  MEDICAL_CERT: 'Certificado médico',
  RCV: 'Póliza RCV',
  ADDRESS_PROOF: 'Constancia de residencia',
  SANITARY_CERT: 'Permiso sanitario',
};

export interface DriverRegisteredData {
  driverId: number;
  userId: number;
  phone: string;
  name: string | null;
  registeredAt: string;
}
export interface DriverRenamedData {
  driverId: number;
  name: string;
  at: string;
}
export interface DriverProfileUpdatedData {
  driverId: number;
  plate: string;
  capacityLiters: number;
  cityId: number;
  at: string;
}
export interface DriverDocumentRecordedData {
  driverId: number;
  type: DocumentType;
  /** ISO date (YYYY-MM-DD) or null for a document that does not expire. */
  expiresAt: string | null;
  fileUrl: string | null;
  recordedAt: string;
}
/** Profile and required documents are on file: the application waits for an admin. */
export interface DriverKycSubmittedData {
  driverId: number;
  at: string;
}
export interface DriverApprovedData {
  driverId: number;
  adminId: number;
  at: string;
}
export interface DriverRejectedData {
  driverId: number;
  adminId: number;
  reason: string;
  at: string;
}
export interface DriverSuspendedData {
  driverId: number;
  adminId: number;
  reason: string;
  at: string;
}
export interface DriverReinstatedData {
  driverId: number;
  adminId: number;
  at: string;
}
export interface DriverOnlineChangedData {
  driverId: number;
  at: string;
}
export interface DriverTankUpdatedData {
  driverId: number;
  availableLiters: number;
  at: string;
}

export type DriverEvent =
  | DomainEvent<'DriverRegistered', DriverRegisteredData>
  | DomainEvent<'DriverRenamed', DriverRenamedData>
  | DomainEvent<'DriverProfileUpdated', DriverProfileUpdatedData>
  | DomainEvent<'DriverDocumentRecorded', DriverDocumentRecordedData>
  | DomainEvent<'DriverKycSubmitted', DriverKycSubmittedData>
  | DomainEvent<'DriverApproved', DriverApprovedData>
  | DomainEvent<'DriverRejected', DriverRejectedData>
  | DomainEvent<'DriverSuspended', DriverSuspendedData>
  | DomainEvent<'DriverReinstated', DriverReinstatedData>
  | DomainEvent<'DriverWentOnline', DriverOnlineChangedData>
  | DomainEvent<'DriverWentOffline', DriverOnlineChangedData>
  | DomainEvent<'DriverTankUpdated', DriverTankUpdatedData>;

export const driverStream = (driverId: number): string => `driver-${driverId}`;
