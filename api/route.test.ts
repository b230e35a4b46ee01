import express, { type RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { noAuthenticator, requireRole } from './auth.js';
import { buildOpenApiDocument, createOpenApiRegistry } from './openapi.js';
import { defineRoute } from './route.js';

/** The bulk import's shape: role guards spread into a longer list, with a guard of the route's own after them. */
describe('a route behind role guards documents its token and roles however the guards are listed', () => {
  it('takes the admin JWT, names its roles and answers 403 Forbidden', () => {
    const registry = createOpenApiRegistry();
    const upload: RequestHandler = (_req, _res, next) => next();
    defineRoute(
      express.Router(),
      registry,
      {
        method: 'post',
        path: '/imports',
        summary: 'Import',
        guards: [...requireRole(noAuthenticator, 'ADMIN'), upload],
        responses: { 204: { description: 'Done', schema: null } },
      },
      () => undefined,
    );
    const op = (buildOpenApiDocument(registry).paths as Record<string, Record<string, Record<string, unknown>>>)[
      '/imports'
    ].post;
    expect(op.security).toEqual([{ adminJwt: [] }]);
    expect(op['x-roles']).toEqual(['ADMIN']);
    expect(Object.keys(op.responses as object)).toEqual(expect.arrayContaining(['401', '403']));
  });
});
