import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpStandIn } from '../../tests/support/providerStandIns/smtp.js';
import { MailProviderError } from './mailer.js';
import { createSmtpMailer } from './smtpMailer.js';

const FROM = 'Agua <no-reply@agua.example>';
const mail = { to: 'admin@agua.example', subject: 'Recupera tu contraseña', body: 'Tu código: ñandú-42' };

describe.each(['starttls', 'tls'] as const)('mail over SMTP (%s)', (mode) => {
  let relay: Awaited<ReturnType<typeof startSmtpStandIn>>;
  beforeAll(async () => {
    relay = await startSmtpStandIn(mode);
  });
  afterAll(() => relay?.close());

  it('delivers over an encrypted, authenticated session to a relay whose certificate it checked', async () => {
    await createSmtpMailer({ url: relay.url(), from: FROM, ca: relay.ca }).send(mail);
    expect(relay.received.at(-1)).toEqual({
      from: 'no-reply@agua.example',
      to: ['admin@agua.example'],
      subject: mail.subject,
      text: `${mail.body}\n`,
      encrypted: true,
      user: relay.login.user,
    });
  });

  it('refuses a relay whose certificate no authority it trusts signed', async () => {
    const failure = await createSmtpMailer({ url: relay.url(), from: FROM })
      .send(mail)
      .catch((e: Error) => e);
    expect(failure).toBeInstanceOf(MailProviderError);
    expect((failure as Error).message).toMatch(/^SMTP relay refused the mail: (ESOCKET|ETLS)/);
  });

  it('fails on wrong credentials or a refused recipient, naming codes, never the password or the address', async () => {
    const wrong = { user: relay.login.user, pass: 'not-the-password' };
    const badLogin = await createSmtpMailer({ url: relay.url(wrong), from: FROM, ca: relay.ca })
      .send(mail)
      .catch((e: Error) => e);
    expect((badLogin as Error).message).toBe('SMTP relay refused the mail: EAUTH 535');
    relay.refused.add('gone@agua.example');
    const gone = await createSmtpMailer({ url: relay.url(), from: FROM, ca: relay.ca })
      .send({ ...mail, to: 'gone@agua.example' })
      .catch((e: Error) => e);
    expect((gone as Error).message).toBe('SMTP relay refused the mail: EENVELOPE 550');
    expect(JSON.stringify([badLogin, gone, String(badLogin), String(gone)])).not.toMatch(
      new RegExp(`${relay.login.pass}|not-the-password|gone@`),
    );
  });
});

describe('mail over SMTP without STARTTLS', () => {
  it('refuses to send in clear unless the URL says requireTLS=false', async () => {
    const { SMTPServer } = await import('smtp-server');
    const received: string[] = [];
    const plain = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _s, done) {
        stream.on('data', (c: Buffer) => received.push(c.toString()));
        stream.on('end', () => done());
      },
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const port = (plain.server.address() as { port: number }).port;
    try {
      await expect(createSmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: FROM }).send(mail)).rejects.toThrow(
        MailProviderError,
      );
      expect(received).toEqual([]);
      await createSmtpMailer({ url: `smtp://127.0.0.1:${port}?requireTLS=false`, from: FROM }).send(mail);
      expect(received.join('')).toContain('Subject:');
    } finally {
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });
});
