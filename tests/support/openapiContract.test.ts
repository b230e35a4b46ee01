import express from 'express';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument, createOpenApiRegistry } from '../../api/openapi.js';
import { defineRoute, FileBody, operationIdOf } from '../../api/route.js';
import { createContractChecker } from './openapiContract.js';

/** A document of three routes, built by defineRoute as the service builds its own. */
const documentOf = () => {
  const registry = createOpenApiRegistry();
  const router = express.Router();
  const noop = () => undefined;
  defineRoute(
    router,
    registry,
    {
      method: 'get',
      path: '/things/:thingId',
      summary: 'A thing',
      tags: ['orders'],
      guards: [noop as never],
      responses: {
        200: {
          description: 'The thing',
          schema: z.object({ thing: z.object({ id: z.number().int(), name: z.string() }) }),
        },
      },
      errors: { 404: { ids: ['NotFound'], description: 'No such thing' }, 429: ['Cooldown'] },
    },
    noop,
  );
  defineRoute(
    router,
    registry,
    {
      method: 'delete',
      path: '/things/:thingId',
      summary: 'Remove',
      auth: false,
      responses: { 204: { description: 'Gone', schema: null } },
    },
    noop,
  );
  defineRoute(
    router,
    registry,
    {
      method: 'get',
      path: '/things/export',
      summary: 'CSV',
      auth: false,
      responses: { 200: { description: 'CSV', schema: FileBody, mediaType: 'text/csv' } },
      errors: { 503: { ids: ['ServiceUnavailable'], description: 'Exports paused' } },
    },
    noop,
  );
  return buildOpenApiDocument(registry) as any;
};

const json = { 'content-type': 'application/json; charset=utf-8' };
const url = (p: string) => `http://127.0.0.1:1/api/v1${p}`;

describe('defineRoute in the OpenAPI document', () => {
  it(
    'derives operation ids, integer path ids, the error statuses with the ' +
      'envelope (413 and 503 on every operation), a 204 without body, a CSV body',
    () => {
      const doc = documentOf();
      const get = doc.paths['/things/{thingId}'].get;
      expect(get.operationId).toBe('getThingsByThingId');
      expect(get.parameters[0]).toMatchObject({ name: 'thingId', in: 'path', schema: { type: 'integer' } });
      expect(Object.keys(get.responses)).toEqual(['200', '401', '404', '413', '422', '429', '503']);
      // Each error answer is the Error envelope whose `error` lists the identifiers it can carry.
      const envelope = (...codes: string[]) => ({
        allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { error: { type: 'string', enum: codes } } }],
      });
      expect(get.responses['503']).toMatchObject({
        description: 'Temporarily unavailable (Retry-After header)',
        headers: { 'Retry-After': { schema: { type: 'integer' } } },
        content: { 'application/json': { schema: envelope('ServiceUnavailable') } },
      });
      expect(Object.keys(doc.paths['/things/{thingId}'].delete.responses)).toEqual(['204', '413', '422', '503']);
      expect(doc.paths['/things/export'].get.responses['503'].description).toBe('Exports paused');
      expect(get.responses['404']).toMatchObject({
        description: 'No such thing',
        content: { 'application/json': { schema: envelope('NotFound') } },
      });
      expect(doc.paths['/things/{thingId}'].delete.responses['204']).toEqual({ description: 'Gone' });
      expect(Object.keys(doc.paths['/things/export'].get.responses['200'].content)).toEqual(['text/csv']);
      expect(operationIdOf('post', '/orders/:orderId/accept-counter')).toBe('postOrdersByOrderIdAcceptCounter');
    },
  );

  it('refuses an error status among the success responses, a missing body schema outside 204, an error status without identifiers', () => {
    const registry = createOpenApiRegistry();
    const router = express.Router();
    expect(() =>
      defineRoute(
        router,
        registry,
        {
          method: 'get',
          path: '/x',
          summary: 'x',
          responses: {
            200: { description: 'x', schema: z.object({}) },
            404: { description: 'x', schema: z.object({}) },
          },
        },
        () => undefined,
      ),
    ).toThrow(/404 belongs in errors/);
    expect(() =>
      defineRoute(
        router,
        registry,
        { method: 'get', path: '/y', summary: 'y', responses: { 200: { description: 'y', schema: null } } },
        () => undefined,
      ),
    ).toThrow(/only a 204/);
    expect(() =>
      defineRoute(
        router,
        registry,
        {
          method: 'get',
          path: '/z',
          summary: 'z',
          responses: { 200: { description: 'z', schema: z.object({}) } },
          errors: { 409: [] },
        },
        () => undefined,
      ),
    ).toThrow(/error status 409 declares no identifier/);
  });

  it('refuses a tag that api/openapi.ts TAGS does not describe (redocly would report it)', () => {
    const spec = {
      method: 'get' as const,
      path: '/z',
      summary: 'z',
      responses: { 200: { description: 'z', schema: z.object({}) } },
    };
    expect(() =>
      defineRoute(express.Router(), createOpenApiRegistry(), { ...spec, tags: ['Undescribed'] }, () => undefined),
    ).toThrow(/tag Undescribed is not described/);
    expect(() =>
      defineRoute(express.Router(), createOpenApiRegistry(), { ...spec, tags: ['orders'] }, () => undefined),
    ).not.toThrow();
  });
});

describe('the response contract check of the test client', () => {
  const checker = createContractChecker(documentOf());
  const check = (method: string, path: string, status: number, body: unknown, headers: Record<string, string> = json) =>
    checker.check(
      method,
      url(path),
      status,
      new Headers(headers),
      body,
      body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body),
    );

  it('accepts documented statuses with matching bodies', () => {
    expect(() => check('GET', '/things/7', 200, { thing: { id: 7, name: 'a' } })).not.toThrow();
    expect(() => check('GET', '/things/7', 404, { error: 'NotFound', message: 'no' })).not.toThrow();
    expect(() => check('DELETE', '/things/7', 204, undefined, {})).not.toThrow();
    expect(() =>
      check('GET', '/things/export', 200, 'a,b\n', { 'content-type': 'text/csv; charset=utf-8' }),
    ).not.toThrow();
  });

  it('names the path and the field of a body that does not match', () => {
    expect(() => check('GET', '/things/7', 200, { thing: { id: '7', name: 'a' } })).toThrow(
      /GET \/things\/\{thingId\} 200:\n\s+\/thing\/id must be integer/,
    );
  });

  it('fails an undocumented status, an undocumented operation, a body on a 204 and an undocumented media type', () => {
    expect(() => check('GET', '/things/7', 409, { error: 'Conflict' })).toThrow(
      /status 409 is not documented for GET \/things\/\{thingId\}/,
    );
    expect(() => check('POST', '/elsewhere', 200, {})).toThrow(/no documented operation/);
    expect(() => check('DELETE', '/things/7', 204, { ok: true })).toThrow(/without a body/);
    expect(() => check('GET', '/things/export', 200, 'x', { 'content-type': 'text/plain' })).toThrow(
      /content type "text\/plain" is not documented/,
    );
  });

  it('fails an error identifier the route does not declare at that status', () => {
    expect(() => check('GET', '/things/7', 404, { error: 'OrderNotFound', message: 'no' })).toThrow(
      /GET \/things\/\{thingId\} 404:\n\s+\/error must be equal to one of the allowed values/,
    );
    expect(() => check('GET', '/things/7', 401, { error: 'Forbidden', message: 'no' })).toThrow(/allowed values/);
  });

  it('requires Retry-After on every 429 and 503', () => {
    expect(() => check('GET', '/things/7', 429, { error: 'Cooldown', retryAfterSeconds: 5 })).toThrow(/Retry-After/);
    expect(() =>
      check('GET', '/things/7', 429, { error: 'Cooldown', retryAfterSeconds: 5 }, { ...json, 'retry-after': '5' }),
    ).not.toThrow();
  });

  it('lets probes of paths the API does not have through as 404', () => {
    expect(() => check('GET', '/nothing/here', 404, { error: 'RouteNotFound' })).not.toThrow();
  });
});
