import { sql } from 'kysely';
import { unauthorized } from '../../domain/errors.js';
import type { CommandDeps } from '../deps.js';
import { otpHash, sameHash } from '../../infra/identity/secrets.js';

/**
 * Checks a code of POST /auth/otp/request against the one sent to `phone`, for sign-in and for a payout
 * account's change. Each try first claims one of the code's attempts atomically, so concurrent guesses cannot
 * exceed OTP_MAX_ATTEMPTS; the last wrong guess kills the code; a right code is consumed once. 401 InvalidOtp
 * otherwise.
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
