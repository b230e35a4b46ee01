import type { Response, Router } from 'express';
import { formatInTimeZone } from 'date-fns-tz';
import { z, type ZodObject, type ZodRawShape } from 'zod';
import type { ApiContext } from '../../apiContext.js';
import { requireRole, type Actor } from '../../auth.js';
import { defineRoute, FileBody } from '../../route.js';
import { auditorReads } from '../audit/accessRoutes.js';
import { calendarZone } from '../../../projections/reports/dailyRollup.js';
import { reportsProjector } from '../../../projections/reports/reportsProjector.js';
import { cityScopeOf } from '../cityScope.js';
import { CSV_MEDIA_TYPE, XLSX_MEDIA_TYPE, writeCsv, writeXlsx } from './exportStreams.js';
import type { Report, ReportContext } from './report.js';

const ExportFormat = z.object({ format: z.enum(['csv', 'xlsx']).default('csv') });

const contextOf = async (ctx: ApiContext, actor: Actor): Promise<ReportContext> => {
  // Commands do not wait for the reports' read model (settled on read): the report does, so it holds
  // every write acknowledged before it was asked for.
  await ctx.caughtUp(reportsProjector.name);
  const now = ctx.clock.now();
  // The settlement timezone as the reports projector last saw it: the calendar of report_daily's days.
  const tz = await calendarZone(ctx.db);
  return { db: ctx.db, scope: await cityScopeOf(ctx, actor), tz, today: formatInTimeZone(now, tz, 'yyyy-MM-dd'), now };
};

/** reporte_ordenes_20261123_140501.csv: the moment of the export in the report time zone. */
export const exportFileName = (file: string, now: Date, tz: string, ext: 'csv' | 'xlsx'): string =>
  `${file}_${formatInTimeZone(now, tz, 'yyyyMMdd_HHmmss')}.${ext}`;

/**
 * Sends an export. The first item is read before any header goes out, so a bad filter is still a 422;
 * after that the body streams, and a failure half-way can only cut the connection.
 */
const sendExport = async <Q, Item>(
  r: Report<Q, Item>,
  rc: ReportContext,
  q: Q,
  format: 'csv' | 'xlsx',
  res: Response,
) => {
  const rows = r.items(rc, q)[Symbol.asyncIterator]();
  const first = await rows.next();
  res.status(200);
  res.setHeader('Content-Type', format === 'csv' ? CSV_MEDIA_TYPE : XLSX_MEDIA_TYPE);
  res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(r.file, rc.now, rc.tz, format)}"`);
  res.setHeader('Cache-Control', 'no-store');
  try {
    if (format === 'csv') await writeCsv(res, r.columns, first, rows);
    else await writeXlsx(res, r.file, r.columns, rc.tz, first, rows);
    res.end();
  } catch (err) {
    await rows.return?.();
    res.destroy(err as Error);
  }
};

/** One list route and one export route per report descriptor. */
// A report's item type is both produced (items) and consumed (columns), so reports of different items share
// no type but any; each descriptor is checked where it is declared.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const reportRoutes = (ctx: ApiContext, router: Router, reports: Report<any, any>[]): void => {
  const guards = requireRole(ctx.auth, 'ADMIN');
  const tags = ['admin-reports'];
  for (const r of reports) {
    defineRoute(
      router,
      ctx.openapi,
      {
        method: 'get',
        path: r.path,
        summary: r.summary,
        tags,
        guards,
        auditor: 'read',
        query: r.query,
        rules: r.rules,
        responses: { 200: { description: 'The report page', schema: r.response } },
        errors: { 403: ['Forbidden'] },
      },
      async ({ query, actor }) => r.list(await contextOf(ctx, actor), query),
    );
    defineRoute(
      router,
      ctx.openapi,
      {
        method: 'get',
        path: `${r.path}/export`,
        summary: `${r.summary}: CSV (default) or XLSX export, same filters and order, not paginated`,
        tags,
        guards,
        auditor: 'read',
        query: (r.query as unknown as ZodObject<ZodRawShape>).extend(ExportFormat.shape),
        rules: r.rules,
        // The media type without its charset parameter, as clients match it (the charset is in the description).
        responses: {
          200: {
            description: `text/csv (UTF-8 with BOM) or ${XLSX_MEDIA_TYPE}, streamed as an attachment`,
            schema: FileBody,
            mediaType: ['text/csv', XLSX_MEDIA_TYPE],
          },
        },
        errors: { 403: ['Forbidden'] },
      },
      async ({ query, actor, req, res }) => {
        await auditorReads(ctx, actor, req, 'report_export');
        const { format, ...filters } = query as { format: 'csv' | 'xlsx' } & Record<string, unknown>;
        await sendExport(r, await contextOf(ctx, actor), filters, format, res);
      },
    );
  }
};
