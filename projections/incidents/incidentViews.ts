import { sql, type Kysely, type Migration } from 'kysely';
import type { IncidentReportedData, IncidentType } from '../../domain/incident/events.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { projector } from '../projector.js';

/** The incidents read model: one row per incident, listed per order. */
export interface IncidentRow {
  id: number;
  order_id: number;
  type: IncidentType;
  description: string | null;
  reporter_role: 'CLIENT' | 'DRIVER';
  reporter_id: number;
  reporter_name: string | null;
  created_at: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    incidents: IncidentRow;
  }
}

export const incidentViewMigrations: Record<string, Migration> = {
  '0810_incidents': {
    async up(db: Kysely<unknown>) {
      // Incident ids are the spec's integers, handed out by the command side before the event.
      await sql`CREATE SEQUENCE IF NOT EXISTS incident_id_seq`.execute(db);
      await sql`CREATE TABLE incidents (
        id bigint PRIMARY KEY,
        order_id bigint NOT NULL,
        type text NOT NULL,
        description text,
        reporter_role text NOT NULL,
        reporter_id bigint NOT NULL,
        reporter_name text,
        created_at timestamptz NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX incidents_order ON incidents (order_id, created_at DESC, id DESC)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE incidents`.execute(db);
      await sql`DROP SEQUENCE incident_id_seq`.execute(db);
    },
  },
};

export const incidentViewsProjector = projector('incidents', {
  tables: ['incidents'],
  handlers: {
    IncidentReported: (trx, { data: d }: RecordedEvent<string, IncidentReportedData>) =>
      trx
        .insertInto('incidents')
        .values({
          id: d.incidentId,
          order_id: d.orderId,
          type: d.type,
          description: d.description,
          reporter_role: d.reporterRole,
          reporter_id: d.reporterId,
          reporter_name: d.reporterName,
          created_at: new Date(d.reportedAt),
        })
        .execute(),
  },
});
