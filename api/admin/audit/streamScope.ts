import { receiptStream } from '../../../domain/settlement/events.js';
import { customerById } from '../../../projections/customers/customerQueries.js';
import { findDriver } from '../../../projections/drivers/driverQueries.js';
import { reportsProjector } from '../../../projections/reports/reportsProjector.js';
import type { ApiContext } from '../../apiContext.js';
import type { Actor } from '../../auth.js';
import { cityScopeOf, paymentInScope } from '../cityScope.js';

/**
 * The audit routes read a money stream with the scope of the record it is the history of
 * (docs/decisions/0072): a driver's wallet and receipts by the driver's city (a receipt by the city it was
 * issued for), a customer's credit by the customer's cities, a payment by its order's city. A city-limited
 * admin gets the 404 of an unknown stream for any other; an all-cities admin reads them all.
 */
export const moneyStreamScopeOf = async (
  ctx: ApiContext,
  actor: Actor,
): Promise<(stream: string) => Promise<boolean>> => {
  const scope = await cityScopeOf(ctx, actor);
  if (scope.all) return () => Promise.resolve(true);
  const inCities = (cityId: number | null | undefined) => cityId != null && scope.cityIds.includes(cityId);
  return async (stream) => {
    const dash = stream.indexOf('-');
    const id = stream.slice(dash + 1);
    switch (stream.slice(0, dash)) {
      case 'wallet':
        return inCities((await findDriver(ctx.db, Number(id), ctx.clock.now()))?.cityId);
      case 'receipt': {
        const [issued] = await ctx.store.readStream(receiptStream(id));
        return inCities((issued?.data as { cityId?: number | null } | undefined)?.cityId);
      }
      case 'credit':
        await ctx.caughtUp(reportsProjector.name);
        return (await customerById(ctx.db, scope, Number(id))) !== undefined;
      case 'payment':
        return (await paymentInScope(ctx, actor, Number(id))) === true;
      default:
        return false;
    }
  };
};
