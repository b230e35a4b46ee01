import { driverDecider, type DriverCommand } from '../../domain/driver/driver.js';
import { driverStream, type DocumentType } from '../../domain/driver/events.js';
import type { AppContext } from '../../infra/context.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';

/**
 * Whether a driver may go online beyond its own status: the wallet area plugs in the cash-debt cap
 * (DOMAIN.md CASH_DEBT_CAP_USD) by replacing this provider in its module's init.
 */
export interface DriverOnlineGate {
  canGoOnline(driverId: number): Promise<boolean>;
}

declare module '../../infra/context.js' {
  interface Providers {
    driverOnlineGate: DriverOnlineGate;
  }
}

export const openOnlineGate: DriverOnlineGate = { canGoOnline: async () => true };

type Without<C> = C extends unknown ? Omit<C, 'type' | 'now'> : never;
type Cmd<T extends DriverCommand['type']> = Without<Extract<DriverCommand, { type: T }>>;

export const driverCommands = (ctx: AppContext) => {
  const run = <T extends DriverCommand['type']>(type: T, driverId: number, args: Cmd<T>, metadata?: EventMetadata) =>
    ctx.handle(driverStream(driverId), driverDecider, (s) => driverDecider.decide({ ...args, type, now: ctx.clock.now() } as DriverCommand, s), metadata);

  return {
    register: (a: Cmd<'RegisterDriver'>, m?: EventMetadata) => run('RegisterDriver', a.driverId, a, m),
    rename: (driverId: number, name: string, m?: EventMetadata) => run('RenameDriver', driverId, { name }, m),
    updateProfile: (driverId: number, a: Cmd<'UpdateProfile'>, m?: EventMetadata) => run('UpdateProfile', driverId, a, m),
    recordDocument: (driverId: number, a: { documentType: DocumentType; expiresAt: string | null; fileUrl: string | null }, m?: EventMetadata) =>
      run('RecordDocument', driverId, a, m),
    approve: (driverId: number, adminId: number, m?: EventMetadata) => run('ApproveDriver', driverId, { adminId }, m),
    reject: (driverId: number, adminId: number, reason: string, m?: EventMetadata) => run('RejectDriver', driverId, { adminId, reason }, m),
    suspend: (driverId: number, adminId: number, reason: string, m?: EventMetadata) => run('SuspendDriver', driverId, { adminId, reason }, m),
    reinstate: (driverId: number, adminId: number, m?: EventMetadata) => run('ReinstateDriver', driverId, { adminId }, m),
    async setOnline(driverId: number, online: boolean, m?: EventMetadata) {
      const allowed = online ? await ctx.providers.driverOnlineGate.canGoOnline(driverId) : true;
      return run('SetOnline', driverId, { online, allowed }, m);
    },
    updateTank: (driverId: number, availableLiters: number, m?: EventMetadata) => run('UpdateTank', driverId, { availableLiters }, m),
    /** Idle position: state-stored (too frequent for the driver stream). */
    async recordLocation(driverId: number, latitude: number, longitude: number) {
      const at = ctx.clock.now();
      await ctx.db
        .insertInto('driver_locations')
        .values({ driver_id: driverId, latitude, longitude, at })
        .onConflict((oc) => oc.column('driver_id').doUpdateSet({ latitude, longitude, at }))
        .execute();
    },
  };
};
