import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { z, type ZodType } from 'zod';
import { validationError } from '../domain/errors.js';
import { fieldErrorsOf } from './errorMapper.js';
import { ErrorBody } from './openapi.js';
import type { Actor } from './auth.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteSpec<B extends ZodType | undefined, Q extends ZodType | undefined, P extends ZodType | undefined> {
  method: Method;
  /** Express path relative to /api/v1, e.g. /orders/:orderId */
  path: string;
  summary: string;
  tags?: string[];
  /** Guards that run before validation (authentication, roles). */
  guards?: RequestHandler[];
  /** Whether the route needs a bearer token (documents the security requirement). */
  auth?: boolean;
  body?: B;
  query?: Q;
  params?: P;
  /** Documented success responses: status → description and the body's schema. */
  responses?: Record<number, { description: string; schema?: ZodType }>;
  /** Error statuses this route can answer; each is documented with the error envelope. */
  errors?: number[];
}

export interface Valid<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  actor: Actor;
  req: Request;
  res: Response;
}

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
  if (fields.length) throw validationError(Object.fromEntries(fields.map((f) => [f, ['Must not contain NUL characters.']])));
};

const parseOrThrow = (schema: ZodType, value: unknown, where: 'body' | 'query' | 'params') => {
  const r = schema.safeParse(value ?? (where === 'body' ? {} : value));
  if (!r.success) throw validationError(fieldErrorsOf(r.error));
  return r.data;
};

/**
 * Defines one route: guards, then zod validation of params, query and body (422 ValidationError naming
 * each bad field), then the handler; and registers the same schemas in the OpenAPI document.
 */
export const defineRoute = <B extends ZodType | undefined = undefined, Q extends ZodType | undefined = undefined, P extends ZodType | undefined = undefined>(
  router: Router,
  registry: OpenAPIRegistry,
  spec: RouteSpec<B, Q, P>,
  handler: (v: Valid<Out<B>, Out<Q>, Out<P>>) => Promise<unknown> | unknown,
): void => {
  const openApiPath = spec.path.replace(/:([A-Za-z_]+)/g, '{$1}');
  const pathParams = [...spec.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
  registry.registerPath({
    method: spec.method,
    path: openApiPath,
    summary: spec.summary,
    tags: spec.tags,
    security: spec.auth === false ? [] : [{ bearer: [] }],
    request: {
      ...(spec.params
        ? { params: spec.params as never }
        : pathParams.length
          ? { params: z.object(Object.fromEntries(pathParams.map((p) => [p, z.string()]))) as never }
          : {}),
      ...(spec.query ? { query: spec.query as never } : {}),
      ...(spec.body ? { body: { content: { 'application/json': { schema: spec.body } } } } : {}),
    },
    responses: Object.fromEntries(
      Object.entries(spec.responses ?? { 200: { description: 'OK' } }).map(([status, r]) => [
        status,
        { description: r.description, ...(r.schema ? { content: { 'application/json': { schema: r.schema } } } : {}) },
      ]).concat(
        (spec.errors ?? []).map((status) => [String(status), { description: 'Error', content: { 'application/json': { schema: ErrorBody } } }]),
        [['default', { description: 'Error', content: { 'application/json': { schema: ErrorBody } } }]],
      ),
    ),
  });
  const run = async (req: Request, res: Response, next: NextFunction) => {
    try {
      rejectNul([req.params, spec.query ? req.query : undefined, spec.body ? req.body : undefined]);
      const params = spec.params ? parseOrThrow(spec.params, req.params, 'params') : req.params;
      const query = spec.query ? parseOrThrow(spec.query, req.query, 'query') : undefined;
      const body = spec.body ? parseOrThrow(spec.body, req.body, 'body') : undefined;
      const result = await handler({ body, query, params, actor: req.actor as Actor, req, res } as Valid<Out<B>, Out<Q>, Out<P>>);
      if (res.headersSent) return;
      if (result === undefined) res.status(204).end();
      else res.json(result);
    } catch (err) {
      next(err);
    }
  };
  router[spec.method](spec.path, ...(spec.guards ?? []), run);
};
