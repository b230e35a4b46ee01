import { randomUUID } from 'node:crypto';
import { formatInTimeZone } from 'date-fns-tz';
import { anchorDecider, type AnchorData, type AnchorRefusal } from '../../domain/audit/anchor.js';
import { anchorStream, CHAINED_CATEGORIES } from '../../domain/audit/events.js';
import { chainedOf, checkChain, checkExtension } from '../../infra/audit/chain.js';
import { merkleRoot, sortedHeads, type StreamHead } from '../../infra/audit/merkle.js';
import { readAnchorEvents, readChainSince, readStoredStream } from '../../infra/eventStore/postgresAudit.js';
import type { ScheduledJob } from '../../infra/scheduler.js';
import { conflict, tooMany } from '../../domain/errors.js';
import type { CommandDeps } from '../deps.js';
import { rateLimit } from '../identity/rateLimit.js';
import { loadSettlementConfig } from '../settlement/settlementConfig.js';

/**
 * Anchors (docs/decisions/0051-hash-chain-and-anchors.md, 0071): the Merkle root over the head of every money
 * stream, recorded as an AuditAnchorRecorded event. Daily, on the first scheduler tick of each day of the
 * settlement timezone (`auditanchor-<YYYY-MM-DD>`: two schedulers record it once); on demand from the back
 * office. Each anchor extends the one before: it is taken only when every head that one holds is still in
 * the log at its revision with its hash, and records which anchor it extends; otherwise it is refused.
 */
type AnchorDeps = Pick<CommandDeps, 'handle' | 'pool' | 'clock' | 'store' | 'logger'>;

const SYSTEM = { actor: { id: null, role: 'SYSTEM' } };

/** The stable message of a refusal in the log: what an alert looks for. */
export const ANCHOR_REFUSED = 'audit anchor refused: the log no longer extends the previous anchor';

/** How many of the streams that broke the extension a refusal names (the log and the event). */
const NAMED_PROBLEMS = 20;

type StreamProblem = AnchorRefusal['problems'][number];

/**
 * The log checked against the previous anchor: the head of every money stream whose chain verifies (from the
 * anchored head on, for a stream the previous anchor holds), and each held stream the log no longer extends.
 * A stream no anchor held yet whose chain does not verify is left out, loudly: no anchor vouches for it.
 */
const extensionOf = async (
  deps: AnchorDeps,
  previous: AnchorData | null,
): Promise<{ heads: StreamHead[]; broken: StreamProblem[] }> => {
  const held = new Map((previous?.heads ?? []).map((h) => [h.stream, h]));
  const read = await readChainSince(deps.pool, CHAINED_CATEGORIES, previous?.heads ?? []);
  const heads: StreamHead[] = [];
  const broken: StreamProblem[] = [];
  for (const [stream, head] of held)
    if (!read.has(stream))
      broken.push({
        stream,
        position: head.position,
        kind: 'anchoredEventMissing',
        message: `revision ${head.position}, which an anchor holds, is gone`,
      });
  for (const [stream, found] of read) {
    const anchored = held.get(stream);
    // A stream stored before the chain carries no hash where the anchor holds it: all of it is hashed.
    const events =
      anchored && found[0].streamPosition !== 0 && typeof found[0].metadata.hash !== 'string'
        ? await readStoredStream(deps.pool, stream)
        : found;
    const chained = events.map(chainedOf);
    const { hashes, problem } = anchored ? checkExtension(stream, chained, anchored) : checkChain(stream, chained);
    if (problem && anchored)
      broken.push({ stream, position: problem.position, kind: problem.kind, message: problem.message });
    else if (problem)
      deps.logger.error(
        { stream, problem },
        'audit: a money stream whose chain does not verify is left out of the anchor',
      );
    else heads.push({ stream, position: events.at(-1)!.streamPosition, hash: hashes.at(-1)! });
  }
  return { heads: sortedHeads(heads), broken };
};

type AnchorOutcome = { recorded: AnchorData } | { refused: AnchorRefusal };

export const takeAnchor = async (
  deps: AnchorDeps,
  kind: AnchorData['kind'],
  anchorId: string,
  metadata: Record<string, unknown>,
): Promise<AnchorOutcome> => {
  const [last] = await readAnchorEvents(deps.pool, { limit: 1 });
  const previous = last ? (last.data as AnchorData) : null;
  const { heads, broken } = await extensionOf(deps, previous);
  const at = deps.clock.now().toISOString();
  const command =
    previous && broken.length > 0
      ? ({
          type: 'RefuseAnchor',
          refusal: {
            anchorId,
            kind,
            refusedAt: at,
            previous: { anchorId: previous.anchorId, root: previous.root },
            problems: broken.slice(0, NAMED_PROBLEMS),
            streams: broken.length,
          },
        } as const)
      : ({
          type: 'RecordAnchor',
          anchor: {
            anchorId,
            kind,
            takenAt: at,
            root: merkleRoot(heads),
            heads,
            previous: previous && { anchorId: previous.anchorId, root: previous.root },
          },
        } as const);
  if (command.type === 'RefuseAnchor') {
    const { previous: extends_, problems, streams } = command.refusal;
    deps.logger.error({ anchorId, kind, previous: extends_, streams, problems }, ANCHOR_REFUSED);
  }
  const { state } = await deps.handle(anchorDecider, anchorStream(anchorId), command, { metadata });
  // The daily anchor another instance decided first is the one that stands.
  return state?.type === 'AuditAnchorRefused' ? { refused: state.data } : { recorded: state!.data as AnchorData };
};

/**
 * Anchors taken on demand (POST /admin/audit/anchors): each reads every money stream, so at most one per
 * AUDIT_ANCHOR_INTERVAL_SECONDS whoever asks (429 Cooldown sooner; the one just taken serves everyone), and a
 * refusal answers 409 Conflict naming the streams.
 */
export const onDemandAnchors = (deps: AnchorDeps & Pick<CommandDeps, 'config'>) => {
  const seconds = deps.config.AUDIT_ANCHOR_INTERVAL_SECONDS;
  const interval = seconds > 0 ? rateLimit(deps.pool, 'audit-anchors', 1, seconds * 1000) : null;
  return async (adminId: number): Promise<AnchorData> => {
    const verdict = interval && (await interval.hit('any'));
    if (verdict && !verdict.allowed)
      throw tooMany('Cooldown', `An anchor was taken on demand less than ${seconds} s ago; use that one.`, {
        retryAfterSeconds: verdict.retryAfterSeconds,
      });
    const outcome = await takeAnchor(deps, 'ON_DEMAND', randomUUID(), { actor: { id: adminId, role: 'ADMIN' } });
    if ('recorded' in outcome) return outcome.recorded;
    const { previous, streams, problems } = outcome.refused;
    throw conflict(
      'Conflict',
      `Anchor refused: ${streams} money stream(s) no longer extend anchor ${previous.anchorId}.`,
      {
        previous_anchor_id: previous.anchorId,
        streams,
        problems: problems.map(({ stream, position, kind }) => ({ stream, position, kind })),
      },
    );
  };
};

/** The daily anchor: one per day of the settlement timezone, taken (or refused) at the first tick of the day. */
export const dailyAnchorJob = (deps: AnchorDeps, everyMs: number): ScheduledJob => ({
  name: 'audit-daily-anchor',
  everyMs,
  async run(now) {
    const { timezone } = await loadSettlementConfig(deps);
    const day = formatInTimeZone(now, timezone, 'yyyy-MM-dd');
    if ((await deps.store.readStream(anchorStream(day))).length > 0) return;
    const outcome = await takeAnchor(deps, 'DAILY', day, SYSTEM);
    if ('recorded' in outcome) {
      const { anchorId, root, heads } = outcome.recorded;
      deps.logger.info({ anchorId, root, streams: heads.length }, 'daily anchor');
    }
  },
});
