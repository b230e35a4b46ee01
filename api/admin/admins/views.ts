import { z } from 'zod';
import '../../openapi.js';
import type { AdminRow } from '../../../commands/identity/adminAccounts.js';

export const adminView = (a: AdminRow): z.infer<typeof AdminSchema> => ({
  id: a.id,
  email: a.email,
  name: a.name,
  superAdmin: a.super_admin,
  auditor: a.auditor,
  allCities: a.all_cities,
  cityIds: a.city_ids.map(Number),
  confirmed: a.confirmed_at !== null,
  isActive: a.is_active,
  pendingEmail: a.pending_email,
  createdAt: new Date(a.created_at).toISOString(),
});

export const AdminSchema = z
  .object({
    id: z.number().int(),
    email: z.string(),
    name: z.string(),
    superAdmin: z.boolean(),
    /** Reads what an audit needs in every city and changes nothing; never a super admin. */
    auditor: z.boolean(),
    allCities: z.boolean(),
    cityIds: z.array(z.number().int()),
    confirmed: z.boolean(),
    isActive: z.boolean(),
    pendingEmail: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('Admin');
