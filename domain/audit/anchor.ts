import type { Decider } from '../decider.js';
import type { AuditEvent } from './events.js';

/**
 * An anchor is recorded, or refused, once: the daily one's stream is named by its day, so a second scheduler
 * (or a second tick) deciding it again finds it decided and decides nothing.
 */
export type AnchorData = Extract<AuditEvent, { type: 'AuditAnchorRecorded' }>['data'];
export type AnchorRefusal = Extract<AuditEvent, { type: 'AuditAnchorRefused' }>['data'];

export type DecideAnchor =
  { type: 'RecordAnchor'; anchor: AnchorData } | { type: 'RefuseAnchor'; refusal: AnchorRefusal };

export type AnchorState = AuditEvent | null;

export const anchorDecider: Decider<DecideAnchor, AnchorState, AuditEvent> = {
  initialState: null,
  evolve: (_state, event) => event,
  decide: (command, state) => {
    if (state) return [];
    return command.type === 'RecordAnchor'
      ? [{ type: 'AuditAnchorRecorded', data: command.anchor }]
      : [{ type: 'AuditAnchorRefused', data: command.refusal }];
  },
};
