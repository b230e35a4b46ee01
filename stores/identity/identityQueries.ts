import type { Db } from '../../infra/db/database.js';

/** The cities served, in their display order (Caracas first). */
export const listCities = (db: Db): Promise<{ id: number; name: string }[]> =>
  db.selectFrom('cities').select(['id', 'name']).orderBy('sort_order').execute();

export const cityExists = async (db: Db, cityId: number): Promise<boolean> =>
  (await db.selectFrom('cities').select('id').where('id', '=', cityId).executeTakeFirst()) !== undefined;

/** Whether an admin's scope is every city (an unknown admin's is not). */
export const adminSeesAllCities = async (db: Db, adminId: number): Promise<boolean> =>
  (await db.selectFrom('admins').select('all_cities').where('id', '=', adminId).executeTakeFirst())?.all_cities ===
  true;
