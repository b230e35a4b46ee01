import { DatabaseUnavailable } from '../infra/db/databaseUnavailable.js';
import type { ApiContext } from './apiContext.js';

/**
 * Read-your-writes: waits until the read models have passed a committed write's `position`, then reads
 * what the write produced. `settle` gives up rather than fail a committed write (docs/decisions/0027-operations.md,
 * "A 503 after a commit"), so the read may find the read model behind it: what the write just produced is then
 * missing, and the answer is 503 with Retry-After (the outcome is unknown to the caller), never a 404 for
 * what was just written or a 500.
 */
export const readBack = async <T>(
  ctx: Pick<ApiContext, 'settle'>,
  position: number,
  read: () => Promise<T | null | undefined>,
): Promise<T> => {
  await ctx.settle(position);
  const found = await read();
  if (found === null || found === undefined)
    throw new DatabaseUnavailable(new Error(`the read models are behind a write committed at ${position}`));
  return found;
};
