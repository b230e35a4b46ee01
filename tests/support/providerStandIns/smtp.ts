import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { generate } from 'selfsigned';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string | undefined;
  to: string[];
  subject: string | undefined;
  text: string | undefined;
  /** Whether the session was encrypted (TLS from the start, or after STARTTLS) when the mail came. */
  encrypted: boolean;
  user: string | undefined;
}

/**
 * A local SMTP relay (smtp-server, the npm package nodemailer's authors keep beside it) with a self-signed
 * certificate for localhost made here: `tls` speaks TLS from the first byte (as on port 465), `starttls`
 * offers STARTTLS and refuses AUTH before it (as on port 587). It takes only its own user and password,
 * refuses a recipient in `refused` with 550, and keeps every mail it accepted, parsed.
 */
export const startSmtpStandIn = async (mode: 'tls' | 'starttls') => {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
  const login = { user: 'relay-user', pass: `relay-pass-${Math.random().toString(36).slice(2)}` };
  const received: ReceivedMail[] = [];
  const refused = new Set<string>();
  const server = new SMTPServer({
    secure: mode === 'tls',
    key: pems.private,
    cert: pems.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, done) {
      if (auth.username === login.user && auth.password === login.pass) done(null, { user: auth.username });
      else done(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, done) {
      if (refused.has(address.address)) done(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      else done();
    },
    onData(stream, session, done) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: mail.subject,
            text: mail.text,
            encrypted: session.secure,
            user: typeof session.user === 'string' ? session.user : undefined,
          });
          done();
        })
        .catch(done);
    },
  });
  // A client that gives up on the handshake (it does not trust the certificate) is the relay's error event.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const scheme = mode === 'tls' ? 'smtps' : 'smtp';
  return {
    /** An SMTP_URL for this relay, with its credentials (or others'). */
    url: (credentials = login) =>
      `${scheme}://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.pass)}@localhost:${port}`,
    login,
    /** The certificate, for the client to trust (SMTP_CA_FILE). */
    ca: pems.cert,
    received,
    refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
