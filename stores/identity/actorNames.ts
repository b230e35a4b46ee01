import type { Kysely } from 'kysely';
import type { Database } from '../../infra/db/database.js';

type Actor = { id: number | string | null; role: string; name: string | null } | null;

/**
 * Who acted, by name (issue 31): the replay's reader is an admin already allowed to read the stream,
 * and the names are those of the people on it (the driver, the client, the admin who resolved it), so
 * a name adds no reach. One query per kind of person, however long the history.
 */
export const withActorNames = async <T extends { actor: Actor }>(db: Kysely<Database>, items: T[]): Promise<T[]> => {
  const ids = (role: string) => [
    ...new Set(
      items.flatMap((i) =>
        i.actor?.role === role && i.actor.id !== null && Number.isInteger(Number(i.actor.id))
          ? [Number(i.actor.id)]
          : [],
      ),
    ),
  ];
  const adminIds = ids('ADMIN');
  const userIds = [...ids('CLIENT'), ...ids('DRIVER')];
  const [admins, users] = await Promise.all([
    adminIds.length ? db.selectFrom('admins').select(['id', 'name']).where('id', 'in', adminIds).execute() : [],
    userIds.length ? db.selectFrom('users').select(['id', 'name']).where('id', 'in', userIds).execute() : [],
  ]);
  const names = new Map<string, string | null>([
    ...admins.map((a) => [`ADMIN:${a.id}`, a.name] as const),
    ...users.flatMap((u) => [[`CLIENT:${u.id}`, u.name] as const, [`DRIVER:${u.id}`, u.name] as const]),
  ]);
  return items.map((i) =>
    i.actor && i.actor.id !== null
      ? { ...i, actor: { ...i.actor, name: names.get(`${i.actor.role}:${Number(i.actor.id)}`) ?? null } }
      : i,
  );
};
