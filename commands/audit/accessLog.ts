import type { Actor } from '../../domain/actor.js';
import { insertAuditAccess } from '../../stores/audit/auditAccess.js';
import type { CommandDeps } from '../deps.js';

/** The reads of an auditor that leave an access entry (docs/decisions/0085-auditors-read-and-are-recorded.md). */
export type AuditorRead =
  | 'stream_export'
  | 'receipt_history'
  | 'receipt_replay'
  | 'wallet_history'
  | 'wallet_replay'
  | 'order_history'
  | 'report_export';

/**
 * Records that an auditor asked to read `target` (whether or not it exists); anyone else reads unrecorded.
 * Written before the answer, so that a read whose entry could not be written is not served.
 */
export const recordAuditorRead = async (
  ctx: Pick<CommandDeps, 'db' | 'clock'>,
  actor: Actor,
  action: AuditorRead,
  target: string,
): Promise<void> => {
  if (actor.role !== 'ADMIN' || actor.auditor !== true) return;
  await insertAuditAccess(ctx.db, { adminId: actor.id, action, target, at: ctx.clock.now() });
};
