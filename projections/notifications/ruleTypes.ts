import type { InboxBatch } from './inboxBatch.js';
import type { AnyRecordedEvent } from '../projector.js';

export const NOTIFICATION_PRIORITIES = ['low', 'normal', 'high'] as const;
export type NotificationPriority = (typeof NOTIFICATION_PRIORITIES)[number];

/** One inbox entry a rule wants written; the projector derives its id and timestamps. */
export interface NotificationDraft {
  userId: number;
  type: string;
  title: string;
  body: string;
  priority?: NotificationPriority;
  data?: Record<string, unknown>;
}

/**
 * Turns one domain event into inbox entries. A rule reads only the event and, when the event lacks a
 * recipient, what the batch's trackers know (`batch`, read once per batch, inboxBatch.ts). It must
 * tolerate missing fields: an entry whose recipient cannot be found is dropped, never an error that would
 * stop the projector.
 */
export type NotificationRule = (event: AnyRecordedEvent, ctx: { batch: InboxBatch }) => NotificationDraft[];

/** Bookkeeping a rule relies on (who the parties of an order are), kept in the batch and written at its end. */
export type Tracker = (batch: InboxBatch, event: AnyRecordedEvent) => void;

/** What an area contributes: the notification types it may emit (documented in OpenAPI) and its rules by event type. */
export interface NotificationRuleSet {
  types: readonly string[];
  rules: Record<string, NotificationRule>;
  /** Bookkeeping the rules rely on (e.g. who the parties of an order are), applied before the rules. */
  trackers?: Record<string, Tracker>;
  /** Tables the trackers write (recreated with the inbox on a rebuild). */
  tables?: string[];
}

/** A positive integer id from event data, or null: rules treat anything else as "recipient unknown". */
export const idOf = (v: unknown): number | null => {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : null;
};

export const usdText = (cents: unknown): string | null =>
  typeof cents === 'number' && Number.isFinite(cents) ? `$${(cents / 100).toFixed(2)}` : null;
