import { sql, type Generated, type Kysely, type Migration } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import type { PushTarget } from '../../infra/push/port.js';

/**
 * Device tokens are state-stored (docs/architecture.md, state-stored data): a token belongs to the user who last
 * registered it. `push_deliveries` claims each notification's push once, however many gateway instances
 * hear it on the bus.
 */
declare module '../../infra/db/database.js' {
  interface Database {
    device_tokens: {
      id: Generated<number>;
      user_id: number;
      token: string;
      platform: string;
      created_at: Generated<Date>;
      updated_at: Generated<Date>;
    };
    push_deliveries: { notification_id: string; user_id: number; claimed_at: Generated<Date> };
  }
}

export const deviceTokenMigrations: Record<string, Migration> = {
  '0610_device_tokens': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE device_tokens (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        user_id bigint NOT NULL,
        token text NOT NULL UNIQUE,
        platform text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
      await sql`CREATE INDEX device_tokens_user ON device_tokens (user_id, updated_at DESC)`.execute(db);
      await sql`CREATE TABLE push_deliveries (
        notification_id uuid PRIMARY KEY,
        user_id bigint NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
      await sql`CREATE INDEX push_deliveries_claimed ON push_deliveries (claimed_at)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE push_deliveries`.execute(db);
      await sql`DROP TABLE device_tokens`.execute(db);
    },
  },
};

/**
 * Said on the bus after a device token is registered or removed, so that every push gateway forgets the
 * devices it keeps (commands/push/pushGateway.ts). Without a user, every user's: a registration may move a token
 * from its previous user, whose cached devices must not keep it.
 */
export const DEVICE_TOKENS_CHANGED = 'push.devices.changed';
export interface DeviceTokensChange {
  userId?: number;
}

/** A user keeps at most this many devices; registering one more forgets the least recently registered. */
export const MAX_DEVICES_PER_USER = 20;

/** Registers (or moves to this user, or refreshes) a token; the same token always keeps its id. */
export const registerDeviceToken = (db: Db, userId: number, token: string, platform: PushTarget['platform']) =>
  db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('device_tokens')
      .values({ user_id: userId, token, platform })
      .onConflict((oc) => oc.column('token').doUpdateSet({ user_id: userId, platform, updated_at: sql`now()` }))
      .returning(['id', 'platform'])
      .executeTakeFirstOrThrow();
    const keep = trx
      .selectFrom('device_tokens')
      .select('id')
      .where('user_id', '=', userId)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(MAX_DEVICES_PER_USER);
    await trx.deleteFrom('device_tokens').where('user_id', '=', userId).where('id', 'not in', keep).execute();
    return { id: Number(row.id), platform: row.platform as PushTarget['platform'] };
  });

/** Forgets a token of this user; unknown tokens and other users' tokens are left alone. */
export const removeDeviceToken = async (db: Db, userId: number, token: string): Promise<void> => {
  await db.deleteFrom('device_tokens').where('user_id', '=', userId).where('token', '=', token).execute();
};

/** The devices of each of these users (one statement for all), each user's in registration order; none: []. */
export type Device = PushTarget & { id: number };

export const deviceTokensOf = async (db: Db, userIds: number[]): Promise<Map<number, Device[]>> => {
  const byUser = new Map<number, Device[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const rows = await db
    .selectFrom('device_tokens')
    .select(['id', 'user_id', 'token', 'platform'])
    .where('user_id', '=', (eb) => eb.fn.any(eb.val(userIds)))
    .orderBy('id')
    .execute();
  for (const r of rows)
    byUser.get(Number(r.user_id))?.push({
      id: Number(r.id),
      token: r.token,
      platform: r.platform as PushTarget['platform'],
    });
  return byUser;
};

/** Forgets a device the push provider no longer knows (the same id and token: not one re-registered since). */
export const forgetUnregisteredDevice = async (db: Db, device: { id: number; token: string }): Promise<void> => {
  await db.deleteFrom('device_tokens').where('id', '=', device.id).where('token', '=', device.token).execute();
};

/** Claims a notification's push for this instance: true for the first claimer only, whatever the instances. */
export const claimPushDelivery = async (db: Db, notificationId: string, userId: number): Promise<boolean> =>
  (await db
    .insertInto('push_deliveries')
    .values({ notification_id: notificationId, user_id: userId })
    .onConflict((oc) => oc.column('notification_id').doNothing())
    .returning('notification_id')
    .executeTakeFirst()) !== undefined;
