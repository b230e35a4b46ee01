import { sql, type Generated, type Kysely, type Migration } from 'kysely';

/** Where each process manager has read the log up to: a checkpoint, which no event rebuilds. */
declare module '../../infra/db/database.js' {
  interface Database {
    process_manager_checkpoints: { name: string; position: number; updated_at: Generated<Date> };
  }
}

export const processManagerMigrations: Record<string, Migration> = {
  '0004_process_manager_checkpoints': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE process_manager_checkpoints (
        name text PRIMARY KEY,
        position bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE process_manager_checkpoints`.execute(db);
    },
  },
};
