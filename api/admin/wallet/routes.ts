import { dateOrderRule } from '../../crossFieldRules.js';
import type { Router } from 'express';
import { withActorNames } from '../../../stores/identity/actorNames.js';
import { z } from 'zod';
import { walletCommands } from '../../../commands/wallet/handlers.js';
import { notFound } from '../../../domain/errors.js';
import { idempotentId } from '../../../commands/idempotency.js';
import { LEDGER_DIRECTIONS } from '../../../domain/wallet/events.js';
import { ledgerEntryById } from '../../../projections/wallet/walletQueries.js';
import type { ApiContext } from '../../apiContext.js';
import { findDriver } from '../../../projections/drivers/driverQueries.js';
import { requireRole, type Actor } from '../../auth.js';
import { metadataOf } from '../../../commands/origin.js';
import { IdempotencyHeaders, idempotencyKeyOf } from '../../idempotencyKey.js';
import { isoDateTime, usdAmount, queryInteger } from '../../schemas.js';
import { defineRoute } from '../../route.js';
import { auditorReads } from '../audit/accessRoutes.js';
import { LedgerPage, LedgerQuery, ledgerPageOf } from '../../wallet/ledgerQuery.js';
import { BalanceSummaryView, LedgerEntryView, toBalanceView, toLedgerEntryView } from '../../wallet/views.js';
import { balanceAsOf, currentBalance } from '../../wallet/walletReads.js';
import { readBack } from '../../readBack.js';
import { walletHistory, WalletHistoryItem } from './walletHistory.js';

const DriverParams = z.object({ driverId: queryInteger(1, Number.MAX_SAFE_INTEGER) });
const AdjustmentBody = z.object({
  direction: z.enum(LEDGER_DIRECTIONS),
  amount: usdAmount(100_000),
  reason: z.string().trim().min(10).max(500),
});
const AsOfQuery = z.object({ as_of: isoDateTime.optional() });

const tags = ['admin-wallet'];

/** A driver's wallet as the back office sees and corrects it (docs/domain-rules.md, routes beyond the contract). */
export const adminWalletRoutes = (ctx: ApiContext, router: Router): void => {
  const admin = requireRole(ctx.auth, 'ADMIN');
  const superAdmin = requireRole(ctx.auth, 'SUPER_ADMIN');
  const commands = walletCommands(ctx);
  /** The same scope as the admin's driver routes: their cities; a driver without a city, super admins only. */
  const scopedDriver = async (actor: Actor, driverId: number) => {
    const d = await findDriver(ctx.db, driverId, ctx.clock.now());
    const everyCity = actor.superAdmin === true || actor.auditor === true;
    const inScope = d && (everyCity || (d.cityId !== null && (actor.cityIds ?? []).includes(d.cityId)));
    if (!inScope) throw notFound('DriverNotFound', 'No such driver.');
    return d;
  };

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/drivers/:driverId/wallet/adjustments',
      summary:
        'Manual adjustment of a driver’s balance (MANUAL_ADJUSTMENT), e.g. when a driver pays ' +
        'cash debt in; an Idempotency-Key repeated within 24 hours answers the first entry',
      tags,
      guards: superAdmin,
      params: DriverParams,
      headers: IdempotencyHeaders,
      body: AdjustmentBody,
      responses: { 201: { description: 'The ledger entry', schema: z.object({ entry: LedgerEntryView }) } },
      errors: { 403: ['Forbidden'], 404: ['DriverNotFound'], 409: ['Conflict'] },
    },
    async ({ actor, params, body, req, res }) => {
      await scopedDriver(actor, params.driverId);
      const entryOf = (entryId: string) => ledgerEntryById(ctx.db, entryId);
      const { id, booked } = await idempotentId(
        {
          scope: `wallet-adjustment/${params.driverId}`,
          adminId: actor.id,
          key: idempotencyKeyOf(req),
          now: ctx.clock.now(),
        },
        async (entryId) => (await entryOf(entryId))?.created_at ?? null,
      );
      let position = 0;
      if (!booked) {
        const r = await commands.adjust(
          {
            driverId: params.driverId,
            entryId: id,
            direction: body.direction,
            amountCents: body.amount,
            reason: body.reason,
            adminId: actor.id,
          },
          metadataOf(actor, req.id),
        );
        // Nothing appended: a twin with the same key booked it a moment ago, which the read model must show.
        position = r.events.length > 0 ? r.position : await ctx.store.headPosition();
      }
      const row = await readBack(ctx, position, () => entryOf(id));
      res.status(201);
      return { entry: toLedgerEntryView(row) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/drivers/:driverId/wallet',
      summary: 'A driver’s balance summary as it stood when as_of fell (ISO 8601; default now)',
      tags,
      guards: admin,
      auditor: 'read',
      params: DriverParams,
      query: AsOfQuery,
      responses: {
        200: {
          description: 'The balance summary then',
          schema: z.object({ wallet: BalanceSummaryView, as_of: z.string() }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['DriverNotFound'] },
    },
    async ({ actor, params, query, req }) => {
      if (query.as_of) await auditorReads(ctx, actor, req, 'wallet_replay');
      await scopedDriver(actor, params.driverId);
      const asOf = query.as_of ? new Date(query.as_of) : null;
      const summary = asOf ? await balanceAsOf(ctx, params.driverId, asOf) : await currentBalance(ctx, params.driverId);
      return { wallet: toBalanceView(summary), as_of: (asOf ?? ctx.clock.now()).toISOString() };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/drivers/:driverId/wallet/transactions',
      summary: 'A driver’s ledger (cursor, newest first; the query of /wallet/me/transactions)',
      tags,
      guards: admin,
      auditor: 'read',
      params: DriverParams,
      query: LedgerQuery,
      rules: dateOrderRule(),
      responses: { 200: { description: 'Ledger entries, newest first', schema: LedgerPage } },
      errors: { 403: ['Forbidden'], 404: ['DriverNotFound'] },
    },
    async ({ actor, params, query }) => {
      await scopedDriver(actor, params.driverId);
      return ledgerPageOf(ctx.db, params.driverId, query);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/drivers/:driverId/wallet/history',
      summary:
        "The auditor's wallet replay: the wallet's events and its receipts' reservations, oldest first; " +
        'each recorded_at is the as_of that shows the balance right after that step',
      tags: [...tags, 'admin-history'],
      guards: admin,
      auditor: 'read',
      params: DriverParams,
      responses: {
        200: {
          description: 'The steps',
          schema: z.object({ driver_id: z.number().int(), events: z.array(WalletHistoryItem) }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['DriverNotFound'] },
    },
    async ({ actor, params, req }) => {
      await auditorReads(ctx, actor, req, 'wallet_history');
      await scopedDriver(actor, params.driverId);
      return {
        driver_id: params.driverId,
        events: await withActorNames(ctx.db, await walletHistory(ctx, params.driverId)),
      };
    },
  );
};
