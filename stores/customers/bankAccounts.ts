import { sql, type Generated, type Kysely, type Migration, type Selectable } from 'kysely';
import type { Db } from '../../infra/db/database.js';

/**
 * A customer's saved bank account (one per customer): state-stored, since nothing
 * decides on it and its history is not asked for. A replacement keeps the row's id.
 */
declare module '../../infra/db/database.js' {
  interface Database {
    customer_bank_accounts: {
      id: Generated<number>;
      user_id: number;
      id_number: string;
      phone: string;
      bank_code: string;
      updated_at: Date;
    };
  }
}

export type BankAccountRow = Selectable<import('../../infra/db/database.js').Database['customer_bank_accounts']>;

export const bankAccountMigrations: Record<string, Migration> = {
  '0985_customer_bank_accounts': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE customer_bank_accounts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        user_id bigint NOT NULL UNIQUE REFERENCES users (id),
        id_number text NOT NULL,
        phone text NOT NULL,
        bank_code text NOT NULL,
        updated_at timestamptz NOT NULL
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE customer_bank_accounts`.execute(db);
    },
  },
};

export const bankAccountOf = (db: Db, userId: number): Promise<BankAccountRow | undefined> =>
  db.selectFrom('customer_bank_accounts').selectAll().where('user_id', '=', userId).executeTakeFirst();

export const saveBankAccount = (
  db: Db,
  userId: number,
  account: { id_number: string; phone: string; bank_code: string },
  now: Date,
): Promise<BankAccountRow> =>
  db
    .insertInto('customer_bank_accounts')
    .values({ user_id: userId, ...account, updated_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ ...account, updated_at: now }))
    .returningAll()
    .executeTakeFirstOrThrow();

export const deleteBankAccount = async (db: Db, userId: number): Promise<void> => {
  await db.deleteFrom('customer_bank_accounts').where('user_id', '=', userId).execute();
};
