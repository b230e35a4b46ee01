import type { Router } from 'express';
import { z } from 'zod';
import { notFound } from '../../../domain/errors.js';
import type { ApiContext } from '../../apiContext.js';
import {
  createStation,
  deleteStation,
  moderateComment,
  setStationActive,
  stationDefaults,
  updateStation,
  type StationPatch,
} from '../../../commands/stations/stationCommands.js';
import {
  adminStationList,
  findStation,
  reportSummary,
  stationComments,
  stationReports,
} from '../../../stores/stations/stationStore.js';
import { requireRole } from '../../auth.js';
import { dateOrderRule } from '../../crossFieldRules.js';
import { defineRoute } from '../../route.js';
import { afterTimeId, CursorParam, limitParam, pageOf, pageSchema } from '../../cursor.js';
import { StationParams } from '../../stations/routes.js';
import { stationImportRoutes } from './importRoutes.js';
import {
  AdminCommentSchema,
  adminCommentView,
  adminListItemView,
  AdminReportSchema,
  adminReportView,
  AdminStationListItemSchema,
  AdminStationSchema,
  adminStationView,
  COLORES,
  ESTADOS,
  reportColorOf,
  stationTypeOf,
  SummarySchema,
  summaryView,
  TIPOS,
} from './views.js';
import { dayOrInstant, queryFilter, queryInteger } from '../../schemas.js';

/** The detail's report window (docs/domain-rules.md, stations). */
const DETAIL_WINDOW_DAYS = 30;
/** The detail lists at most this many of those reports; the reports route pages through all of them. */
const DETAIL_REPORTS_MAX = 100;

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (00:00 to 23:59)');
const text = (max: number) => z.string().trim().min(1).max(max);
const nullableText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullable()
    .transform((v) => v || null);

const fields = {
  name: text(160),
  address: text(280),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  tipo: z.enum(TIPOS),
  description: nullableText(1000),
  landmark: nullableText(280),
  city: text(120),
  opening_time: hhmm.nullable(),
  closing_time: hhmm.nullable(),
  is_verified: z.boolean(),
};

const CreateBody = z.object({
  ...fields,
  description: fields.description.optional(),
  landmark: fields.landmark.optional(),
  city: fields.city.optional(),
  opening_time: fields.opening_time.optional(),
  closing_time: fields.closing_time.optional(),
  is_verified: fields.is_verified.optional(),
});
const PatchBody = z.object(fields).partial();

const ListQuery = z.object({
  tipo: queryFilter(TIPOS),
  estado: queryFilter(['ACTIVA', 'INACTIVA', 'TODAS']),
  q: z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : v), z.string().max(120).optional()),
  limit: limitParam(25),
  cursor: CursorParam,
});

const StatusBody = z.object({ estado: z.enum(ESTADOS) });

/** A day (YYYY-MM-DD, UTC) or an instant (ISO 8601 with offset). */
const dayOrInstantParam = dayOrInstant.optional();
const ReportsQuery = z
  .object({
    color: queryFilter(COLORES),
    from: dayOrInstantParam,
    to: dayOrInstantParam.openapi({ description: 'Not before from (a day includes the whole day).' }),
    limit: limitParam(25),
    cursor: CursorParam,
  })
  .transform((q) => ({
    ...q,
    // A day runs from its start (from) to the start of the next day (to, exclusive): `to` includes its day.
    fromAt: q.from ? new Date(q.from.length === 10 ? `${q.from}T00:00:00Z` : q.from) : undefined,
    toAt: q.to
      ? q.to.length === 10
        ? new Date(Date.parse(`${q.to}T00:00:00Z`) + 86_400_000)
        : new Date(Date.parse(q.to) + 1)
      : undefined,
  }))
  .refine((q) => !q.fromAt || !q.toAt || q.toAt > q.fromAt, { path: ['to'], message: 'must not be before from' });

const CommentsQuery = z.object({ limit: limitParam(25), cursor: CursorParam });
const CommentParams = StationParams.extend({
  commentId: queryInteger(1, Number.MAX_SAFE_INTEGER),
});

const patchOf = (b: z.infer<typeof PatchBody>): StationPatch => ({
  name: b.name,
  address: b.address,
  latitude: b.latitude,
  longitude: b.longitude,
  stationType: b.tipo && stationTypeOf(b.tipo),
  description: b.description,
  landmark: b.landmark,
  city: b.city,
  openingTime: b.opening_time,
  closingTime: b.closing_time,
  isVerified: b.is_verified,
});

export const adminStationRoutes = (ctx: ApiContext, router: Router): void => {
  const admin = requireRole(ctx.auth, 'ADMIN');
  const tags = ['admin-stations'];
  const stationOr404 = async (id: number) => {
    const s = await findStation(ctx.db, id);
    if (!s) throw notFound('StationNotFound', 'No such station.');
    return s;
  };

  // Before /admin/stations/:stationId, which would otherwise take "bulk-import" as an id.
  stationImportRoutes(ctx, router);

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/stations',
      summary: 'Stations, newest first (deleted ones left out)',
      tags,
      guards: admin,
      query: ListQuery,
      responses: { 200: { description: 'A page of stations', schema: pageSchema(AdminStationListItemSchema) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query }) => {
      const after = afterTimeId(query.cursor);
      const rows = await adminStationList(ctx.db, {
        limit: query.limit + 1,
        after,
        type: query.tipo && stationTypeOf(query.tipo),
        active: query.estado === 'ACTIVA' ? true : query.estado === 'INACTIVA' ? false : undefined,
        search: query.q,
      });
      return pageOf(rows, query.limit, adminListItemView);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/stations',
      summary: 'Create a station (inside Venezuela; no other of the same name within 50 m)',
      tags,
      guards: admin,
      body: CreateBody,
      responses: { 201: { description: 'Created', schema: z.object({ station: AdminStationSchema }) } },
      errors: { 403: ['Forbidden'], 422: ['CoordsOutOfRange', 'DuplicateStation'] },
    },
    async ({ body, res }) => {
      const station = await createStation(
        ctx.db,
        {
          name: body.name,
          address: body.address,
          latitude: body.latitude,
          longitude: body.longitude,
          stationType: stationTypeOf(body.tipo),
          city: body.city ?? stationDefaults.city,
          isVerified: body.is_verified ?? stationDefaults.isVerified,
          description: body.description ?? null,
          landmark: body.landmark ?? null,
          openingTime: body.opening_time ?? null,
          closingTime: body.closing_time ?? null,
        },
        ctx.clock.now(),
      );
      res.status(201);
      return { station: adminStationView(station) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/stations/:stationId',
      summary: 'Station detail with the last 30 days of reports (at most 100, newest first) and their summary',
      tags,
      guards: admin,
      params: StationParams,
      responses: {
        200: {
          description: 'Detail',
          schema: z.object({
            station: AdminStationSchema,
            reports: z.array(AdminReportSchema),
            summary: SummarySchema,
          }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['StationNotFound'] },
    },
    async ({ params }) => {
      const s = await stationOr404(params.stationId);
      const since = new Date(ctx.clock.now().getTime() - DETAIL_WINDOW_DAYS * 86_400_000);
      const [reports, summary] = await Promise.all([
        stationReports(ctx.db, { stationId: s.id, limit: DETAIL_REPORTS_MAX, from: since }),
        reportSummary(ctx.db, s.id, since),
      ]);
      return { station: adminStationView(s), reports: reports.map(adminReportView), summary: summaryView(summary) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'patch',
      path: '/admin/stations/:stationId',
      summary: 'Partial update (omitted fields unchanged)',
      tags,
      guards: admin,
      params: StationParams,
      body: PatchBody,
      responses: {
        200: { description: 'Updated', schema: z.object({ station: AdminStationSchema }) },
      },
      errors: { 403: ['Forbidden'], 404: ['StationNotFound'], 422: ['CoordsOutOfRange', 'DuplicateStation'] },
    },
    async ({ params, body }) => ({
      station: adminStationView(await updateStation(ctx.db, params.stationId, patchOf(body), ctx.clock.now())),
    }),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'patch',
      path: '/admin/stations/:stationId/status',
      summary: 'Activate or deactivate',
      tags,
      guards: admin,
      params: StationParams,
      body: StatusBody,
      responses: {
        200: {
          description: 'New state',
          schema: z.object({ id: z.number().int(), estado: z.enum(ESTADOS), updated_at: z.string() }),
        },
      },
      errors: { 403: ['Forbidden'], 404: ['StationNotFound'] },
    },
    async ({ params, body }) => {
      const s = await setStationActive(ctx.db, params.stationId, body.estado === 'ACTIVA', ctx.clock.now());
      return { id: s.id, estado: body.estado, updated_at: new Date(s.updated_at).toISOString() };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'delete',
      path: '/admin/stations/:stationId',
      summary: 'Soft delete (refused while the station has a report from the last 7 days)',
      tags,
      guards: admin,
      params: StationParams,
      responses: { 200: { description: 'Deleted', schema: z.object({ deleted: z.literal(true) }) } },
      errors: { 403: ['Forbidden'], 404: ['StationNotFound'], 422: ['HasRecentReports'] },
    },
    async ({ params }) => {
      await deleteStation(ctx.db, params.stationId, ctx.clock.now());
      return { deleted: true as const };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/stations/:stationId/reports',
      summary: 'Report history, newest first',
      tags,
      guards: admin,
      params: StationParams,
      query: ReportsQuery,
      rules: dateOrderRule('from', 'to'),
      responses: { 200: { description: 'A page of reports', schema: pageSchema(AdminReportSchema) } },
      errors: { 403: ['Forbidden'], 404: ['StationNotFound'] },
    },
    async ({ params, query }) => {
      const after = afterTimeId(query.cursor);
      const s = await stationOr404(params.stationId);
      const rows = await stationReports(ctx.db, {
        stationId: s.id,
        limit: query.limit + 1,
        after,
        color: query.color && reportColorOf(query.color),
        from: query.fromAt,
        to: query.toAt,
      });
      return pageOf(rows, query.limit, adminReportView);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/stations/:stationId/comments',
      summary: 'Comment wall, newest first',
      tags,
      guards: admin,
      params: StationParams,
      query: CommentsQuery,
      responses: { 200: { description: 'A page of comments', schema: pageSchema(AdminCommentSchema) } },
      errors: { 403: ['Forbidden'], 404: ['StationNotFound'] },
    },
    async ({ params, query }) => {
      const after = afterTimeId(query.cursor);
      const s = await stationOr404(params.stationId);
      return pageOf(
        await stationComments(ctx.db, { stationId: s.id, limit: query.limit + 1, after }),
        query.limit,
        adminCommentView,
      );
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'delete',
      path: '/admin/stations/:stationId/comments/:commentId',
      summary: 'Moderate (remove) a comment',
      tags,
      guards: admin,
      params: CommentParams,
      responses: { 200: { description: 'Removed', schema: z.object({ ok: z.literal(true) }) } },
      errors: { 403: ['Forbidden'], 404: ['CommentNotFound', 'StationNotFound'] },
    },
    async ({ params, actor }) => {
      await moderateComment(ctx.db, actor, params.stationId, params.commentId, ctx.clock.now());
      return { ok: true as const };
    },
  );
};
