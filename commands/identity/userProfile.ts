import { validationError } from '../../domain/errors.js';
import type { CommandDeps } from '../deps.js';

const emailTaken = () => validationError({ email: ['The email has already been taken.'] });

/**
 * An app user's own name and email (spec 5.1, PUT /me). The email is unique among users: a clash found
 * first, or lost to a racing update (the unique index), answers the same field error.
 */
export const updateUserProfile = async (
  ctx: Pick<CommandDeps, 'db' | 'clock'>,
  userId: number,
  profile: { name: string; email?: string },
): Promise<void> => {
  const email = profile.email?.toLowerCase();
  if (email) {
    const taken = await ctx.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .where('id', '!=', userId)
      .executeTakeFirst();
    if (taken) throw emailTaken();
  }
  try {
    await ctx.db
      .updateTable('users')
      .set({ name: profile.name, ...(email !== undefined ? { email } : {}), updated_at: ctx.clock.now() })
      .where('id', '=', userId)
      .execute();
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw emailTaken();
    throw err;
  }
};
