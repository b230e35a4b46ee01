import type { ApiContext } from '../apiContext.js';
import type { CityScope } from '../../projections/customers/customerQueries.js';
import type { Actor } from '../auth.js';

/**
 * The cities whose data an admin may read (customers, reports). An all-cities admin sees everything,
 * including rows that carry no city (orders recorded before cities had centres, drivers without a profile).
 */
export const cityScopeOf = async (ctx: ApiContext, actor: Actor): Promise<CityScope> => {
  const row = await ctx.db.selectFrom('admins').select('all_cities').where('id', '=', actor.id).executeTakeFirst();
  return row?.all_cities ? { all: true } : { all: false, cityIds: actor.cityIds ?? [] };
};
