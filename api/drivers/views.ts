import type { z } from 'zod';
import type { DriverDocumentRecord, DriverRecord } from '../../projections/drivers/driverQueries.js';
import { DOCUMENT_LABELS, type DocumentType } from '../../domain/driver/events.js';
import type { DriverDocumentView, DriverView } from './viewSchemas.js';

/** The driver as its owner and admins see it: the spec's driver block (2.1) plus the onboarding fields. */
export const driverView = (d: DriverRecord): z.infer<typeof DriverView> => ({
  id: d.driverId,
  userId: d.userId,
  name: d.name,
  phone: d.phone,
  status: d.status,
  kycState: d.kycState,
  blockReason: d.blockReason,
  isOnline: d.isOnline,
  availableLiters: d.availableLiters,
  remainingLiters: d.remainingLiters,
  capacityLiters: d.capacityLiters,
  plate: d.plate,
  cityId: d.cityId,
  avgRating: d.avgRating,
  ratingsCount: d.ratingsCount,
  completedOrders: d.completedOrders,
  isCertified: d.isCertified,
  registeredAt: d.registeredAt.toISOString(),
  kycApprovedAt: d.kycApprovedAt?.toISOString() ?? null,
  location: d.location
    ? { latitude: d.location.latitude, longitude: d.location.longitude, at: d.location.at.toISOString() }
    : null,
});

export const documentView = (d: DriverDocumentRecord): z.infer<typeof DriverDocumentView> => ({
  type: d.type,
  label: DOCUMENT_LABELS[d.type as DocumentType] ?? d.type,
  expiresAt: d.expiresAt,
  fileUrl: d.fileUrl,
  recordedAt: d.recordedAt.toISOString(),
});
