import type { DevOutbox } from '../outbox/port.js';

/** Sends a text message; rejects when the provider fails or throttles. */
export interface SmsSender {
  /** True for the simulator (OTP responses say mocked outside production). */
  readonly simulated: boolean;
  send(to: string, body: string, data?: Record<string, unknown>): Promise<void>;
}

declare module '../providers.js' {
  interface Providers {
    sms: SmsSender;
  }
}

export class SmsProviderError extends Error {}

/** The default outside production: records the message for GET /dev/outbox. */
export const createSmsSimulator = (outbox: DevOutbox): SmsSender => ({
  simulated: true,
  async send(to, body, data) {
    await outbox.record({ channel: 'sms', to, body, data: data ?? null });
  },
});

/**
 * A JSON-over-HTTP SMS gateway: POST {to, message} with a bearer key; any non-2xx answer, network error
 * or timeout is a failure.
 */
export const createHttpSmsSender = (url: string, key: string | undefined, timeoutMs = 10_000): SmsSender => ({
  simulated: false,
  async send(to, body) {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({ to, message: body }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new SmsProviderError(`SMS provider unreachable: ${(err as Error).message}`);
    }
    if (!res.ok) throw new SmsProviderError(`SMS provider answered ${res.status}`);
  },
});
