import { sql, type Generated, type Kysely, type Migration } from 'kysely';
import type { Db } from '../../infra/db/database.js';

/**
 * What auditors read (docs/decisions/0085-auditors-read-and-are-recorded.md): one row per stream export, replay
 * and report export an auditor asked for. State-stored: an access is not a business fact of any stream, and
 * a log of reads must not grow the streams it reads.
 */
declare module '../../infra/db/database.js' {
  interface Database {
    audit_access: {
      id: Generated<number>;
      admin_id: number;
      /** What kind of read (stream_export, receipt_replay, report_export …). */
      action: string;
      /** What was read: the path and query asked for, under /api/v1. */
      target: string;
      created_at: Date;
    };
  }
}

export interface AuditAccessRow {
  id: number;
  admin_id: number;
  admin_name: string;
  action: string;
  target: string;
  created_at: Date;
}

export const insertAuditAccess = async (
  db: Db,
  entry: { adminId: number; action: string; target: string; at: Date },
): Promise<void> => {
  await db
    .insertInto('audit_access')
    .values({ admin_id: entry.adminId, action: entry.action, target: entry.target, created_at: entry.at })
    .execute();
};

/** One page of the log, newest first (the id orders entries as they were written). */
export const auditAccessPage = async (
  db: Db,
  limit: number,
  page: number,
): Promise<{ items: AuditAccessRow[]; total: number }> => {
  const { total } = await db
    .selectFrom('audit_access')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const items = await db
    .selectFrom('audit_access as x')
    .innerJoin('admins as a', 'a.id', 'x.admin_id')
    .select(['x.id', 'x.admin_id', 'a.name as admin_name', 'x.action', 'x.target', 'x.created_at'])
    .orderBy('x.id', 'desc')
    .limit(limit)
    .offset((page - 1) * limit)
    .execute();
  return { items, total: Number(total) };
};

export const auditAccessMigrations: Record<string, Migration> = {
  '0990_audit_access': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE audit_access (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        admin_id bigint NOT NULL REFERENCES admins (id),
        action text NOT NULL,
        target text NOT NULL,
        created_at timestamptz NOT NULL
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE audit_access`.execute(db);
    },
  },
};
