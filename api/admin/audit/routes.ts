import type { Router } from 'express';
import { z } from 'zod';
import { takeAnchorOnDemand } from '../../../commands/audit/anchors.js';
import type { AnchorData } from '../../../domain/audit/anchor.js';
import { notFound } from '../../../domain/errors.js';
import { receiptStream } from '../../../domain/settlement/events.js';
import { receiptStreamIdOf } from '../../../projections/settlement/receiptQueries.js';
import {
  verifyExport,
  type ExportAnchor,
  type ExportEvent,
  type ExportVerdict,
} from '../../../infra/audit/exportFile.js';
import { readAnchorEvents } from '../../../infra/eventStore/postgresAudit.js';
import type { ApiContext } from '../../apiContext.js';
import { requireRole } from '../../auth.js';
import { defineRoute, FileBody } from '../../route.js';
import { auditorReads } from './accessRoutes.js';
import { isMoneyStream, MONEY_STREAM, streamExport } from './export.js';
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
});
const AnchorSummary = z.object({
  anchor_id: z.string(),
  kind: z.enum(['DAILY', 'ON_DEMAND']),
  taken_at: z.string(),
  root: z.string(),
  stream_count: z.number().int(),
});
const summaryOf = (a: AnchorData): z.infer<typeof AnchorSummary> => ({
  anchor_id: a.anchorId,
  kind: a.kind,
  taken_at: a.takenAt,
  root: a.root,
  stream_count: a.heads.length,
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
  const exportOf = async (name: string) => {
    const stream = await streamOf(name);
    const lines = stream ? await streamExport(ctx.pool, stream, ctx.clock.now()) : null;
    if (!lines) throw streamNotFound();
    return lines;
  };

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
      responses: {
        200: {
          description: 'JSON lines: a header, one line per event as stored, the anchor proof (npm run audit:verify)',
          schema: FileBody,
          mediaType: NDJSON,
        },
      },
      errors: { 404: ['StreamNotFound'] },
    },
    async ({ params, actor, req, res }) => {
      await auditorReads(ctx, actor, req, 'stream_export');
      const lines = await exportOf(params.stream);
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
    async ({ params, query }) => {
      const lines = await exportOf(params.stream);
      const parsed = lines.map((l) => JSON.parse(l) as { kind: string });
      const header = lines[0];
      const { stream } = JSON.parse(header) as { stream: string };
      const events = lines.filter((_, i) => parsed[i].kind === 'event');
      const anchorAt = parsed.findIndex((l) => l.kind === 'anchor');
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
    },
    async ({ actor, res }) => {
      const anchor = await takeAnchorOnDemand(ctx, actor.id);
      res.status(201);
      return summaryOf(anchor);
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
    async ({ query }) => ({
      anchors: (await readAnchorEvents(ctx.pool, { limit: query.limit })).map((e) => summaryOf(e.data as AnchorData)),
    }),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/audit/anchors/:anchorId',
      summary: 'One anchor with the head of every money stream it commits to (its leaves, in order)',
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
    async ({ params }) => {
      const [found] = await readAnchorEvents(ctx.pool, { anchorId: params.anchorId, limit: 1 });
      if (!found) throw notFound('AnchorNotFound', 'No anchor of that id.');
      const anchor = found.data as AnchorData;
      return { ...summaryOf(anchor), heads: anchor.heads };
    },
  );
};
