/**
 * A client's order aggregates for GET /me (spec 2.1 clientProfile). The orders area replaces this
 * provider in its module's init; until then a client has no orders.
 */
export interface ClientProfileStats {
  totalOrders: number;
  totalLitersOrdered: number;
  totalSolidaryCents: number;
}

export interface ClientProfileSource {
  statsOf(userId: number): Promise<ClientProfileStats>;
}

declare module '../../infra/context.js' {
  interface Providers {
    clientProfiles: ClientProfileSource;
  }
}

export const noOrdersYet: ClientProfileSource = { statsOf: async () => ({ totalOrders: 0, totalLitersOrdered: 0, totalSolidaryCents: 0 }) };
