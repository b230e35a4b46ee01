import { sql, type Kysely } from 'kysely';
import type { Database } from '../../infra/db/database.js';

/**
 * A client's order aggregates for GET /me (spec 2.1 clientProfile): delivered orders only, so a
 * cancelled or expired order never counts, and the solidary figure is the client's own contribution.
 */
export interface ClientProfileStats {
  totalOrders: number;
  totalLitersOrdered: number;
  totalSolidaryCents: number;
}

export interface ClientProfileSource {
  statsOf(userId: number): Promise<ClientProfileStats>;
}

declare module '../../infra/providers.js' {
  interface Providers {
    clientProfiles: ClientProfileSource;
  }
}

export const clientProfilesFromOrders = (db: Kysely<Database>): ClientProfileSource => ({
  async statsOf(userId) {
    const row = await db
      .selectFrom('order_views')
      .where('client_id', '=', userId)
      .where('status', '=', 'DELIVERED')
      .select([
        sql<string>`count(*)`.as('orders'),
        sql<string>`coalesce(sum(coalesce(actual_liters, liters_requested)), 0)`.as('liters'),
        sql<string>`coalesce(sum(client_solidary_cents), 0)`.as('solidary'),
      ])
      .executeTakeFirstOrThrow();
    return {
      totalOrders: Number(row.orders),
      totalLitersOrdered: Number(row.liters),
      totalSolidaryCents: Number(row.solidary),
    };
  },
});
