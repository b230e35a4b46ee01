import type { DevOutbox } from '../outbox/port.js';
import type { PushSender } from './port.js';

/** The default without PUSH_PROVIDER_URL: every push is "delivered" and recorded for GET /dev/outbox?to=<userId>. */
export const createSimulatedPushSender = (outbox: DevOutbox): PushSender => ({
  async send(target, m) {
    await outbox.record({
      channel: 'push',
      to: String(m.userId),
      subject: m.title,
      body: m.body,
      data: {
        notification_id: m.notificationId,
        type: m.type,
        priority: m.priority,
        data: m.data,
        token: target.token,
        platform: target.platform,
      },
    });
    return 'sent';
  },
});
