import { readFileSync } from 'node:fs';
import { importPKCS8, SignJWT } from 'jose';
import { z } from 'zod';
import type { Clock } from '../clock.js';

/** The fields of a Google service-account key file that minting an access token needs. */
const ServiceAccount = z.object({
  type: z.literal('service_account'),
  project_id: z.string().min(1),
  private_key_id: z.string().min(1),
  private_key: z.string().includes('PRIVATE KEY'),
  client_email: z.string().min(1),
  token_uri: z.string().url(),
});

export type ServiceAccount = z.infer<typeof ServiceAccount>;

/**
 * Reads the key file at start, so that a missing or wrong file stops the process naming the setting. The
 * message names the fields that are wrong, never their values: the file holds a private key.
 */
export const readServiceAccount = (path: string, setting = 'GOOGLE_APPLICATION_CREDENTIALS'): ServiceAccount => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${setting}: cannot read ${path} (${(err as NodeJS.ErrnoException).code})`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text it stopped at: a piece of the key.
    throw new Error(`${setting}: ${path} is not JSON`);
  }
  const parsed = ServiceAccount.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `${setting}: ${path} is not a service-account key file (${parsed.error.issues.map((i) => i.path.join('.')).join(', ')})`,
    );
  return parsed.data;
};

/** OAuth 2 bearer tokens for one API; `refused` drops a token the API would not take, so the next call mints one. */
export interface AccessTokens {
  token(): Promise<string>;
  refused(token: string): void;
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Google accepts an assertion valid for at most an hour. */
const ASSERTION_SECONDS = 3600;
/** A token is renewed this long before it expires (or at half its life, if that is shorter). */
const RENEW_BEFORE_MS = 5 * 60_000;

const TokenAnswer = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().positive() });

/**
 * Access tokens for `scope`, minted from the service account (RFC 7523): an RS256-signed assertion, sent to
 * the key's token_uri, is exchanged for a token that lives about an hour. The token is kept and renewed
 * before it expires; callers asking together share one exchange. A failed exchange throws with the
 * endpoint's status and OAuth error code only: the assertion and the key never reach an error or a log.
 */
export const serviceAccountTokens = async (
  account: ServiceAccount,
  scope: string,
  options: { clock: Clock; timeoutMs?: number },
): Promise<AccessTokens> => {
  const key = await importPKCS8(account.private_key, 'RS256').catch(() => {
    throw new Error(`the private key of ${account.client_email} is not an RSA key in PKCS #8 PEM`);
  });
  let current: { token: string; renewAt: number } | null = null;
  let exchanging: Promise<string> | null = null;

  const exchange = async (): Promise<string> => {
    const issuedAt = Math.floor(options.clock.now().getTime() / 1000);
    const assertion = await new SignJWT({ scope })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: account.private_key_id })
      .setIssuer(account.client_email)
      .setAudience(account.token_uri)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ASSERTION_SECONDS)
      .sign(key);
    let res: Response;
    try {
      res = await fetch(account.token_uri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
    } catch (err) {
      throw new Error(`token endpoint unreachable (${(err as Error).name})`, { cause: err });
    }
    const body = (await res.json().catch(() => null)) as { error?: unknown } | null;
    const answer = TokenAnswer.safeParse(body);
    if (!res.ok || !answer.success) {
      const code = typeof body?.error === 'string' ? ` ${body.error.slice(0, 40)}` : '';
      throw new Error(`token endpoint answered ${res.status}${code}`);
    }
    const lifeMs = answer.data.expires_in * 1000;
    const receivedAt = options.clock.now().getTime();
    current = { token: answer.data.access_token, renewAt: receivedAt + lifeMs - Math.min(RENEW_BEFORE_MS, lifeMs / 2) };
    return current.token;
  };

  return {
    async token() {
      if (current && options.clock.now().getTime() < current.renewAt) return current.token;
      exchanging ??= exchange().finally(() => (exchanging = null));
      return exchanging;
    },
    refused(token) {
      if (current?.token === token) current = null;
    },
  };
};
