import { SmsProviderError, type SmsSender } from './smsSender.js';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  /** A sender number (E.164) or alphanumeric id, or a Messaging Service SID (MG…) that picks the sender. */
  from: string;
  apiUrl: string;
  timeoutMs?: number;
}

const MESSAGING_SERVICE = /^MG[0-9a-fA-F]{32}$/;

/**
 * Twilio's Messages API: POST {apiUrl}/2010-04-01/Accounts/{sid}/Messages.json, form-encoded To, Body and From
 * (or MessagingServiceSid), HTTP basic authentication with the account SID and auth token. Twilio answers 201
 * with the message's sid once it has queued it; an error is 4xx/5xx JSON with Twilio's numeric `code`. The
 * error names the status and that code only: Twilio's message repeats the phone number.
 */
export const createTwilioSmsSender = (s: TwilioSettings): SmsSender => {
  const url = `${s.apiUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(s.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${s.accountSid}:${s.authToken}`).toString('base64')}`;
  const sender: Record<string, string> = MESSAGING_SERVICE.test(s.from)
    ? { MessagingServiceSid: s.from }
    : { From: s.from };
  return {
    simulated: false,
    async send(to, body) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { authorization, accept: 'application/json' },
          body: new URLSearchParams({ To: to, Body: body, ...sender }),
          signal: AbortSignal.timeout(s.timeoutMs ?? 10_000),
        });
      } catch (err) {
        throw new SmsProviderError(`Twilio unreachable: ${(err as Error).name}`);
      }
      const answer = (await res.json().catch(() => null)) as { code?: unknown } | null;
      if (!res.ok) {
        const code = typeof answer?.code === 'number' ? ` (Twilio error ${answer.code})` : '';
        throw new SmsProviderError(`Twilio answered ${res.status}${code}`);
      }
    },
  };
};
