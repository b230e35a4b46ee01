import { creditNotificationRules } from './creditNotificationRules.js';
import { driverNotificationRules } from './driverNotificationRules.js';
import { orderNotificationRules } from './orderNotificationRules.js';
import type { NotificationRule, NotificationRuleSet, Tracker } from './ruleTypes.js';

/**
 * Which domain events put what in whose inbox. An area adds its rules in a file of its own beside this one
 * (a NotificationRuleSet) and one entry here; the notifications projector, its handled event types and the
 * OpenAPI enum of notification types all follow from this list.
 */
export const notificationRuleSets: NotificationRuleSet[] = [
  orderNotificationRules,
  driverNotificationRules,
  creditNotificationRules,
];

/** Every notification type name, as documented on the `type` field in OpenAPI. */
export const NOTIFICATION_TYPES: readonly string[] = [...new Set(notificationRuleSets.flatMap((s) => s.types))];

const collect = <T>(pick: (s: NotificationRuleSet) => Record<string, T> | undefined): Record<string, T[]> => {
  const out: Record<string, T[]> = {};
  for (const set of notificationRuleSets)
    for (const [type, f] of Object.entries(pick(set) ?? {})) (out[type] ??= []).push(f);
  return out;
};

export const notificationRules: Record<string, NotificationRule[]> = collect((s) => s.rules);
export const notificationTrackers: Record<string, Tracker[]> = collect((s) => s.trackers);
export const notificationTrackerTables: string[] = [...new Set(notificationRuleSets.flatMap((s) => s.tables ?? []))];
