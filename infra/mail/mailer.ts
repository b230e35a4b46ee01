import type { DevOutbox } from '../outbox/port.js';

export interface Mail {
  to: string;
  subject: string;
  body: string;
  /** Machine-readable extras (a token), kept by the simulator so that tests and developers can act on them. */
  data?: Record<string, unknown>;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

declare module '../providers.js' {
  interface Providers {
    mail: Mailer;
  }
}

export class MailProviderError extends Error {}

export const createMailSimulator = (outbox: DevOutbox): Mailer => ({
  async send(m) {
    await outbox.record({ channel: 'mail', to: m.to, subject: m.subject, body: m.body, data: m.data ?? null });
  },
});

/** A JSON-over-HTTP mail API: POST {to, subject, text} with a bearer key; non-2xx is a failure. */
export const createHttpMailer = (url: string, key: string | undefined, timeoutMs = 10_000): Mailer => ({
  async send(m) {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({ to: m.to, subject: m.subject, text: m.body }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new MailProviderError(`Mail provider unreachable: ${(err as Error).message}`);
    }
    if (!res.ok) throw new MailProviderError(`Mail provider answered ${res.status}`);
  },
});
