import type { PushSender } from './port.js';

/** FCM data payloads are flat string maps. */
const stringMap = (data: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(data)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );

/**
 * An FCM HTTP v1-style adapter: one POST per device to PUSH_PROVIDER_URL with the key as bearer. A 404, or
 * an error whose status or detail says UNREGISTERED, means the token is dead; anything else that is not 2xx
 * is a failure the caller logs.
 */
export const createFcmPushSender = (url: string, key: string | undefined, timeoutMs = 10_000): PushSender => ({
  async send(target, m) {
    const high = m.priority === 'high';
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({
        message: {
          token: target.token,
          notification: { title: m.title, body: m.body },
          data: stringMap({ ...m.data, notification_id: m.notificationId, type: m.type }),
          android: { priority: high ? 'HIGH' : 'NORMAL' },
          apns: { headers: { 'apns-priority': high ? '10' : '5' } },
        },
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.ok) {
      await res.body?.cancel();
      return 'sent';
    }
    const body = (await res.json().catch(() => null)) as {
      error?: { status?: string; details?: { errorCode?: string }[] };
    } | null;
    const codes = [body?.error?.status, ...(body?.error?.details ?? []).map((d) => d?.errorCode)];
    if (res.status === 404 || codes.includes('UNREGISTERED')) return 'unregistered';
    throw new Error(`push provider answered ${res.status} ${codes.filter(Boolean).join(' ')}`.trim());
  },
});
