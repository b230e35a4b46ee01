import type { AnyRecordedEvent } from '../projector.js';
import { driverUserTrackers } from './driverUsers.js';
import type { NotificationRule, NotificationRuleSet } from './ruleTypes.js';

const toDriver =
  (
    type: string,
    title: string,
    body: (data: AnyRecordedEvent['data']) => string,
    priority: 'normal' | 'high' = 'high',
  ): NotificationRule =>
  (e, { batch }) => {
    const userId = batch.userOfDriver(e.data?.driverId);
    return userId === null
      ? []
      : [
          {
            userId,
            type,
            title,
            body: body(e.data ?? {}),
            priority,
            data: { driver_id: e.data?.driverId ?? null, ...(e.data?.reason ? { reason: e.data.reason } : {}) },
          },
        ];
  };

/** The driver's account (domain/driver/events.ts): the outcome of the review, suspension and reinstatement. */
export const driverNotificationRules: NotificationRuleSet = {
  types: ['driver_approved', 'driver_rejected', 'driver_suspended', 'driver_reinstated'],
  trackers: driverUserTrackers,
  tables: ['notification_driver_users'],
  rules: {
    DriverApproved: toDriver(
      'driver_approved',
      'You are approved',
      () => 'Your driver account was approved. You can go online and take orders.',
    ),
    DriverRejected: toDriver('driver_rejected', 'Application not approved', (d) =>
      d.reason ? `Your driver application was not approved: ${d.reason}` : 'Your driver application was not approved.',
    ),
    DriverSuspended: toDriver('driver_suspended', 'Account suspended', (d) =>
      d.reason ? `Your driver account was suspended: ${d.reason}` : 'Your driver account was suspended.',
    ),
    DriverReinstated: toDriver(
      'driver_reinstated',
      'Account reinstated',
      () => 'Your driver account is active again.',
      'normal',
    ),
  },
};
