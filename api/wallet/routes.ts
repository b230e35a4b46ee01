import { dateOrderRule } from '../crossFieldRules.js';
import type { Request, Router } from 'express';
import { z } from 'zod';
import { findUserById } from '../../commands/identity/phoneAuth.js';
import { walletCommands } from '../../commands/wallet/handlers.js';
import { setPayoutAccount } from '../../commands/wallet/payoutAccount.js';
import { badRequest } from '../../domain/errors.js';
import { ACCOUNT_TYPES, PAYOUT_METHODS, type PayoutAccount } from '../../domain/wallet/events.js';
import type { ApiContext } from '../apiContext.js';
import { payoutAccountOf } from '../../projections/wallet/walletQueries.js';
import { authenticate, requireRole, type Actor } from '../auth.js';
import { metadataOf } from '../../commands/origin.js';
import { defineRoute } from '../route.js';
import { emptyLedgerPage, LedgerPage, LedgerQuery, ledgerPageOf } from './ledgerQuery.js';
import { currentBalance, noWallet } from './walletReads.js';
import { BalanceSummaryView, PayoutConfigView, toBalanceView, toPayoutConfigView } from './views.js';
import { readBack } from '../readBack.js';

/** An optional text field: blank means not given. */
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v ? v : null));

/** The payout-config body; the per-method requirements are the 400s of the domain rule. */
const PayoutConfigBody = z
  .object({
    method: z.enum(PAYOUT_METHODS),
    bankCode: optionalText(10),
    idNumber: optionalText(20),
    phone: optionalText(20),
    accountNumber: optionalText(30),
    accountType: z
      .enum(ACCOUNT_TYPES)
      .nullish()
      .transform((v) => v ?? null),
    otp: z
      .string()
      .regex(/^\d{6}$/, 'must be exactly 6 digits')
      .optional(),
  })
  // The per-method requirements (payoutAccountProblem), said to a generated client: blank counts as absent.
  .openapi({
    if: { properties: { method: { const: 'PAGO_MOVIL' } }, required: ['method'] },
    then: {
      required: ['bankCode', 'idNumber', 'phone'],
      properties: Object.fromEntries(
        ['bankCode', 'idNumber', 'phone'].map((f) => [f, { type: 'string', pattern: '\\S' }]),
      ),
    },
    else: { required: ['accountNumber'], properties: { accountNumber: { type: 'string', pattern: '\\S' } } },
  } as never);

const ConfigAnswer = z.object({ config: PayoutConfigView.nullable() });
const tags = ['wallet'];

/** The caller's own wallet; every route reads the caller's driver id, never a path id. */
export const walletRoutes = (ctx: ApiContext, router: Router): void => {
  const anyone = [authenticate(ctx.auth)];
  const driverOnly = requireRole(ctx.auth, 'DRIVER');
  const commands = walletCommands(ctx);
  const driverIdOf = (actor: Actor): number | null =>
    actor.role === 'DRIVER' && actor.driverId ? actor.driverId : null;

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/wallet/me',
      summary: 'Balance summary (the wallet is created on first access); zeros for a caller without a driver profile',
      tags,
      guards: anyone,
      responses: { 200: { description: 'The balance summary', schema: BalanceSummaryView } },
      errors: { 409: ['Conflict'] },
    },
    async ({ actor, req }) => {
      const driverId = driverIdOf(actor);
      if (driverId === null) return toBalanceView(noWallet(ctx));
      await ctx.settle((await commands.open(driverId, metadataOf(actor, req.id))).position);
      return toBalanceView(await currentBalance(ctx, driverId));
    },
  );

  const transactions = async ({ actor, query }: { actor: Actor; query: z.infer<typeof LedgerQuery> }) => {
    const driverId = driverIdOf(actor);
    return driverId === null ? emptyLedgerPage : ledgerPageOf(ctx.db, driverId, query);
  };
  const ledgerResponses = { 200: { description: 'Ledger entries, newest first', schema: LedgerPage } };
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/wallet/me/transactions',
      summary: 'The caller’s ledger (cursor, newest first)',
      tags,
      guards: anyone,
      query: LedgerQuery,
      rules: dateOrderRule(),
      responses: ledgerResponses,
    },
    transactions,
  );
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/driver/wallet/transactions',
      summary: 'Alias of GET /wallet/me/transactions',
      tags,
      guards: driverOnly,
      query: LedgerQuery,
      rules: dateOrderRule(),
      responses: ledgerResponses,
      errors: { 403: ['Forbidden'] },
    },
    transactions,
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/wallet/me/payout-config',
      summary: 'The caller’s payout account, or null',
      tags,
      guards: anyone,
      responses: { 200: { description: '{config} or {config: null}', schema: ConfigAnswer } },
    },
    async ({ actor }) => {
      const driverId = driverIdOf(actor);
      const row = driverId === null ? null : await payoutAccountOf(ctx.db, driverId);
      return { config: row ? toPayoutConfigView(row) : null };
    },
  );

  const setConfig = async ({
    actor,
    body,
    req,
  }: {
    actor: Actor;
    body: z.infer<typeof PayoutConfigBody>;
    req: Request;
  }) => {
    const driverId = driverIdOf(actor);
    if (driverId === null) throw badRequest('NoDriverProfile', 'Only a driver has a payout account.');
    const user = await findUserById(ctx, actor.id);
    const { otp, ...account } = body;
    const { position } = await setPayoutAccount(
      ctx,
      { driverId, userId: actor.id, phone: user?.phone ?? '', account: account as PayoutAccount, otp },
      metadataOf(actor, req.id),
    );
    return { config: toPayoutConfigView(await readBack(ctx, position, () => payoutAccountOf(ctx.db, driverId))) };
  };
  const configResponses = {
    200: { description: 'The payout account', schema: z.object({ config: PayoutConfigView }) },
  };
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/wallet/me/payout-config',
      summary:
        'Create or update the payout account (PAGO_MOVIL: bankCode, idNumber, phone; BANK_TRANSFER: accountNumber)',
      tags,
      guards: anyone,
      body: PayoutConfigBody,
      responses: configResponses,
      errors: { 400: ['InvalidPayoutConfig', 'NoDriverProfile'], 401: ['InvalidOtp'], 409: ['Conflict'] },
    },
    setConfig,
  );
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'put',
      path: '/driver/payout-method',
      summary: 'Alias of POST /wallet/me/payout-config',
      tags,
      guards: driverOnly,
      body: PayoutConfigBody,
      responses: configResponses,
      errors: {
        400: ['InvalidPayoutConfig', 'NoDriverProfile'],
        401: ['InvalidOtp'],
        403: ['Forbidden'],
        409: ['Conflict'],
      },
    },
    setConfig,
  );
};
