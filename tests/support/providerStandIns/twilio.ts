import { randomBytes } from 'node:crypto';
import { answerJson, listen, readBody } from './httpStandIn.js';

const E164 = /^\+[1-9]\d{6,14}$/;
const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

/** Twilio's error body: its numeric code, a message, the documentation link and the HTTP status. */
const twilioError = (status: number, code: number, message: string) => [
  status,
  { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
];

/**
 * A local stand-in for Twilio's Messages API with one account: it takes only HTTP basic authentication with
 * the account's SID and auth token (else 401, code 20003), a form-encoded body (a JSON body has no To, so
 * 400 code 21604), an E.164 To (21211), a From that is the account's number or a MessagingServiceSid that
 * is its service (21606/21703), a Body (21602), a number not in `blocked` (21610), and answers 201 with the queued message as Twilio does.
 */
export const startTwilioStandIn = async () => {
  const account = { sid: sid('AC'), authToken: randomBytes(16).toString('hex'), number: '+15005550006' };
  const messagingService = sid('MG');
  /** Numbers that replied STOP: Twilio refuses to send to them (21610). */
  const blocked = new Set<string>();
  const messages: { sid: string; to: string; from: string | null; service: string | null; body: string }[] = [];

  const create = (
    authorization: string | undefined,
    accountSid: string,
    contentType: string | undefined,
    raw: string,
  ) => {
    const [user, password] = Buffer.from(/^Basic (.+)$/.exec(authorization ?? '')?.[1] ?? '', 'base64')
      .toString('utf8')
      .split(':');
    if (user !== account.sid || password !== account.authToken || accountSid !== account.sid)
      return twilioError(401, 20003, 'Authenticate');
    const form = new URLSearchParams(contentType?.startsWith('application/x-www-form-urlencoded') ? raw : '');
    const [to, from, service, body] = ['To', 'From', 'MessagingServiceSid', 'Body'].map((k) => form.get(k));
    if (!to) return twilioError(400, 21604, "A 'To' phone number is required.");
    if (!E164.test(to)) return twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    if (service ? service !== messagingService : from !== account.number)
      return service
        ? twilioError(400, 21703, 'The Messaging Service Sid is invalid.')
        : twilioError(
            400,
            21606,
            `The 'From' phone number provided (${from}) is not a valid message-capable Twilio phone number for this destination/account.`,
          );
    if (!body) return twilioError(400, 21602, 'Message body is required.');
    if (blocked.has(to)) return twilioError(400, 21610, 'Attempt to send to unsubscribed recipient');
    const message = { sid: sid('SM'), to, from: service ? null : from, service, body };
    messages.push(message);
    return [
      201,
      {
        sid: message.sid,
        account_sid: account.sid,
        to,
        from: message.from,
        messaging_service_sid: service,
        body,
        status: 'queued',
        num_segments: '1',
        direction: 'outbound-api',
        api_version: '2010-04-01',
        uri: `/2010-04-01/Accounts/${account.sid}/Messages/${message.sid}.json`,
      },
    ];
  };

  const server = await listen(async (req, res) => {
    const raw = await readBody(req);
    const path = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(req.url ?? '');
    const [status, body] =
      req.method === 'POST' && path
        ? create(req.headers.authorization, decodeURIComponent(path[1]), req.headers['content-type'], raw)
        : twilioError(404, 20404, 'The requested resource was not found');
    answerJson(res, status as number, body);
  });

  return { url: server.url, account, messagingService, messages, blocked, close: server.close };
};
