import type { Bus } from '../../infra/bus/port.js';
import type { Db } from '../../infra/db/database.js';
import type { Logger } from '../../infra/logger.js';
import type { Providers } from '../../infra/providers.js';
import {
  claimPushDelivery,
  DEVICE_TOKENS_CHANGED,
  deviceTokensOf,
  forgetUnregisteredDevice,
  type Device,
  type DeviceTokensChange,
} from '../../stores/push/deviceTokens.js';

/** How long a gateway pushes to the devices it read without reading them again (docs/decisions/0045-caches-and-invalidation.md). */
export const DEVICES_CACHE_MS = 10_000;
const DEVICES_CACHE_SIZE = 50_000;
/**
 * How long a gateway gathers the users whose devices it must read: the notifications of one projector batch
 * arrive together, and their users' devices are read in one statement instead of one per user.
 */
const DEVICES_GATHER_MS = 5;

export interface PushGateway {
  /** Stops listening and waits for the pushes in flight. */
  close(): Promise<void>;
}

interface CreatedNotification {
  id: string;
  type: string;
  title: string;
  body: string;
  priority: string;
  data: Record<string, unknown>;
}

/**
 * Sends every new inbox notification to the user's devices. It listens on `notifications.>` in each
 * instance with the gateway role; the first instance to claim a notification in `push_deliveries` sends
 * it, the others skip it. A push lost to a crash is not retried: the inbox stays the record.
 */
export const startPushGateway = (ctx: { bus: Bus; db: Db; logger: Logger; providers: Providers }): PushGateway => {
  const inFlight = new Set<Promise<void>>();
  // Each user's devices, as last read; dropped when any instance says they changed.
  const cached = new Map<number, { devices: Device[]; until: number }>();
  // The users asked for within DEVICES_GATHER_MS, read together.
  let gathering: Map<number, { resolve: (d: Device[]) => void; reject: (err: unknown) => void }[]> | null = null;
  const readGathered = async () => {
    const asked = gathering!;
    gathering = null;
    try {
      const found = await deviceTokensOf(ctx.db, [...asked.keys()]);
      for (const [userId, waiting] of asked) {
        const devices = found.get(userId) ?? [];
        if (cached.size >= DEVICES_CACHE_SIZE) cached.delete(cached.keys().next().value!);
        cached.set(userId, { devices, until: Date.now() + DEVICES_CACHE_MS });
        for (const w of waiting) w.resolve(devices);
      }
    } catch (err) {
      for (const waiting of asked.values()) for (const w of waiting) w.reject(err);
    }
  };
  const devicesOf = (userId: number): Promise<Device[]> => {
    const hit = cached.get(userId);
    if (hit && Date.now() < hit.until) return Promise.resolve(hit.devices);
    if (gathering === null) {
      gathering = new Map();
      setTimeout(() => void readGathered(), DEVICES_GATHER_MS);
    }
    const waiting = gathering.get(userId) ?? [];
    gathering.set(userId, waiting);
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };
  const changes = ctx.bus.subscribe(DEVICE_TOKENS_CHANGED, (m) => {
    const { userId } = (m.data ?? {}) as DeviceTokensChange;
    if (userId === undefined) cached.clear();
    else cached.delete(userId);
  });

  const push = async (userId: number, n: CreatedNotification) => {
    // Most users have no device registered: one read, and nothing to claim.
    const devices = await devicesOf(userId);
    if (devices.length === 0) return;
    if (!(await claimPushDelivery(ctx.db, n.id, userId))) return;
    const message = {
      userId,
      notificationId: n.id,
      type: n.type,
      title: n.title,
      body: n.body,
      priority: n.priority,
      data: n.data ?? {},
    };
    for (const device of devices) {
      try {
        const result = await ctx.providers.push.send(device, message);
        if (result === 'unregistered') {
          await forgetUnregisteredDevice(ctx.db, device);
          cached.delete(userId);
        }
      } catch (err) {
        ctx.logger.warn({ err, userId, notification: n.id, device: device.id }, 'push failed');
      }
    }
  };

  const subscription = ctx.bus.subscribe('notifications.>', (m) => {
    const payload = m.data as { event?: string; data?: CreatedNotification };
    const userId = Number(m.subject.split('.')[1]);
    if (payload?.event !== 'notification.created' || !payload.data?.id || !Number.isSafeInteger(userId)) return;
    const p: Promise<void> = push(userId, payload.data)
      .catch((err) => ctx.logger.error({ err, notification: payload.data?.id }, 'push delivery failed'))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  });

  return {
    async close() {
      subscription.unsubscribe();
      changes.unsubscribe();
      await Promise.all([...inFlight]);
    },
  };
};
