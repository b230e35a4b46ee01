import type { Clock } from '../clock.js';
import type { PushSender } from './port.js';
import { serviceAccountTokens, type AccessTokens, type ServiceAccount } from './serviceAccount.js';

/** FCM data payloads are flat string maps. */
const stringMap = (data: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(data)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );

/**
 * An FCM HTTP v1 sender: one POST per device to `url`, with a bearer that is either a static key (the generic
 * gateway, PUSH_PROVIDER_URL) or OAuth 2 access tokens minted from a service account (FCM itself). A 404, or
 * an error whose status or detail says UNREGISTERED, means the token is dead; a 401 drops the access token
 * and tries once more with a new one; anything else that is not 2xx is a failure the caller logs.
 */
export const createFcmPushSender = (
  url: string,
  key: string | undefined | AccessTokens,
  timeoutMs = 10_000,
): PushSender => {
  const tokens = typeof key === 'object' ? key : null;
  const staticKey = typeof key === 'object' ? undefined : key;
  const post = async (body: string) => {
    const bearer = tokens ? await tokens.token() : staticKey;
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { res, bearer };
  };
  return {
    async send(target, m) {
      const high = m.priority === 'high';
      const body = JSON.stringify({
        message: {
          token: target.token,
          notification: { title: m.title, body: m.body },
          data: stringMap({ ...m.data, notification_id: m.notificationId, type: m.type }),
          android: { priority: high ? 'HIGH' : 'NORMAL' },
          apns: { headers: { 'apns-priority': high ? '10' : '5' } },
        },
      });
      const first = await post(body);
      let res = first.res;
      if (res.status === 401 && tokens && first.bearer) {
        await res.body?.cancel();
        tokens.refused(first.bearer);
        res = (await post(body)).res;
      }
      if (res.ok) {
        await res.body?.cancel();
        return 'sent';
      }
      const answer = (await res.json().catch(() => null)) as {
        error?: { status?: string; details?: { errorCode?: string }[] };
      } | null;
      const codes = [answer?.error?.status, ...(answer?.error?.details ?? []).map((d) => d?.errorCode)];
      if (res.status === 404 || codes.includes('UNREGISTERED')) return 'unregistered';
      throw new Error(`push provider answered ${res.status} ${codes.filter(Boolean).join(' ')}`.trim());
    },
  };
};

/** The OAuth 2 scope FCM HTTP v1 asks of an access token. */
const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/** FCM itself (HTTP v1): the project's messages:send below `apiUrl`, authorised by the service account. */
export const createFcmV1PushSender = async (
  account: ServiceAccount,
  apiUrl: string,
  clock: Clock,
): Promise<PushSender> =>
  createFcmPushSender(
    `${apiUrl.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`,
    await serviceAccountTokens(account, FCM_SCOPE, { clock }),
  );
