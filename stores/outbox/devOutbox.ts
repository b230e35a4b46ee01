import { sql, type Generated, type Kysely, type Migration } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import type { DevOutbox, OutboxMessage } from '../../infra/outbox/port.js';

declare module '../../infra/db/database.js' {
  interface Database {
    dev_outbox: {
      id: Generated<number>;
      channel: string;
      recipient: string;
      subject: string | null;
      body: string;
      data: unknown;
      created_at: Generated<Date>;
    };
  }
}

export const devOutboxMigrations: Record<string, Migration> = {
  '0003_dev_outbox': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE dev_outbox (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        channel text NOT NULL,
        recipient text NOT NULL,
        subject text,
        body text NOT NULL,
        data jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
      await sql`CREATE INDEX dev_outbox_recipient ON dev_outbox (recipient, id)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE dev_outbox`.execute(db);
    },
  },
};

export const createDevOutbox = (db: Db): DevOutbox => ({
  async record(m) {
    await db
      .insertInto('dev_outbox')
      .values({
        channel: m.channel,
        recipient: m.to,
        subject: m.subject ?? null,
        body: m.body,
        data: m.data ? JSON.stringify(m.data) : null,
      })
      .execute();
  },
  async list(to) {
    const rows = await db
      .selectFrom('dev_outbox')
      .selectAll()
      .where('recipient', '=', to)
      .orderBy('id', 'asc')
      .execute();
    return rows.map((r) => ({
      channel: r.channel as OutboxMessage['channel'],
      to: r.recipient,
      subject: r.subject,
      body: r.body,
      data: (r.data as Record<string, unknown> | null) ?? null,
      created_at: new Date(r.created_at).toISOString(),
    }));
  },
});
