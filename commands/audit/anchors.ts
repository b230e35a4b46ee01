import { randomUUID } from 'node:crypto';
import { formatInTimeZone } from 'date-fns-tz';
import { anchorDecider, type AnchorData } from '../../domain/audit/anchor.js';
import { anchorStream, CHAINED_CATEGORIES } from '../../domain/audit/events.js';
import { checkChain } from '../../infra/audit/chain.js';
import { merkleRoot, sortedHeads, type StreamHead } from '../../infra/audit/merkle.js';
import { readChainHeads, readStoredStream } from '../../infra/eventStore/postgresAudit.js';
import type { ScheduledJob } from '../../infra/scheduler.js';
import type { CommandDeps } from '../deps.js';
import { loadSettlementConfig } from '../settlement/settlementConfig.js';

/**
 * Anchors (docs/decisions/0051-hash-chain-and-anchors.md): the Merkle root over the head of every money stream,
 * recorded as an AuditAnchorRecorded event. Daily, on the first scheduler tick of each day of the settlement
 * timezone (`auditanchor-<YYYY-MM-DD>`: two schedulers record it once); on demand from the back office.
 */
type AnchorDeps = Pick<CommandDeps, 'handle' | 'pool' | 'clock' | 'store' | 'logger'>;

const SYSTEM = { actor: { id: null, role: 'SYSTEM' } };

/** Every chained stream's head; a head stored before the chain began is hashed from the stream as stored. */
const currentHeads = async (deps: AnchorDeps): Promise<StreamHead[]> => {
  const heads: StreamHead[] = [];
  for (const h of await readChainHeads(deps.pool, CHAINED_CATEGORIES)) {
    if (h.hash !== null) {
      heads.push({ ...h, hash: h.hash });
      continue;
    }
    const events = await readStoredStream(deps.pool, h.stream);
    const { hashes } = checkChain(
      h.stream,
      events.map((e) => ({ ...e, stream: e.streamId, position: e.streamPosition })),
    );
    if (hashes.length > h.position) heads.push({ ...h, hash: hashes[h.position] });
    else
      deps.logger.warn({ stream: h.stream }, 'a money stream before the chain is out of order: left out of the anchor');
  }
  return sortedHeads(heads);
};

export const takeAnchor = async (
  deps: AnchorDeps,
  kind: AnchorData['kind'],
  anchorId: string,
  metadata: Record<string, unknown>,
): Promise<AnchorData> => {
  const heads = await currentHeads(deps);
  const anchor: AnchorData = {
    anchorId,
    kind,
    takenAt: deps.clock.now().toISOString(),
    root: merkleRoot(heads),
    heads,
  };
  const handled = await deps.handle(
    anchorDecider,
    anchorStream(anchorId),
    { type: 'RecordAnchor', anchor },
    { metadata },
  );
  // The daily anchor another instance recorded first is the one that stands.
  return handled.state ?? anchor;
};

export const takeAnchorOnDemand = (deps: AnchorDeps, adminId: number): Promise<AnchorData> =>
  takeAnchor(deps, 'ON_DEMAND', randomUUID(), { actor: { id: adminId, role: 'ADMIN' } });

/** The daily anchor: one per day of the settlement timezone, taken at the first tick of the day. */
export const dailyAnchorJob = (deps: AnchorDeps, everyMs: number): ScheduledJob => ({
  name: 'audit-daily-anchor',
  everyMs,
  async run(now) {
    const { timezone } = await loadSettlementConfig(deps);
    const day = formatInTimeZone(now, timezone, 'yyyy-MM-dd');
    if ((await deps.store.readStream(anchorStream(day))).length > 0) return;
    const anchor = await takeAnchor(deps, 'DAILY', day, SYSTEM);
    deps.logger.info({ anchorId: anchor.anchorId, root: anchor.root, streams: anchor.heads.length }, 'daily anchor');
  },
});
