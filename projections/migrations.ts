import { sql, type Generated, type Kysely, type Migration } from 'kysely';

export const projectionRunnerMigrations: Record<string, Migration> = {
  '0002_projection_checkpoints': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE projection_checkpoints (
        name text PRIMARY KEY,
        position bigint NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE projection_checkpoints`.execute(db);
    },
  },
};

declare module '../infra/db/database.js' {
  interface Database {
    projection_checkpoints: { name: string; position: number; updated_at: Generated<Date> };
  }
}
