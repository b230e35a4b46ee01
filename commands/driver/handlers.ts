import { driverDecider, type DriverCommand } from '../../domain/driver/driver.js';
import { driverStream, type DocumentType } from '../../domain/driver/events.js';
import type { CommandDeps } from '../deps.js';
import type { AlongsideWrite, EventMetadata } from '../../infra/eventStore/port.js';

type Deps = Pick<CommandDeps, 'clock' | 'handle' | 'providers'>;

/**
 * Whether a driver may go online beyond its own status: the cash-debt cap (CASH_DEBT_CAP_USD,
 * docs/domain-rules.md), which the wallet decides; the composition root wires it, once.
 */
export interface DriverOnlineGate {
  canGoOnline(driverId: number): Promise<boolean>;
}

declare module '../../infra/providers.js' {
  interface Providers {
    driverOnlineGate: DriverOnlineGate;
  }
}

type Args<T extends DriverCommand['type']> = Omit<Extract<DriverCommand, { type: T }>, 'type' | 'now'>;

/** The driver's commands, each through the one handler on the driver's stream. */
export const driverCommands = (ctx: Deps) => {
  const on = (driverId: number, command: DriverCommand, metadata?: EventMetadata, alongside?: AlongsideWrite[]) =>
    ctx.handle(driverDecider, driverStream(driverId), command, { metadata, alongside });
  const now = () => ctx.clock.now();
  return {
    register: (a: Args<'RegisterDriver'>, m?: EventMetadata) =>
      on(a.driverId, { ...a, type: 'RegisterDriver', now: now() }, m),
    rename: (driverId: number, name: string, m?: EventMetadata) =>
      on(driverId, { type: 'RenameDriver', name, now: now() }, m),
    updateProfile: (driverId: number, a: Args<'UpdateProfile'>, m?: EventMetadata) =>
      on(driverId, { ...a, type: 'UpdateProfile', now: now() }, m),
    recordDocument: (
      driverId: number,
      a: { documentType: DocumentType; expiresAt: string | null; fileUrl: string | null },
      m?: EventMetadata,
    ) => on(driverId, { ...a, type: 'RecordDocument', now: now() }, m),
    approve: (driverId: number, adminId: number, m?: EventMetadata) =>
      on(driverId, { type: 'ApproveDriver', adminId, now: now() }, m),
    reject: (driverId: number, adminId: number, reason: string, m?: EventMetadata) =>
      on(driverId, { type: 'RejectDriver', adminId, reason, now: now() }, m),
    suspend: (driverId: number, adminId: number, reason: string, m?: EventMetadata) =>
      on(driverId, { type: 'SuspendDriver', adminId, reason, now: now() }, m),
    reinstate: (driverId: number, adminId: number, m?: EventMetadata) =>
      on(driverId, { type: 'ReinstateDriver', adminId, now: now() }, m),
    /** `alongside`: the position sent with it, written with its events (commands/driver/positions.ts). */
    async setOnline(driverId: number, online: boolean, m?: EventMetadata, alongside?: AlongsideWrite[]) {
      const allowed = online ? await ctx.providers.driverOnlineGate.canGoOnline(driverId) : true;
      return on(driverId, { type: 'SetOnline', online, allowed, now: now() }, m, alongside);
    },
    updateTank: (driverId: number, availableLiters: number, m?: EventMetadata) =>
      on(driverId, { type: 'UpdateTank', availableLiters, now: now() }, m),
  };
};
