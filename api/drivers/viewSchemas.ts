import { z } from 'zod';
import '../openapi.js';

/** Response schemas of the driver views (api/drivers/views.ts) for the OpenAPI document. */

export const DriverView = z
  .object({
    id: z.number().int(),
    userId: z.number().int(),
    name: z.string().nullable(),
    phone: z.string(),
    status: z.string(),
    kycState: z.string(),
    blockReason: z.string().nullable(),
    isOnline: z.boolean(),
    availableLiters: z.number().int(),
    remainingLiters: z.number().int(),
    capacityLiters: z.number().int().nullable(),
    plate: z.string().nullable(),
    cityId: z.number().int().nullable(),
    avgRating: z.number(),
    ratingsCount: z.number().int(),
    completedOrders: z.number().int(),
    isCertified: z.boolean(),
    registeredAt: z.string(),
    kycApprovedAt: z.string().nullable(),
    location: z.object({ latitude: z.number(), longitude: z.number(), at: z.string() }).nullable(),
  })
  .openapi('Driver');

export const DriverDocumentView = z
  .object({
    type: z.string(),
    label: z.string(),
    expiresAt: z.string().nullable(),
    fileUrl: z.string().nullable(),
    recordedAt: z.string(),
  })
  .openapi('DriverDocument');
