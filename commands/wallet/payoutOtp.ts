import { sql } from 'kysely';
import { unauthorized } from '../../domain/errors.js';
import type { CommandDeps } from '../deps.js';
import { otpHash, sameHash } from '../../infra/identity/secrets.js';

/**
 * Confirms a payout-account change with the code of POST /auth/otp/request sent to the caller's own
 * phone: the same rules as sign-in (a wrong guess spends one of the code's attempts, the
 * last one kills it, a right code is consumed once), but nobody is signed in. 401 InvalidOtp otherwise.
 */
export const confirmPhoneCode = async (
  ctx: Pick<CommandDeps, 'db' | 'clock' | 'config'>,
  phone: string,
  code: string,
): Promise<void> => {
  const invalid = () => unauthorized('InvalidOtp', 'The code is wrong or has expired.');
  const expected = otpHash(ctx.config.JWT_SECRET, phone, code);
  const claimed = await ctx.db
    .updateTable('otp_codes')
    .set({ attempts: sql`attempts + 1` })
    .where('phone', '=', phone)
    .where('attempts', '<', ctx.config.OTP_MAX_ATTEMPTS)
    .where('expires_at', '>', ctx.clock.now())
    .returning(['code_hash', 'attempts'])
    .executeTakeFirst();
  if (!claimed) throw invalid();
  if (!sameHash(claimed.code_hash, expected)) {
    if (claimed.attempts >= ctx.config.OTP_MAX_ATTEMPTS)
      await ctx.db
        .deleteFrom('otp_codes')
        .where('phone', '=', phone)
        .where('code_hash', '=', claimed.code_hash)
        .execute();
    throw invalid();
  }
  const consumed = await ctx.db
    .deleteFrom('otp_codes')
    .where('phone', '=', phone)
    .where('code_hash', '=', claimed.code_hash)
    .returning('phone')
    .executeTakeFirst();
  if (!consumed) throw invalid();
};
