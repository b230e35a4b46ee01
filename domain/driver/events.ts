import { z } from 'zod';
import { instant, type EventsOf } from '../eventSchema.js';

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

export const DriverRegisteredData = z.object({
  driverId: z.int(),
  userId: z.int(),
  phone: z.string(),
  name: z.string().nullable(),
  registeredAt: instant,
});
export type DriverRegisteredData = z.infer<typeof DriverRegisteredData>;
export const DriverRenamedData = z.object({
  driverId: z.int(),
  name: z.string(),
  at: z.string(),
});
export type DriverRenamedData = z.infer<typeof DriverRenamedData>;
export const DriverProfileUpdatedData = z.object({
  driverId: z.int(),
  plate: z.string(),
  capacityLiters: z.number(),
  cityId: z.int(),
  at: z.string(),
});
export type DriverProfileUpdatedData = z.infer<typeof DriverProfileUpdatedData>;
export const DriverDocumentRecordedData = z.object({
  driverId: z.int(),
  type: z.enum(DOCUMENT_TYPES),
  /** ISO date (YYYY-MM-DD) or null for a document that does not expire. */
  expiresAt: z.iso.date().nullable(),
  fileUrl: z.string().nullable(),
  recordedAt: instant,
});
export type DriverDocumentRecordedData = z.infer<typeof DriverDocumentRecordedData>;
/** Profile and required documents are on file: the application waits for an admin. */
export const DriverKycSubmittedData = z.object({
  driverId: z.int(),
  at: z.string(),
});
export type DriverKycSubmittedData = z.infer<typeof DriverKycSubmittedData>;
export const DriverApprovedData = z.object({
  driverId: z.int(),
  adminId: z.int(),
  at: z.string(),
});
export type DriverApprovedData = z.infer<typeof DriverApprovedData>;
export const DriverRejectedData = z.object({
  driverId: z.int(),
  adminId: z.int(),
  reason: z.string(),
  at: z.string(),
});
export type DriverRejectedData = z.infer<typeof DriverRejectedData>;
export const DriverSuspendedData = z.object({
  driverId: z.int(),
  adminId: z.int(),
  reason: z.string(),
  at: z.string(),
});
export type DriverSuspendedData = z.infer<typeof DriverSuspendedData>;
export const DriverReinstatedData = z.object({
  driverId: z.int(),
  adminId: z.int(),
  at: z.string(),
});
export type DriverReinstatedData = z.infer<typeof DriverReinstatedData>;
export const DriverOnlineChangedData = z.object({
  driverId: z.int(),
  at: z.string(),
});
export type DriverOnlineChangedData = z.infer<typeof DriverOnlineChangedData>;
export const DriverTankUpdatedData = z.object({
  driverId: z.int(),
  availableLiters: z.number(),
  at: z.string(),
});
export type DriverTankUpdatedData = z.infer<typeof DriverTankUpdatedData>;

export const DRIVER_EVENTS = {
  DriverRegistered: DriverRegisteredData,
  DriverRenamed: DriverRenamedData,
  DriverProfileUpdated: DriverProfileUpdatedData,
  DriverDocumentRecorded: DriverDocumentRecordedData,
  DriverKycSubmitted: DriverKycSubmittedData,
  DriverApproved: DriverApprovedData,
  DriverRejected: DriverRejectedData,
  DriverSuspended: DriverSuspendedData,
  DriverReinstated: DriverReinstatedData,
  DriverWentOnline: DriverOnlineChangedData,
  DriverWentOffline: DriverOnlineChangedData,
  DriverTankUpdated: DriverTankUpdatedData,
};
export type DriverEvent = EventsOf<typeof DRIVER_EVENTS>;

export const driverStream = (driverId: number): string => `driver-${driverId}`;
