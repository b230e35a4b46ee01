import type { Decider } from '../decider.js';
import type { AuditEvent } from './events.js';

/**
 * An anchor is recorded once: the daily one's stream is named by its day, so a second scheduler (or a second
 * tick) deciding it again finds it recorded and decides nothing.
 */
export type AnchorData = Extract<AuditEvent, { type: 'AuditAnchorRecorded' }>['data'];

export interface RecordAnchor {
  type: 'RecordAnchor';
  anchor: AnchorData;
}

export type AnchorState = AnchorData | null;

export const anchorDecider: Decider<RecordAnchor, AnchorState, AuditEvent> = {
  initialState: null,
  evolve: (_state, event) => event.data,
  decide: (command, state) => (state ? [] : [{ type: 'AuditAnchorRecorded', data: command.anchor }]),
};
