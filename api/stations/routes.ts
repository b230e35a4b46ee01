import type { Router } from 'express';
import { z } from 'zod';
import { DomainError, notFound } from '../../domain/errors.js';
import type { ApiContext } from '../apiContext.js';
import {
  deleteOwnComment,
  enforceLimit,
  postComment,
  reportStation,
  type ReportInput,
} from '../../commands/stations/stationCommands.js';
import { STATION_TYPES } from '../../commands/stations/stationRules.js';
import { rateLimit } from '../../commands/identity/rateLimit.js';
import {
  findPublicStation,
  findReport,
  nearbyStations,
  stationComments,
  stationReports,
  statusesOf,
  type StationRow,
} from '../../stores/stations/stationStore.js';
import { REPORT_COLORS, STATUS_REPORTS } from '../../stores/stations/stationStatus.js';
import { authenticate, requireRole, type Actor } from '../auth.js';
import { defineRoute, type ErrorAnswers } from '../route.js';
import { blankIsAbsent, queryLatitude, queryLongitude, queryNumber, queryInteger } from '../schemas.js';
import { afterTimeId, CursorParam, limitParam, pageOf, pageSchema } from '../cursor.js';
import {
  CommentSchema,
  commentView,
  DetailReportSchema,
  detailReportView,
  ReportSchema,
  reportView,
  StationSchema,
  stationView,
} from './views.js';

/** Request limits per caller and minute (docs/domain-rules.md, limits). */
export const NEARBY_PER_MINUTE = 20;
export const COMMENTS_PER_MINUTE = 10;

const NearbyQuery = z.object({
  lat: z.preprocess(blankIsAbsent, queryLatitude),
  lng: z.preprocess(blankIsAbsent, queryLongitude),
  radiusKm: queryNumber(0, 100, { exclusiveMin: true }).default(10),
  type: z.enum(STATION_TYPES).optional(),
});

export const StationParams = z.object({ stationId: queryInteger(1, Number.MAX_SAFE_INTEGER) });
const CommentParams = StationParams.extend({
  commentId: queryInteger(1, Number.MAX_SAFE_INTEGER),
});

const reportFields = {
  color: z.enum(REPORT_COLORS),
  waitMinutes: z.number().int().min(0).max(240).nullable().optional(),
  comment: z.string().trim().max(280).nullable().optional(),
  driverLat: z.number().min(-90).max(90),
  driverLng: z.number().min(-180).max(180),
};
const ReportBody = z.object({ stationId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER), ...reportFields });
const PathReportBody = z.object(reportFields);

const CommentsQuery = z.object({ limit: limitParam(30), cursor: CursorParam });
const CommentBody = z.object({ content: z.string().trim().min(1).max(500) });

export const publicStationRoutes = (ctx: ApiContext, router: Router): void => {
  const anyone = [authenticate(ctx.auth)];
  const driver = requireRole(ctx.auth, 'DRIVER');
  const tags = ['stations'];
  const statusWindow = () => ({ now: ctx.clock.now(), windowMinutes: ctx.config.STATION_STATUS_WINDOW_MINUTES });

  const limits = {
    nearby: rateLimit(ctx.pool, 'stations-nearby', NEARBY_PER_MINUTE, 60_000),
    comments: rateLimit(ctx.pool, 'stations-comments', COMMENTS_PER_MINUTE, 60_000),
  };
  const limited = async (limit: keyof typeof limits, actor: Actor) => {
    if (ctx.config.STATION_RATE_LIMIT) await enforceLimit(limits[limit], `${actor.role}:${actor.id}`);
  };
  /** A refused request also says when to come back in the standard header. */
  const withRetryAfter = async <T>(
    res: { setHeader(k: string, v: string): unknown },
    run: () => Promise<T>,
  ): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      if (err instanceof DomainError && err.code === 'Cooldown') {
        const d = err.details as { retryAfterSeconds?: number; retryAfterMinutes?: number };
        res.setHeader('Retry-After', String(d.retryAfterSeconds ?? (d.retryAfterMinutes ?? 0) * 60));
      }
      throw err;
    }
  };

  const withStatus = async (stations: StationRow[]) => statusesOf(ctx.db, stations, statusWindow());

  for (const path of ['/stations/nearby', '/stations']) {
    defineRoute(
      router,
      ctx.openapi,
      {
        method: 'get',
        path,
        summary:
          path === '/stations'
            ? 'Nearby stations (exact alias of /stations/nearby)'
            : 'Active stations within radiusKm, nearest first (at most 100)',
        tags,
        guards: anyone,
        query: NearbyQuery,
        responses: { 200: { description: 'Stations', schema: z.object({ stations: z.array(StationSchema) }) } },
        errors: { 429: { ids: ['Cooldown'], description: 'Cooldown (20 per minute)' } },
      },
      async ({ query, actor, res }) => {
        await withRetryAfter(res, () => limited('nearby', actor));
        const found = await nearbyStations(ctx.db, {
          centre: { latitude: query.lat, longitude: query.lng },
          radiusKm: query.radiusKm,
          type: query.type,
        });
        const statuses = await withStatus(found.map((f) => f.station));
        return { stations: found.map((f) => stationView(f.station, statuses.get(f.station.id) ?? null, f.distanceKm)) };
      },
    );
  }

  const report = async (actor: Actor, input: ReportInput, res: { setHeader(k: string, v: string): unknown }) => {
    const id = await withRetryAfter(res, () =>
      reportStation(ctx.db, actor, input, ctx.clock.now(), ctx.config.STATION_REPORT_COOLDOWN_MINUTES),
    );
    const saved = (await findReport(ctx.db, id))!;
    const station = await findPublicStation(ctx.db, input.stationId);
    const status = station ? (await withStatus([station])).get(station.id) : null;
    return { report: reportView(saved), confidence: status?.confidence ?? 0 };
  };
  const reportResponses = {
    200: {
      description: 'The report and the station confidence after it',
      schema: z.object({ report: ReportSchema, confidence: z.number() }),
    },
  };
  const reportErrors: ErrorAnswers = {
    403: { ids: ['Forbidden'], description: 'Forbidden: not a driver' },
    404: ['DriverNotFound', 'StationNotFound'],
    429: { ids: ['Cooldown'], description: 'Cooldown with retryAfterMinutes' },
  };
  const inputOf = (stationId: number, b: z.infer<typeof PathReportBody>): ReportInput => ({
    stationId,
    color: b.color,
    waitMinutes: b.waitMinutes ?? null,
    comment: b.comment || null,
    driverLat: b.driverLat,
    driverLng: b.driverLng,
  });

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/stations/report',
      summary: 'Report a station status (15-minute cooldown per station)',
      tags,
      guards: driver,
      body: ReportBody,
      responses: reportResponses,
      errors: reportErrors,
    },
    ({ body, actor, res }) => report(actor, inputOf(body.stationId, body), res),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/stations/:stationId/reports',
      summary: 'Report a station status (alias; stationId from the path)',
      tags,
      guards: driver,
      params: StationParams,
      body: PathReportBody,
      responses: reportResponses,
      errors: reportErrors,
    },
    ({ params, body, actor, res }) => report(actor, inputOf(params.stationId, body), res),
  );

  const publicStation = async (id: number) => {
    const s = await findPublicStation(ctx.db, id);
    if (!s) throw notFound('StationNotFound', 'No such station.');
    return s;
  };

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/stations/:stationId',
      summary: 'Station detail with its 20 most recent reports',
      tags,
      guards: anyone,
      params: StationParams,
      responses: {
        200: {
          description: 'Detail',
          schema: z.object({ station: StationSchema, reports: z.array(DetailReportSchema) }),
        },
      },
      errors: { 404: ['StationNotFound'] },
    },
    async ({ params }) => {
      const s = await publicStation(params.stationId);
      const [statuses, reports] = await Promise.all([
        withStatus([s]),
        stationReports(ctx.db, { stationId: s.id, limit: STATUS_REPORTS }),
      ]);
      return { station: stationView(s, statuses.get(s.id) ?? null), reports: reports.map(detailReportView) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/stations/:stationId/comments',
      summary: 'Comment wall, newest first',
      tags,
      guards: anyone,
      params: StationParams,
      query: CommentsQuery,
      responses: { 200: { description: 'A page of comments', schema: pageSchema(CommentSchema) } },
      errors: { 404: ['StationNotFound'] },
    },
    async ({ params, query }) => {
      const after = afterTimeId(query.cursor);
      const s = await publicStation(params.stationId);
      const rows = await stationComments(ctx.db, { stationId: s.id, limit: query.limit + 1, after });
      return pageOf(rows, query.limit, commentView);
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/stations/:stationId/comments',
      summary: 'Post a comment (10 per minute)',
      tags,
      guards: driver,
      params: StationParams,
      body: CommentBody,
      responses: { 201: { description: 'Posted', schema: z.object({ comment: CommentSchema }) } },
      errors: { 403: ['Forbidden'], 404: ['StationNotFound'], 429: ['Cooldown'] },
    },
    async ({ params, body, actor, res }) => {
      await withRetryAfter(res, () => limited('comments', actor));
      const comment = await postComment(ctx.db, actor, params.stationId, body.content, ctx.clock.now());
      res.status(201);
      return { comment: commentView(comment) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'delete',
      path: '/stations/:stationId/comments/:commentId',
      summary: 'Delete your own comment',
      tags,
      guards: driver,
      params: CommentParams,
      responses: { 200: { description: 'Deleted', schema: z.object({ ok: z.literal(true) }) } },
      errors: {
        403: { ids: ['Forbidden'], description: 'Forbidden (not the author)' },
        404: ['NotFound', 'StationNotFound'],
      },
    },
    async ({ params, actor }) => {
      await deleteOwnComment(ctx.db, actor, params.stationId, params.commentId, ctx.clock.now());
      return { ok: true as const };
    },
  );
};
