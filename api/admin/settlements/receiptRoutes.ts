import { dateOrderRule } from '../../crossFieldRules.js';
import type { Router } from 'express';
import { z } from 'zod';
import { annulReceipt, markExternal, retryReceipt } from '../../../commands/settlement/payout.js';
import { runProcess } from '../../../commands/settlement/schedule.js';
import { loadSettlementConfig } from '../../../commands/settlement/settlementConfig.js';
import { notFound } from '../../../domain/errors.js';
import {
  FAILURE_KINDS,
  RECEIPT_STATUSES,
  receiptStream,
  type ReceiptEvent,
} from '../../../domain/settlement/events.js';
import { evolveReceipt, initialReceipt, type ReceiptState } from '../../../domain/settlement/receipt.js';
import type { ApiContext } from '../../apiContext.js';
import {
  dayRange,
  receiptById,
  receiptsPage,
  receiptStreamIdOf,
} from '../../../projections/settlement/receiptQueries.js';
import { requireRole, type Actor } from '../../auth.js';
import { metadataOf } from '../../../commands/origin.js';
import { idFrom, limit, page } from '../../orders/schemas.js';
import { dateWindow, idParam, inDateOrder, isoDateTime } from '../../schemas.js';
import { defineRoute, PathId } from '../../route.js';
import { auditorReads } from '../audit/accessRoutes.js';
import { withActorNames } from '../../../stores/identity/actorNames.js';
import { HistoryItem, toHistoryItem } from '../history/eventHistory.js';
import { ReceiptDetail, ReceiptListItem, toReceiptDetail, toReceiptListItem, toTrayItem, TrayItem } from './views.js';

const Meta = z.object({
  total: z.number().int(),
  per_page: z.number().int(),
  current_page: z.number().int(),
  last_page: z.number().int(),
});
const meta = (total: number, perPage: number, current: number) => ({
  total,
  per_page: perPage,
  current_page: current,
  last_page: Math.max(1, Math.ceil(total / perPage)),
});

const ReceiptsQuery = z
  .object({
    status: z.enum(RECEIPT_STATUSES).optional(),
    driver_id: idParam.optional(),
    fiscal_period: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be YYYY-MM')
      .optional(),
    ...dateWindow,
    q: z.string().max(80).optional(),
    limit: limit(25),
    page,
  })
  .refine(...inDateOrder);

const TrayQuery = z.object({ failure_kind: z.enum(FAILURE_KINDS).optional(), limit: limit(25), page });
/**
 * Path ids are checked by idFrom (a malformed id is a 404
 * ReceiptNotFound, as an unknown one); the schema documents them.
 */
const ReceiptParams = z.object({ id: PathId });
const DetailQuery = z.object({
  as_of: isoDateTime.transform((s) => new Date(s)).optional(),
});
const MarkExternalBody = z.object({
  reason: z.string().trim().min(1).max(500),
  reference: z.string().trim().min(1).max(191),
});
const AnnulBody = z.object({ reason: z.string().trim().min(1).max(500) });
const RunBody = z.object({ process: z.enum(['cutoff', 'payout', 'reconcile']) });

const ActionReceipt = z.object({
  id: z.number().int(),
  receipt_number: z.string(),
  status: z.enum(RECEIPT_STATUSES),
  bank_reference: z.string().nullable(),
  failure_reason: z.string().nullable(),
  paid_at: z.string().nullable(),
  voided_at: z.string().nullable(),
});
const ActionAudit = z.object({
  action: z.string(),
  from_status: z.string(),
  to_status: z.string(),
  reason: z.string().nullable(),
  created_at: z.string(),
});
const ActionAnswer = z.object({ receipt: ActionReceipt, audit_entry: ActionAudit });

const receiptNotFound = () => notFound('ReceiptNotFound', 'Receipt not found.');

const actionView = (s: ReceiptState): z.infer<typeof ActionAnswer> => ({
  receipt: {
    id: s.issued!.recordId,
    receipt_number: s.issued!.receiptNumber,
    status: s.status,
    bank_reference: s.bankReference,
    failure_reason: s.failureReason,
    paid_at: s.paidAt,
    voided_at: s.voidedAt,
  },
  audit_entry: (() => {
    const c = s.changes[s.changes.length - 1];
    return {
      action: c.action,
      from_status: c.fromStatus,
      to_status: c.toStatus,
      reason: c.reason,
      created_at: c.createdAt,
    };
  })(),
});

/** The receipt folded from the events recorded up to an instant (the auditor's as-of view). */
export const receiptAsOf = async (ctx: ApiContext, streamId: string, asOf: Date): Promise<ReceiptState | null> => {
  let s = initialReceipt;
  for (const e of await ctx.store.readStream(receiptStream(streamId))) {
    if (e.recordedAt.getTime() > asOf.getTime()) break;
    s = evolveReceipt(s, { type: e.type, data: e.data } as ReceiptEvent);
  }
  return s.issued ? s : null;
};

const adminOf = (a: Actor) => ({ adminId: a.id, adminName: a.name ?? null });

export const settlementReceiptRoutes = (ctx: ApiContext, router: Router) => {
  const guards = requireRole(ctx.auth, 'SUPER_ADMIN');
  const tags = ['admin-settlements'];
  /** The receipt's stream (its UUID) from the path's record id; 404 for an unknown or malformed one. */
  const streamIdOf = async (raw: unknown): Promise<string> => {
    const streamId = await receiptStreamIdOf(ctx.db, idFrom(raw, receiptNotFound));
    if (!streamId) throw receiptNotFound();
    return streamId;
  };

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/settlements/receipts',
      summary: 'Settlement receipts, any status, newest first',
      tags,
      guards,
      auditor: 'read',
      query: ReceiptsQuery,
      rules: dateOrderRule(),
      responses: {
        200: { description: 'A page of receipts', schema: z.object({ items: z.array(ReceiptListItem), meta: Meta }) },
      },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query }) => {
      const config = await loadSettlementConfig(ctx);
      const { fromAt, beforeAt } = dayRange(query.date_from, query.date_to, config.timezone);
      const { rows, total } = await receiptsPage(
        ctx.db,
        {
          status: query.status,
          driverId: query.driver_id,
          fiscalPeriod: query.fiscal_period,
          q: query.q,
          fromAt,
          beforeAt,
        },
        query,
      );
      return { items: rows.map(toReceiptListItem), meta: meta(total, query.limit, query.page) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/settlements/tray',
      summary: 'FAILED receipts awaiting manual resolution',
      tags,
      guards,
      auditor: 'read',
      query: TrayQuery,
      responses: {
        200: { description: 'A page of failed receipts', schema: z.object({ items: z.array(TrayItem), meta: Meta }) },
      },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query }) => {
      const { rows, total } = await receiptsPage(ctx.db, { status: 'FAILED', failureKind: query.failure_kind }, query);
      return { items: rows.map(toTrayItem), meta: meta(total, query.limit, query.page) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/settlements/receipts/:id',
      summary: 'Receipt detail; with as_of, as it stood at that instant (folded from the log)',
      tags,
      guards,
      auditor: 'read',
      params: ReceiptParams,
      query: DetailQuery,
      responses: { 200: { description: 'The receipt', schema: z.object({ receipt: ReceiptDetail }) } },
      errors: { 403: ['Forbidden'], 404: ['ReceiptNotFound'] },
    },
    async ({ params, query, actor, req }) => {
      if (query.as_of) await auditorReads(ctx, actor, req, 'receipt_replay');
      const s = query.as_of
        ? await receiptAsOf(ctx, await streamIdOf(params.id), query.as_of)
        : await receiptById(ctx.db, idFrom(params.id, receiptNotFound));
      if (!s) throw receiptNotFound();
      return { receipt: toReceiptDetail(s) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/settlements/receipts/:id/history',
      summary: "The auditor's replay: every event of the receipt, in order",
      tags: [...tags, 'admin-history'],
      guards,
      auditor: 'read',
      params: ReceiptParams,
      responses: {
        200: {
          description: 'The events',
          schema: z.object({ receipt_id: z.number().int(), events: z.array(HistoryItem) }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['ReceiptNotFound'] },
    },
    async ({ params, actor, req }) => {
      await auditorReads(ctx, actor, req, 'receipt_history');
      const recordId = idFrom(params.id, receiptNotFound);
      const streamId = await receiptStreamIdOf(ctx.db, recordId);
      if (!streamId) throw receiptNotFound();
      return {
        receipt_id: recordId,
        events: await withActorNames(ctx.db, (await ctx.store.readStream(receiptStream(streamId))).map(toHistoryItem)),
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/settlements/receipts/:id/retry',
      summary: 'Re-disperse a business-failed receipt with a new payout order',
      tags,
      guards,
      params: ReceiptParams,
      responses: {
        200: {
          description: 'The receipt, its new payout order and the audit entry',
          schema: z.object({
            receipt: ActionReceipt,
            order: z.object({ id: z.number().int(), status: z.string(), idempotency_key: z.string() }),
            audit_entry: ActionAudit,
          }),
        },
      },
      errors: {
        403: ['Forbidden'],
        404: ['ReceiptNotFound'],
        409: ['Conflict', 'ReceiptNotFailed', 'RetryUnsafeDeadline'],
      },
    },
    async ({ params, actor, req }) => {
      const { state, position } = await retryReceipt(
        ctx,
        await streamIdOf(params.id),
        adminOf(actor),
        metadataOf(actor, req.id),
      );
      await ctx.settle(position);
      const order = state.payoutOrders[state.payoutOrders.length - 1];
      return {
        ...actionView(state),
        order: { id: order.recordId, status: order.status, idempotency_key: order.idempotencyKey },
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/settlements/receipts/:id/mark-external',
      summary: 'Mark a failed receipt paid outside the platform',
      tags,
      guards,
      params: ReceiptParams,
      body: MarkExternalBody,
      responses: {
        200: {
          description: 'The receipt and the audit entry',
          schema: ActionAnswer,
        },
      },
      errors: { 403: ['Forbidden'], 404: ['NotFound', 'ReceiptNotFound'], 409: ['Conflict', 'ReceiptNotFailed'] },
    },
    async ({ params, body, actor, req }) => {
      const { state, position } = await markExternal(
        ctx,
        await streamIdOf(params.id),
        body,
        adminOf(actor),
        metadataOf(actor, req.id),
      );
      await ctx.settle(position);
      return actionView(state);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/settlements/receipts/:id/annul',
      summary: 'Annul a failed receipt and release its reservation',
      tags,
      guards,
      params: ReceiptParams,
      body: AnnulBody,
      responses: {
        200: {
          description: 'The receipt and the audit entry',
          schema: ActionAnswer,
        },
      },
      errors: { 403: ['Forbidden'], 404: ['ReceiptNotFound'], 409: ['Conflict', 'ReceiptNotFailed'] },
    },
    async ({ params, body, actor, req }) => {
      const { state, position } = await annulReceipt(
        ctx,
        await streamIdOf(params.id),
        body,
        adminOf(actor),
        metadataOf(actor, req.id),
      );
      await ctx.settle(position);
      return actionView(state);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/settlements/run',
      summary:
        "Run the cutoff, payout or reconciliation now (the scheduler's " +
        'code); running twice issues and pays nothing twice',
      tags,
      guards,
      body: RunBody,
      responses: {
        200: {
          description: 'The receipts the run issued or moved',
          schema: z.object({
            process: z.string(),
            ran_at: z.string(),
            receipts: z.array(
              z.object({ id: z.number().int(), receipt_number: z.string(), driver_id: z.number(), status: z.string() }),
            ),
          }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['ReceiptNotFound'], 409: ['Conflict'], 422: ['ExchangeRateUnavailable'] },
    },
    async ({ body, actor, req }) => {
      const ranAt = ctx.clock.now().toISOString();
      const receipts = await runProcess(ctx, body.process, metadataOf(actor, req.id));
      await ctx.settle(await ctx.store.headPosition());
      return { process: body.process, ran_at: ranAt, receipts };
    },
  );
};
