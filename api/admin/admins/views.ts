import type { AdminRow } from '../../../commands/identity/adminAccounts.js';

export const adminView = (a: AdminRow) => ({
  id: a.id,
  email: a.email,
  name: a.name,
  superAdmin: a.super_admin,
  allCities: a.all_cities,
  cityIds: a.city_ids.map(Number),
  confirmed: a.confirmed_at !== null,
  isActive: a.is_active,
  pendingEmail: a.pending_email,
  createdAt: new Date(a.created_at).toISOString(),
});
