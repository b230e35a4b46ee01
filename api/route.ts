import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { z, type ZodType } from 'zod';
import { validationError, type ErrorId } from '../domain/errors.js';
import { answerOptionsFor } from './allow.js';
import { fieldErrorsOf } from './errorMapper.js';
import { ErrorBody, TAGS } from './openapi.js';
import { refusesAuditor, rolesOf, withAuditorRule, type Actor } from './auth.js';
import { describeRules, type CrossFieldRules } from './crossFieldRules.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The body of a file download or upload (CSV, XLSX): bytes, not JSON. */
export const FileBody = z.string().openapi({ format: 'binary' });

/**
 * A path id. Handlers check ids with idFrom (a malformed id is a 404, not a 422), so the schema accepts
 * any string at run time and only tells clients the truth: ids are positive integers.
 */
export const PathId = z.string().openapi({ type: 'integer', minimum: 1 } as never);

/** The error identifiers a route answers at one status (and, optionally, what they mean there). */
export type ErrorAnswer = readonly ErrorId[] | { ids: readonly ErrorId[]; description: string };
export type ErrorAnswers = Partial<Record<number, ErrorAnswer>>;

/** One documented success status. */
export interface SuccessResponse {
  description: string;
  /** The body's schema; null only for a status that has no body (204). */
  schema: ZodType | null;
  /** Media type(s) of the body when it is not JSON, e.g. 'text/csv' or ['text/csv', XLSX] (schema: FileBody). */
  mediaType?: string | string[];
}

export interface RouteSpec<
  B extends ZodType | undefined,
  Q extends ZodType | undefined,
  P extends ZodType | undefined,
> {
  method: Method;
  /** Express path relative to /api/v1, e.g. /orders/:orderId */
  path: string;
  summary: string;
  /** Derived from method and path when absent (get /orders/:orderId → getOrdersByOrderId). */
  operationId?: string;
  tags?: string[];
  /** Guards that run before validation (authentication, roles). */
  guards?: RequestHandler[];
  /**
   * 'read' puts the route on the auditor's read list (docs/decisions/0085-auditors-read-and-are-recorded.md):
   * an auditor passes its role check. Without it a signed-in auditor is refused 403 Forbidden, whatever roles
   * the guards admit.
   */
  auditor?: 'read';
  /** Whether the route needs a bearer token (documents the security requirement and its 401). */
  auth?: boolean;
  /** The security requirement when it is not a bearer token (webhooks: a signature, a query token). */
  security?: Record<string, string[]>[];
  body?: B;
  /** A request body that is not JSON (the CSV upload): media type → schema, documented only; the handler reads it. */
  bodyContent?: Record<string, ZodType>;
  query?: Q;
  params?: P;
  /** Request headers the route reads (lower-case names), validated like the rest (422) and documented. */
  headers?: z.ZodObject;
  /** Every success status → description and the body's schema (required: a client is typed from it). */
  responses: Record<number, SuccessResponse>;
  /**
   * The error identifiers this route answers, by status, beyond those defineRoute adds itself (401
   * Unauthorized behind a token, 403 Forbidden behind a role guard, 422 ValidationError for a request schema
   * or path parameters, 413 PayloadTooLarge and 503 ServiceUnavailable everywhere). Each becomes the enum of
   * that status's `error` in the OpenAPI document, so an answer with an identifier not declared here fails
   * the contract check of the test that received it, and tests/api/documentedRefusals.e2e.test.ts fails when
   * the route's code can make one at all (docs/decisions/0102-a-route-answers-what-it-can-refuse-with.md).
   * `{ ids, description }` replaces the general description.
   */
  errors?: ErrorAnswers;
  /** Rules between fields that a schema cannot carry (api/crossFieldRules.ts): said in the document. */
  rules?: CrossFieldRules;
}

export interface Valid<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  actor: Actor;
  req: Request;
  res: Response;
}

type AnySpec = RouteSpec<ZodType | undefined, ZodType | undefined, ZodType | undefined>;

type Out<T> = T extends ZodType ? z.output<T> : undefined;

interface Node {
  value: unknown;
  key?: string;
  parent?: Node;
}

/**
 * Where a NUL character hides in a parsed request part (dot-joined paths, as fieldErrorsOf names
 * fields). Iterative, because a JSON body may nest thousands of levels deep.
 */
const nulFields = (root: unknown): string[] => {
  const pathOf = (n: Node): string => {
    const keys: string[] = [];
    for (let at: Node | undefined = n; at?.key !== undefined; at = at.parent) keys.unshift(at.key);
    return keys.join('.') || '_';
  };
  const out: string[] = [];
  const stack: Node[] = [{ value: root }];
  while (stack.length) {
    const node = stack.pop()!;
    const { value } = node;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) out.push(pathOf(node));
    } else if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
      for (const [key, child] of Object.entries(value)) {
        const next = { value: child, key, parent: node };
        if (key.includes('\u0000')) out.push(pathOf(next));
        stack.push(next);
      }
    }
  }
  return out;
};

/**
 * PostgreSQL cannot store a NUL character in text or jsonb: refused here, for every route and field at
 * once, as the 422 naming the field, rather than as a database error deep in a handler.
 */
const rejectNul = (parts: unknown[]) => {
  const fields = parts.flatMap((p) => nulFields(p));
  if (fields.length)
    throw validationError(Object.fromEntries(fields.map((f) => [f, ['Must not contain NUL characters.']])));
};

const parseOrThrow = (schema: ZodType, value: unknown, where: 'body' | 'query' | 'params' | 'headers') => {
  const r = schema.safeParse(value ?? (where === 'body' ? {} : value));
  if (!r.success) throw validationError(fieldErrorsOf(r.error));
  return r.data;
};

/** get /orders/:orderId/accept-counter → getOrdersByOrderIdAcceptCounter: unique, since method + path is. */
export const operationIdOf = (method: Method, path: string): string =>
  method +
  path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `By-${segment.slice(1)}` : segment))
    .map((segment) =>
      segment
        .split(/[^A-Za-z0-9]+/)
        .filter(Boolean)
        .map((w) => w[0].toUpperCase() + w.slice(1))
        .join(''),
    )
    .join('');

/** Path parameters as declared, or derived from the path: ids (`id`, `…Id`) as integers, others as strings. */
const pathParamsOf = (path: string, declared: ZodType | undefined) => {
  const names = [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
  if (declared) return { params: declared as never };
  if (!names.length) return undefined;
  return {
    params: z.object(Object.fromEntries(names.map((n) => [n, /(^id|Id)$/.test(n) ? PathId : z.string()]))) as never,
  };
};

/** Identifiers an answer at this status may carry whatever the operation: the body parser's, the database's. */
const ALWAYS: Partial<Record<number, readonly ErrorId[]>> = { 413: ['PayloadTooLarge'], 503: ['ServiceUnavailable'] };
const errorBodies = new Map<string, ZodType>();

/** The Error envelope of one answer: its `error` is the enum of the identifiers the route answers at that status. */
const errorBodyOf = (codes: readonly ErrorId[]): ZodType => {
  const key = codes.join(',');
  let body = errorBodies.get(key);
  if (!body) errorBodies.set(key, (body = ErrorBody.extend({ error: z.enum(codes as [string, ...string[]]) })));
  return body;
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing, invalid or expired token',
  403: 'Not allowed for this caller',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Body too large (PayloadTooLarge): JSON bodies are limited to about 100 KB',
  422: 'Invalid input (ValidationError names each field in details.fieldErrors) or a business rule refused',
  429: 'Too many requests (Retry-After header and retryAfterSeconds)',
  502: 'An upstream provider failed',
  503: 'Temporarily unavailable (Retry-After header)',
};

const hasRequestSchema = (spec: AnySpec) =>
  Boolean(spec.body || spec.bodyContent || spec.query || spec.params || spec.headers || spec.path.includes(':'));

/**
 * Each error status the route answers → its description and identifiers: the declared ones plus those
 * defineRoute itself answers (401 behind a token, 403 behind a role guard, 422 on a request schema), 413
 * for a body over the limit, and 503, which any operation can answer while its database is away. A status
 * without an identifier is a mistake in the declaration: it would document an `error` no client can match.
 */
const errorStatusesOf = (spec: AnySpec): [number, string, ErrorId[]][] => {
  const own = new Map<number, { description?: string; ids: ErrorId[] }>();
  const add = (status: number, ids: readonly ErrorId[], description?: string) => {
    const at = own.get(status) ?? { ids: [] };
    own.set(status, { description: description ?? at.description, ids: [...at.ids, ...ids] });
  };
  for (const [status, ids] of Object.entries(ALWAYS)) add(Number(status), ids!);
  if (spec.auth !== false && spec.guards?.length) add(401, ['Unauthorized']);
  if (rolesOf(spec.guards) || refusesAuditor(spec.guards, spec.auditor === 'read')) add(403, ['Forbidden']);
  if (hasRequestSchema(spec)) add(422, ['ValidationError']);
  for (const [status, answer] of Object.entries(spec.errors ?? {}) as [string, ErrorAnswer][]) {
    if ('ids' in answer) add(Number(status), answer.ids, answer.description);
    else add(Number(status), answer);
  }
  return [...own]
    .sort(([a], [b]) => a - b)
    .map(([status, { description, ids }]) => {
      if (!ids.length) throw new Error(`${spec.method} ${spec.path}: error status ${status} declares no identifier`);
      return [status, description ?? ERROR_DESCRIPTIONS[status] ?? 'Error', [...new Set(ids)].sort()];
    });
};

/**
 * Which token a route takes: role guards name their roles (requireRole), so a back-office route takes the
 * admin JWT, an app route the app token, and a route open to any signed-in caller either.
 */
const securityOf = (spec: AnySpec): Record<string, string[]>[] => {
  if (spec.security) return spec.security;
  if (spec.auth === false) return [];
  const roles = rolesOf(spec.guards);
  const admin = roles?.filter((r) => r === 'ADMIN' || r === 'SUPER_ADMIN').length ?? -1;
  if (roles && admin === roles.length) return [{ adminJwt: [] }];
  if (roles && admin === 0) return [{ appToken: [] }];
  return [{ appToken: [] }, { adminJwt: [] }];
};

const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer' as const, minimum: 0 },
  },
};
const RENEWED_JWT = {
  Authorization: {
    description: 'Present when the admin JWT presented was renewed: `Bearer <new token>`, to be used from then on',
    schema: { type: 'string' as const, pattern: '^Bearer ' },
  },
};

const successDoc = (spec: { method: string; path: string }, status: number, r: SuccessResponse, renewsJwt = false) => {
  if (status >= 400) throw new Error(`${spec.method} ${spec.path}: ${status} belongs in errors, not responses`);
  const headers = renewsJwt ? { headers: RENEWED_JWT } : {};
  if (r.schema === null) {
    if (status !== 204) throw new Error(`${spec.method} ${spec.path}: only a 204 may have no body schema`);
    return { description: r.description, ...headers };
  }
  const types = r.mediaType === undefined ? ['application/json'] : ([] as string[]).concat(r.mediaType);
  return {
    description: r.description,
    ...headers,
    content: Object.fromEntries(types.map((type) => [type, { schema: r.schema! }])),
  };
};

/**
 * Defines one route: guards, then zod validation of params, query and body (422 ValidationError naming
 * each bad field), then the handler; and registers the same schemas in the OpenAPI document.
 */
export const defineRoute = <
  B extends ZodType | undefined = undefined,
  Q extends ZodType | undefined = undefined,
  P extends ZodType | undefined = undefined,
>(
  router: Router,
  registry: OpenAPIRegistry,
  spec: RouteSpec<B, Q, P>,
  handler: (v: Valid<Out<B>, Out<Q>, Out<P>>) => Promise<unknown> | unknown,
): void => {
  const openApiPath = spec.path.replace(/:([A-Za-z_]+)/g, '{$1}');
  const security = securityOf(spec);
  const operationId = spec.operationId ?? operationIdOf(spec.method, spec.path);
  const renewsJwt = security.some((s) => 'adminJwt' in s);
  const roles = rolesOf(spec.guards);
  // Every tag is described once in TAGS, so the document never lists a tag without a description.
  const unknownTag = spec.tags?.find((tag) => !(tag in TAGS));
  if (unknownTag)
    throw new Error(`${spec.method} ${spec.path}: tag ${unknownTag} is not described in api/openapi.ts TAGS`);
  registry.registerPath({
    method: spec.method,
    path: openApiPath,
    operationId,
    summary: spec.summary,
    ...(spec.rules ? { description: describeRules(spec.rules) } : {}),
    tags: spec.tags,
    security,
    // The roles the route's guards admit, for tools that exercise the API role by role (tests/schemathesis).
    ...(roles ? { 'x-roles': [...roles, ...(spec.auditor === 'read' ? ['AUDITOR'] : [])] } : {}),
    request: {
      ...(pathParamsOf(spec.path, spec.params) ?? {}),
      ...(spec.query ? { query: spec.query as never } : {}),
      ...(spec.headers ? { headers: spec.headers as never } : {}),
      ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
      ...(spec.bodyContent
        ? {
            body: {
              required: true,
              content: Object.fromEntries(Object.entries(spec.bodyContent).map(([type, schema]) => [type, { schema }])),
            },
          }
        : {}),
    },
    responses: {
      ...Object.fromEntries(
        Object.entries(spec.responses).map(([status, r]) => [status, successDoc(spec, Number(status), r, renewsJwt)]),
      ),
      ...Object.fromEntries(
        errorStatusesOf(spec).map(([status, description, ids]) => [
          String(status),
          {
            description,
            ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
            content: {
              'application/json': {
                schema: errorBodyOf(ids),
                ...(status === 422 && spec.rules ? { example: spec.rules.example } : {}),
              },
            },
          },
        ]),
      ),
    },
  });
  const run = async (req: Request, res: Response, next: NextFunction) => {
    try {
      rejectNul([req.params, spec.query ? req.query : undefined, spec.body ? req.body : undefined]);
      const params = spec.params ? parseOrThrow(spec.params, req.params, 'params') : req.params;
      const query = spec.query ? parseOrThrow(spec.query, req.query, 'query') : undefined;
      if (spec.headers) parseOrThrow(spec.headers, req.headers, 'headers');
      const body = spec.body ? parseOrThrow(spec.body, req.body, 'body') : undefined;
      const result = await handler({ body, query, params, actor: req.actor as Actor, req, res } as Valid<
        Out<B>,
        Out<Q>,
        Out<P>
      >);
      if (res.headersSent) return;
      if (result === undefined) res.status(204).end();
      else res.json(result);
    } catch (err) {
      next(err);
    }
  };
  answerOptionsFor(router, spec.path, spec.method);
  router[spec.method](spec.path, ...(withAuditorRule(spec.guards, spec.auditor === 'read') ?? []), run);
};
