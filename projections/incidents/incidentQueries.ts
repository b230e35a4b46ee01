import type { Db } from '../../infra/db/database.js';
import type { IncidentRow } from './incidentViews.js';

export const findIncident = async (db: Db, incidentId: number): Promise<IncidentRow | null> =>
  (await db.selectFrom('incidents').selectAll().where('id', '=', incidentId).executeTakeFirst()) ?? null;

/** Newest first; incidents reported in the same instant keep the order they were recorded in, reversed. */
export const incidentsOfOrder = (db: Db, orderId: number): Promise<IncidentRow[]> =>
  db
    .selectFrom('incidents')
    .selectAll()
    .where('order_id', '=', orderId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
