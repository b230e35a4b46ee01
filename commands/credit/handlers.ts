import { randomUUID } from 'node:crypto';
import { formatInTimeZone } from 'date-fns-tz';
import { allowanceDecider, allowanceStream } from '../../domain/credit/allowance.js';
import { creditDecider, type AdjustCredit } from '../../domain/credit/credit.js';
import { creditStream } from '../../domain/credit/events.js';
import { usdToCents } from '../../domain/money.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import type { Reservation } from '../handle.js';
import { loadSettlementConfig } from '../settlement/settlementConfig.js';

type Deps = Pick<CommandDeps, 'clock' | 'handle' | 'store' | 'config' | 'logger'>;

/**
 * A plain admin's CREDIT adjustment draws on that admin's allowance of the day (domain/credit/allowance.ts)
 * once the credit stream has decided, in the same append: an adjustment not booked draws nothing.
 */
const dailyAllowance = async (
  ctx: Deps,
  adminId: number,
  adjustmentId: string,
  amountCents: number,
  metadata?: EventMetadata,
): Promise<Reservation> => {
  const now = ctx.clock.now();
  const { timezone } = await loadSettlementConfig(ctx);
  const streamId = allowanceStream(adminId, formatInTimeZone(now, timezone, 'yyyy-MM-dd'));
  const limitCents = usdToCents(ctx.config.MANUAL_CREDIT_DAILY_LIMIT_USD);
  const at = now.toISOString();
  return {
    take: async () => {
      await ctx.handle(
        allowanceDecider,
        streamId,
        { type: 'DrawAllowance', adminId, day: streamId.slice(-10), adjustmentId, amountCents, limitCents, at },
        { metadata, react: false },
      );
    },
  };
};

/**
 * Back office: POST /admin/customers/{id}/credit/adjust. Returns the id of the event it appended: the
 * request's own id when it has one (commands/idempotency.ts), so a repeat is the store's no-op.
 */
export const adjustCredit = async (
  ctx: Deps,
  input: Omit<AdjustCredit, 'type' | 'now'> & { superAdmin: boolean },
  metadata?: EventMetadata,
  eventId: string = randomUUID(),
) => {
  const { superAdmin, ...command } = input;
  const capped = !superAdmin && command.direction === 'CREDIT';
  const reservations = capped
    ? [await dailyAllowance(ctx, command.adminId, eventId, command.amountCents, metadata)]
    : [];
  const { position } = await ctx.handle(
    creditDecider,
    creditStream(command.clientId),
    { type: 'AdjustCredit', ...command, now: ctx.clock.now() },
    { metadata, eventIds: () => eventId, reservations },
  );
  return { eventId, position };
};
