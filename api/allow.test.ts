import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContractChecker } from '../tests/support/openapiContract.js';
import { buildOpenApiDocument, createOpenApiRegistry } from './openapi.js';
import { defineRoute } from './route.js';

/**
 * Notifications' shape: a literal path beside an id path the literal segment also matches. OPTIONS on the
 * literal path lists its own methods, not its /{id} sibling's; each answer passes the contract check.
 */
describe('OPTIONS answers list the methods of the resource the path names', () => {
  const registry = createOpenApiRegistry();
  const v1 = express.Router();
  const define = (method: 'get' | 'post' | 'delete', path: string) =>
    defineRoute(
      v1,
      registry,
      { method, path, summary: path, auth: false, responses: { 204: { description: 'Done', schema: null } } },
      () => undefined,
    );
  define('delete', '/notifications/:id');
  define('post', '/notifications/:id/read');
  define('get', '/notifications/unread-count');
  define('post', '/notifications/read-all');
  define('get', '/notifications');
  const checker = createContractChecker(buildOpenApiDocument(registry) as never);
  let server: ReturnType<express.Express['listen']>;
  let base = '';
  beforeAll(async () => {
    const app = express().use('/api/v1', v1);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const allowOf = async (path: string) => {
    const res = await fetch(`${base}${path}`, { method: 'OPTIONS' });
    checker.check('OPTIONS', res.url, res.status, res.headers, null, await res.text());
    return [res.status, res.headers.get('allow')];
  };

  it('a literal path answers its own methods, never its /{id} sibling’s', async () => {
    expect(await allowOf('/notifications/read-all')).toEqual([204, 'OPTIONS, POST']);
    expect(await allowOf('/notifications/unread-count')).toEqual([204, 'GET, HEAD, OPTIONS']);
  });

  it('an id path answers the id route’s methods, and a deeper one its own', async () => {
    expect(await allowOf('/notifications/9b2c0f2e-1d7a-4c55-9a43-0e9c1c2f7a10')).toEqual([204, 'DELETE, OPTIONS']);
    expect(await allowOf('/notifications/7/read')).toEqual([204, 'OPTIONS, POST']);
    expect(await allowOf('/notifications')).toEqual([204, 'GET, HEAD, OPTIONS']);
  });

  it('a path no route names is not answered here', async () => {
    expect((await fetch(`${base}/notifications/7/read/again`, { method: 'OPTIONS' })).status).toBe(404);
  });

  it('the contract check refuses an Allow that lists a method the document does not have there', () => {
    const headers = new Headers({ allow: 'DELETE, GET, HEAD, OPTIONS' });
    expect(() => checker.check('OPTIONS', `${base}/notifications/unread-count`, 204, headers, null, '')).toThrow(
      /expected 204 with "GET, HEAD, OPTIONS"/,
    );
  });
});
