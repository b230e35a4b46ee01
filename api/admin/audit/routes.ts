import type { Router } from 'express';
import { z } from 'zod';
import { onDemandAnchors } from '../../../commands/audit/anchors.js';
import type { AnchorData, AnchorRefusal } from '../../../domain/audit/anchor.js';
import { notFound } from '../../../domain/errors.js';
import { receiptStream } from '../../../domain/settlement/events.js';
import { receiptStreamIdOf } from '../../../projections/settlement/receiptQueries.js';
import {
  verifyExport,
  type ExportAnchor,
  type ExportEvent,
  type ExportVerdict,
} from '../../../infra/audit/exportFile.js';
import {
  readAnchorEvents,
  readAnchorSummaries,
  readStandingRefusal,
  type AnchorSummaryRow,
} from '../../../infra/eventStore/postgresAudit.js';
import type { ApiContext } from '../../apiContext.js';
import { requireRole } from '../../auth.js';
import { defineRoute, FileBody } from '../../route.js';
import type { Actor } from '../../auth.js';
import { auditorReads } from './accessRoutes.js';
import { isMoneyStream, MONEY_STREAM, streamExport } from './export.js';
import { moneyStreamScopeOf } from './streamScope.js';
import { queryInteger } from '../../schemas.js';

/**
 * The auditor's proof that no money stream was rewritten (docs/decisions/0051-hash-chain-and-anchors.md): a
 * stream's export as JSON lines (checked offline by `npm run audit:verify`), its chain status as of an instant,
 * and the anchors. Super admins take anchors; super admins and auditors read the rest (docs/decisions/0085), and an
 * outside auditor handed the export and the published roots needs no account to check them.
 */
const NDJSON = 'application/x-ndjson';
/** A receipt is also named by its record number (receipt-<n>), as the back office shows it. */
const RECEIPT_BY_NUMBER = /^receipt-([1-9][0-9]{0,14})$/;
/**
 * Any other name is a 404 StreamNotFound, as a malformed path id is; the pattern tells clients (and the
 * outside check, which otherwise finds no string to call invalid) which names can exist.
 */
const StreamParams = z.object({
  stream: z.string().openapi({
    description:
      'A money stream: receipt-<uuid> (or receipt-<record id>), wallet-<driver id>, credit-<client id> or payment-<id>',
    pattern: `^(?:${RECEIPT_BY_NUMBER.source.slice(1, -1)}|${MONEY_STREAM.source.slice(1, -1)})$`,
  }),
});
const streamNotFound = () => notFound('StreamNotFound', 'No money stream of that name.');

const Problem = z.object({
  kind: z.string(),
  position: z.number().int().nullable(),
  event_id: z.string().nullable(),
  message: z.string(),
});
const Check = z.object({ verified: z.boolean(), events: z.number().int(), problem: Problem.nullable() });
/** The refusal standing since the last anchor was recorded, with what it says of this stream. */
const AnchorRefused = z.object({
  anchor_id: z.string(),
  refused_at: z.string(),
  previous_anchor_id: z.string(),
  /** How many money streams no longer extend the previous anchor. */
  streams: z.number().int(),
  /** This stream's break, when the refusal names it. */
  problem: Problem.nullable(),
});
const refusedOf = (r: AnchorRefusal, stream: string): z.infer<typeof AnchorRefused> => {
  const own = r.problems.find((p) => p.stream === stream);
  return {
    anchor_id: r.anchorId,
    refused_at: r.refusedAt,
    previous_anchor_id: r.previous.anchorId,
    streams: r.streams,
    problem: own ? { kind: own.kind, position: own.position, event_id: null, message: own.message } : null,
  };
};
const ChainStatus = z.object({
  stream: z.string(),
  /** The whole stream as stored now. */
  chain: Check,
  as_of: Check.extend({ instant: z.string() }).nullable(),
  anchor: Check.extend({
    anchor_id: z.string(),
    taken_at: z.string(),
    root: z.string(),
    position: z.number().int(),
  }).nullable(),
  /** Set while the latest anchor was refused (the log no longer extends the one before): the console's alarm. */
  anchor_refused: AnchorRefused.nullable(),
});
const AnchorSummary = z.object({
  anchor_id: z.string(),
  kind: z.enum(['DAILY', 'ON_DEMAND']),
  taken_at: z.string(),
  root: z.string(),
  stream_count: z.number().int(),
  /** The anchor this one extends (null for the first, and for one recorded before anchors chained). */
  previous_anchor_id: z.string().nullable(),
  previous_root: z.string().nullable(),
});
const summaryOf = (a: AnchorSummaryRow): z.infer<typeof AnchorSummary> => ({
  anchor_id: a.anchorId,
  kind: a.kind,
  taken_at: a.takenAt,
  root: a.root,
  stream_count: a.streamCount,
  previous_anchor_id: a.previous?.anchorId ?? null,
  previous_root: a.previous?.root ?? null,
});
const rowOf = (a: AnchorData): AnchorSummaryRow => ({
  ...a,
  streamCount: a.heads.length,
  previous: a.previous ?? null,
});

const checkOf = (v: ExportVerdict): z.infer<typeof Check> => ({
  verified: v.problem === null,
  events: v.events,
  problem: v.problem && {
    kind: v.problem.kind,
    position: v.problem.position,
    event_id: v.problem.eventId,
    message: v.problem.message,
  },
});

export const auditRoutes = (ctx: ApiContext, router: Router) => {
  const guards = requireRole(ctx.auth, 'SUPER_ADMIN');
  const tags = ['admin-audit'];
  const streamOf = async (stream: string): Promise<string | null> => {
    const receipt = RECEIPT_BY_NUMBER.exec(stream);
    if (!receipt) return isMoneyStream(stream) ? stream : null;
    const uuid = await receiptStreamIdOf(ctx.db, Number(receipt[1]));
    return uuid ? receiptStream(uuid) : null;
  };
  /** The stream's export, within the admin's cities (docs/decisions/0072): any other is not found. */
  const exportOf = async (name: string, actor: Actor, root?: string) => {
    const stream = await streamOf(name);
    const visible = stream !== null && (await (await moneyStreamScopeOf(ctx, actor))(stream));
    const lines = visible ? await streamExport(ctx.pool, stream, ctx.clock.now(), root) : null;
    if (!lines) throw streamNotFound();
    return lines;
  };
  const anchorOnDemand = onDemandAnchors(ctx);

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/audit/streams/:stream/export',
      summary: "A money stream's events with their hashes, then the latest anchor's proof, as JSON lines",
      tags,
      guards,
      auditor: 'read',
      params: StreamParams,
      query: z.object({
        root: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .optional()
          .openapi({ description: "An earlier published anchor root: that anchor's proof is exported too" }),
      }),
      responses: {
        200: {
          description: 'JSON lines: a header, one line per event as stored, the anchor proofs (npm run audit:verify)',
          schema: FileBody,
          mediaType: NDJSON,
        },
      },
      errors: { 404: ['StreamNotFound'] },
    },
    async ({ params, query, actor, req, res }) => {
      await auditorReads(ctx, actor, req, 'stream_export');
      const lines = await exportOf(params.stream, actor, query.root);
      const { stream } = JSON.parse(lines[0]) as { stream: string };
      res
        .status(200)
        // After the attachment, whose file name would set its own type.
        .attachment(`${stream}.chain.jsonl`)
        .type(NDJSON)
        .send(lines.join('\n') + '\n');
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/audit/streams/:stream/chain',
      summary: "Whether a money stream's chain verifies: now, up to an instant, and up to its latest anchor",
      tags,
      guards,
      auditor: 'read',
      params: StreamParams,
      query: z.object({ as_of: z.iso.datetime({ offset: true }).optional() }),
      responses: {
        200: { description: 'The chain status, computed as audit:verify computes it', schema: ChainStatus },
      },
      errors: { 404: ['StreamNotFound'] },
    },
    async ({ params, query, actor }) => {
      const lines = await exportOf(params.stream, actor);
      const parsed = lines.map((l) => JSON.parse(l) as { kind: string });
      const header = lines[0];
      const { stream } = JSON.parse(header) as { stream: string };
      const events = lines.filter((_, i) => parsed[i].kind === 'event');
      // The latest anchor is the last line (an earlier one asked for by its root comes before it).
      const anchorAt = parsed.at(-1)?.kind === 'anchor' ? parsed.length - 1 : -1;
      const refusal = await readStandingRefusal(ctx.pool);
      const anchor = anchorAt < 0 ? null : (parsed[anchorAt] as ExportAnchor);
      const asOf = query.as_of === undefined ? null : new Date(query.as_of);
      const untilAsOf = asOf
        ? events.filter((_, i) => new Date((parsed[i + 1] as ExportEvent).recordedAt) <= asOf)
        : [];
      return {
        stream,
        chain: checkOf(verifyExport(lines.join('\n'))),
        as_of: asOf && { instant: asOf.toISOString(), ...checkOf(verifyExport([header, ...untilAsOf].join('\n'))) },
        anchor: anchor && {
          anchor_id: anchor.anchorId,
          taken_at: anchor.takenAt,
          root: anchor.root,
          position: anchor.leaf.position,
          ...checkOf(verifyExport([header, ...events.slice(0, anchor.leaf.position + 1), lines[anchorAt]].join('\n'))),
        },
        anchor_refused: refusal && refusedOf(refusal.data as AnchorRefusal, stream),
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/audit/anchors',
      summary: 'Take an anchor now: the Merkle root over the head of every money stream, recorded as an event',
      tags,
      guards,
      responses: { 201: { description: 'The anchor recorded', schema: AnchorSummary } },
      errors: {
        409: {
          ids: ['Conflict'],
          description: 'Conflict: refused, the log no longer extends the previous anchor (problems name the streams)',
        },
        429: { ids: ['Cooldown'], description: 'Cooldown: an anchor was taken on demand too recently (Retry-After)' },
      },
    },
    async ({ actor, res }) => {
      const anchor = await anchorOnDemand(actor.id);
      res.status(201);
      return summaryOf(rowOf(anchor));
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/audit/anchors',
      summary: 'The latest anchors, newest first: the roots to publish',
      tags,
      guards,
      auditor: 'read',
      query: z.object({ limit: queryInteger(1, 100).default(30) }),
      responses: { 200: { description: 'Anchors', schema: z.object({ anchors: z.array(AnchorSummary) }) } },
    },
    async ({ query }) => ({ anchors: (await readAnchorSummaries(ctx.pool, query.limit)).map(summaryOf) }),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/audit/anchors/:anchorId',
      summary:
        "One anchor with the head of every money stream it commits to in the admin's cities (its leaves, in order)",
      tags,
      guards,
      auditor: 'read',
      params: z.object({ anchorId: z.string() }),
      responses: {
        200: {
          description: 'The anchor and its leaves',
          schema: AnchorSummary.extend({
            heads: z.array(z.object({ stream: z.string(), position: z.number().int(), hash: z.string() })),
          }),
        },
      },
      errors: { 404: ['AnchorNotFound'] },
    },
    async ({ params, actor }) => {
      const [found] = await readAnchorEvents(ctx.pool, { anchorId: params.anchorId, limit: 1 });
      if (!found) throw notFound('AnchorNotFound', 'No anchor of that id.');
      const anchor = found.data as AnchorData;
      const inScope = await moneyStreamScopeOf(ctx, actor);
      const heads = [];
      for (const head of anchor.heads) if (await inScope(head.stream)) heads.push(head);
      return { ...summaryOf(rowOf(anchor)), heads };
    },
  );
};
