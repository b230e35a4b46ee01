import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { session } from './session';

export type { paths };

/** The JSON body of an operation's success answer (200, else 201). */
export type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : R extends { 201: { content: { 'application/json': infer B } } }
      ? B
      : never
  : never;

/** An operation's query parameters. */
export type QueryOf<P extends keyof paths, M extends keyof paths[P] = 'get' & keyof paths[P]> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

export interface ErrorBody {
  error: string;
  message?: string;
  details?: { fieldErrors?: Record<string, string[]> };
  retryAfterSeconds?: number;
}

/** A failed call: its status, the API's error envelope, and the Retry-After of a 429 or 503. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(body?.message ?? body?.error ?? `HTTP ${status}`);
  }
  get fieldErrors(): Record<string, string[]> {
    return this.body?.details?.fieldErrors ?? {};
  }
}

const auth: Middleware = {
  onRequest({ request }) {
    const token = session.token();
    if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ request, response }) {
    // The service renews an admin JWT near its end in the answer's Authorization header.
    const renewed = response.headers.get('authorization');
    if (renewed?.startsWith('Bearer ')) session.renew(renewed.slice('Bearer '.length));
    if (response.status === 401 && !new URL(request.url).pathname.endsWith('/admin/auth/login') && session.get())
      session.signOut(true);
    return response;
  },
};

export const client = createClient<paths>({ baseUrl: '/api/v1' });
client.use(auth);

const retryAfterOf = (res: Response, body: ErrorBody | undefined): number | undefined => {
  const header = res.headers.get('retry-after');
  const seconds = header !== null && /^\d+$/.test(header) ? Number(header) : body?.retryAfterSeconds;
  return seconds;
};

/** The data of an openapi-fetch answer, or an ApiError. */
export const unwrap = async <T, E>(call: Promise<{ data?: T; error?: E; response: Response }>): Promise<T> => {
  const { data, error, response } = await call;
  if (!response.ok) {
    const body = (error && typeof error === 'object' ? error : undefined) as ErrorBody | undefined;
    throw new ApiError(response.status, body, retryAfterOf(response, body));
  }
  return data as T;
};

/**
 * Downloads a file the API answers (report exports): fetched with the token, saved under the name of
 * its Content-Disposition.
 */
export const download = async (path: string, query: Record<string, string>) => {
  const url = `/api/v1${path}?${new URLSearchParams(query)}`;
  const res = await fetch(url, { headers: { authorization: `Bearer ${session.token() ?? ''}` } });
  const renewed = res.headers.get('authorization');
  if (renewed?.startsWith('Bearer ')) session.renew(renewed.slice('Bearer '.length));
  if (!res.ok) {
    const body = (await res.json().catch(() => undefined)) as ErrorBody | undefined;
    if (res.status === 401) session.signOut(true);
    throw new ApiError(res.status, body, retryAfterOf(res, body));
  }
  const name = /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'export';
  const href = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
  return name;
};
