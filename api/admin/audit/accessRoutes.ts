import type { Request, Router } from 'express';
import { z } from 'zod';
import { recordAuditorRead, type AuditorRead } from '../../../commands/audit/accessLog.js';
import { auditAccessPage } from '../../../stores/audit/auditAccess.js';
import type { ApiContext } from '../../apiContext.js';
import { requireRole, type Actor } from '../../auth.js';
import { pageOf } from '../../openapi.js';
import { page } from '../../orders/schemas.js';
import { defineRoute } from '../../route.js';
import { queryInteger } from '../../schemas.js';

/**
 * Records an auditor's read of what this request names: its path and query under /api/v1 (a receipt as of an
 * instant, a report's filters). Anyone else's read leaves nothing.
 */
export const auditorReads = (ctx: ApiContext, actor: Actor, req: Request, action: AuditorRead): Promise<void> =>
  recordAuditorRead(ctx, actor, action, req.originalUrl.replace(/^\/api\/v1(?=\/)/, ''));

const AccessEntry = z
  .object({
    id: z.number().int(),
    admin: z.object({ id: z.number().int(), name: z.string() }),
    action: z.string().openapi({
      description:
        'stream_export, receipt_history, receipt_replay, wallet_history, wallet_replay, order_history or report_export',
    }),
    target: z.string().openapi({ description: 'What was read: the path and query asked for, under /api/v1' }),
    created_at: z.string(),
  })
  .openapi('AuditAccessEntry');

/** What auditors read, for super admins (docs/decisions/0085-auditors-read-and-are-recorded.md). */
export const auditAccessRoutes = (ctx: ApiContext, router: Router): void => {
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/audit/access',
      summary: 'What auditors read: each stream export, replay and report export an auditor made, newest first',
      tags: ['admin-audit'],
      guards: requireRole(ctx.auth, 'SUPER_ADMIN'),
      query: z.object({ limit: queryInteger(1, 100).default(25), page }),
      responses: { 200: { description: 'One page, newest first', schema: pageOf(AccessEntry) } },
    },
    async ({ query }) => {
      const { items, total } = await auditAccessPage(ctx.db, query.limit, query.page);
      return {
        items: items.map((e) => ({
          id: e.id,
          admin: { id: e.admin_id, name: e.admin_name },
          action: e.action,
          target: e.target,
          created_at: new Date(e.created_at).toISOString(),
        })),
        meta: {
          total,
          per_page: query.limit,
          current_page: query.page,
          last_page: Math.max(1, Math.ceil(total / query.limit)),
        },
      };
    },
  );
};
