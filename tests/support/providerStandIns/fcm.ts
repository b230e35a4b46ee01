import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey } from 'jose';
import type { Clock } from '../../../infra/clock.js';
import { answerJson, listen, readBody } from './httpStandIn.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const TOKEN_SECONDS = 3599;

/** What FCM answers for a device token it no longer knows (HTTP v1, a 404 with the FcmError detail). */
const UNREGISTERED = {
  error: {
    code: 404,
    message: 'Requested entity was not found.',
    status: 'NOT_FOUND',
    details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }],
  },
};

const UNAUTHENTICATED = {
  error: {
    code: 401,
    message: 'Request had invalid authentication credentials. Expected OAuth 2 access token.',
    status: 'UNAUTHENTICATED',
  },
};

/**
 * A local stand-in for Google's OAuth 2 token endpoint and FCM HTTP v1, checking what they check: the
 * assertion is a form-encoded jwt-bearer grant, RS256-signed by a key it was told to trust (the key id in
 * the header), issued by that account for this token endpoint with the messaging scope, at most an hour
 * long and not expired at the stand-in's clock; a send carries an access token it issued, not expired,
 * for the account's project, with a flat string map as data. Device tokens in `unregistered` are gone.
 */
export const startFcmStandIn = async (clock: Clock) => {
  const accounts = new Map<string, { keyId: string; publicKey: CryptoKey; projectId: string }>();
  const issued = new Map<string, { projectId: string; expiresAt: number }>();
  const exchanges: { iss: string; at: Date }[] = [];
  const sent: { projectId: string; message: any }[] = [];
  const unregistered = new Set<string>();
  /** Sends refused 401 UNAUTHENTICATED: an access token unknown, revoked or expired. */
  let unauthenticated = 0;
  /** Sends to an unregistered device, each answered 404 UNREGISTERED. */
  const refused: string[] = [];
  let tokenUri = '';

  const exchange = async (contentType: string | undefined, raw: string) => {
    if (!contentType?.startsWith('application/x-www-form-urlencoded'))
      return [400, { error: 'invalid_request', error_description: 'form-encoded body expected' }] as const;
    const form = new URLSearchParams(raw);
    if (form.get('grant_type') !== JWT_BEARER)
      return [400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' }] as const;
    const assertion = form.get('assertion') ?? '';
    const [header, claims] = assertion
      .split('.')
      .slice(0, 2)
      .map((part) => {
        try {
          return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
        } catch {
          return {};
        }
      });
    const account = accounts.get(claims?.iss);
    if (!account || header?.kid !== account.keyId)
      return [400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }] as const;
    try {
      const { payload } = await jwtVerify(assertion, account.publicKey, {
        algorithms: ['RS256'],
        issuer: claims.iss,
        audience: tokenUri,
        currentDate: clock.now(),
        requiredClaims: ['iat', 'exp'],
      });
      if (payload.exp! - payload.iat! > 3600) throw new Error('too long');
      if (typeof payload.scope !== 'string' || !payload.scope.split(' ').includes(FCM_SCOPE))
        return [400, { error: 'invalid_scope', error_description: 'Invalid OAuth scope.' }] as const;
    } catch {
      return [400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }] as const;
    }
    exchanges.push({ iss: claims.iss, at: clock.now() });
    const accessToken = `ya29.${randomBytes(24).toString('base64url')}`;
    issued.set(accessToken, { projectId: account.projectId, expiresAt: clock.now().getTime() + TOKEN_SECONDS * 1000 });
    return [200, { access_token: accessToken, expires_in: TOKEN_SECONDS, token_type: 'Bearer' }] as const;
  };

  const send = (authorization: string | undefined, projectId: string, raw: string) => {
    const grant = issued.get(/^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '');
    if (!grant || grant.expiresAt <= clock.now().getTime()) {
      unauthenticated += 1;
      return [401, UNAUTHENTICATED] as const;
    }
    if (grant.projectId !== projectId)
      return [403, { error: { code: 403, status: 'PERMISSION_DENIED', message: 'Permission denied.' } }] as const;
    let message: any;
    try {
      message = JSON.parse(raw).message;
    } catch {
      message = undefined;
    }
    const flat = Object.values(message?.data ?? {}).every((v) => typeof v === 'string');
    if (typeof message?.token !== 'string' || !flat)
      return [400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Invalid message.' } }] as const;
    if (unregistered.has(message.token)) {
      refused.push(message.token);
      return [404, UNREGISTERED] as const;
    }
    sent.push({ projectId, message });
    return [200, { name: `projects/${projectId}/messages/${randomUUID()}` }] as const;
  };

  const server = await listen(async (req, res) => {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    const project = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(path);
    const [status, body] =
      req.method === 'POST' && path === '/token'
        ? await exchange(req.headers['content-type'], raw)
        : req.method === 'POST' && project
          ? send(req.headers.authorization, decodeURIComponent(project[1]), raw)
          : ([404, { error: { code: 404, status: 'NOT_FOUND' } }] as const);
    answerJson(res, status, body);
  });
  tokenUri = `${server.url}/token`;

  return {
    /** FCM's base URL (the sender's FCM_API_URL). */
    url: server.url,
    exchanges,
    sent,
    unregistered,
    refused,
    unauthenticated: () => unauthenticated,
    /** Every access token issued so far stops being accepted (as if revoked). */
    revokeAll: () => issued.clear(),
    /**
     * A service-account key file for `projectId` in `dir`, whose public half the stand-in trusts; `trusted:
     * false` writes a key the stand-in was never told of.
     */
    async writeServiceAccount(dir: string, projectId: string, options: { trusted?: boolean } = {}) {
      const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
      const account = {
        type: 'service_account',
        project_id: projectId,
        private_key_id: randomBytes(20).toString('hex'),
        private_key: await exportPKCS8(privateKey),
        client_email: `push@${projectId}.iam.gserviceaccount.com`,
        client_id: '1',
        token_uri: tokenUri,
      };
      if (options.trusted !== false)
        accounts.set(account.client_email, { keyId: account.private_key_id, publicKey, projectId });
      const path = join(dir, `${projectId}-${account.private_key_id.slice(0, 8)}.json`);
      writeFileSync(path, JSON.stringify(account), { mode: 0o600 });
      return { path, account };
    },
    close: server.close,
  };
};
