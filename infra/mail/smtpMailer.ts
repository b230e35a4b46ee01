import { createTransport } from 'nodemailer';
import { MailProviderError, type Mailer } from './mailer.js';

export interface SmtpSettings {
  /** smtps:// (TLS from the first byte) or smtp:// (STARTTLS); credentials and nodemailer options in the URL. */
  url: string;
  from: string;
  /** PEM of the authority that signed the relay's certificate, when it is not one the system trusts. */
  ca?: string;
  timeoutMs?: number;
}

/**
 * Mail over SMTP through nodemailer. On smtp:// the relay must offer STARTTLS before anything is sent
 * (requireTLS), unless the URL itself says requireTLS=false (production refuses that); the certificate is
 * checked against the system's authorities or `ca`. A failure names nodemailer's error code and the relay's
 * reply code only: its reply text may repeat the address. nodemailer's own logger stays off, so the URL's
 * password is never written.
 */
export const createSmtpMailer = (s: SmtpSettings): Mailer => {
  const timeout = s.timeoutMs ?? 10_000;
  const transport = createTransport({
    url: s.url,
    requireTLS: true,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    ...(s.ca ? { tls: { ca: s.ca } } : {}),
  });
  return {
    async send(m) {
      try {
        await transport.sendMail({ from: s.from, to: m.to, subject: m.subject, text: m.body });
      } catch (err) {
        const { code, responseCode } = err as { code?: string; responseCode?: number };
        throw new MailProviderError(
          `SMTP relay refused the mail: ${[code, responseCode].filter(Boolean).join(' ') || 'no code'}`,
        );
      }
    },
  };
};
