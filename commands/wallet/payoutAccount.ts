import { badRequest } from '../../domain/errors.js';
import type { PayoutAccount } from '../../domain/wallet/events.js';
import { payoutAccountProblem } from '../../domain/wallet/wallet.js';
import type { CommandDeps } from '../deps.js';
import type { EventMetadata } from '../../infra/eventStore/port.js';
import { walletCommands } from './handlers.js';
import { confirmPhoneCode } from '../identity/phoneCode.js';

type Deps = Pick<CommandDeps, 'handle' | 'clock' | 'store' | 'db' | 'config'>;

/**
 * POST /wallet/me/payout-config: the account's rules first (a 400 must not spend the caller's code), then
 * the optional one-time code against the caller's phone, then the wallet command.
 */
export const setPayoutAccount = async (
  ctx: Deps,
  input: { driverId: number; userId: number; phone: string; account: PayoutAccount; otp?: string },
  metadata?: EventMetadata,
) => {
  const problem = payoutAccountProblem(input.account);
  if (problem) throw badRequest('InvalidPayoutConfig', problem);
  if (input.otp !== undefined) await confirmPhoneCode(ctx, input.phone, input.otp);
  return walletCommands(ctx).setPayoutAccount(
    { driverId: input.driverId, userId: input.userId, account: input.account, otpVerified: input.otp !== undefined },
    metadata,
  );
};
