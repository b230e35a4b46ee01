import type { z } from 'zod';
import type { ClientProfileStats } from '../../projections/orders/clientProfileStats.js';
import type { UserRow } from '../../commands/identity/phoneAuth.js';
import { centsToUsd } from '../../domain/money.js';
import type { DriverRecord } from '../../projections/drivers/driverQueries.js';
import { driverView } from '../drivers/views.js';
import type { LoginUser, MeUser } from './routes.js';

/** The login shape (spec 4.1 verify, dev-token, PATCH /me). */
export const loginUserView = (u: UserRow, driver: DriverRecord | null): z.infer<typeof LoginUser> => ({
  id: u.id,
  name: u.name,
  phone: u.phone,
  email: u.email,
  hasClientProfile: u.role === 'CLIENT',
  hasDriverProfile: u.role === 'DRIVER',
  isDriverPending: u.role === 'DRIVER' && (driver?.status ?? 'PENDING_VERIFICATION') === 'PENDING_VERIFICATION',
});

/** GET /me: a client has clientProfile and no driver; a driver the reverse. */
export const meView = (
  u: UserRow,
  driver: DriverRecord | null,
  stats: ClientProfileStats | null,
): z.infer<typeof MeUser> => ({
  id: u.id,
  name: u.name,
  phone: u.phone,
  email: u.email,
  isActive: u.is_active,
  clientProfile: stats
    ? {
        totalOrders: stats.totalOrders,
        totalLitersOrdered: stats.totalLitersOrdered,
        totalSolidaryUSD: centsToUsd(stats.totalSolidaryCents),
      }
    : null,
  driver: driver ? driverView(driver) : null,
});
