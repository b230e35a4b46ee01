import { relative } from 'node:path';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Request, Response } from 'express';
import { beforeAll, expect, test, vi } from 'vitest';
import { errorMapper } from '../../api/errorMapper.js';
import { DomainError, type ErrorKind } from '../../domain/errors.js';
import { routeRefusals, type RouteRefusals } from '../support/routeRefusals.js';
import { startTestService } from '../support/testService.js';

/**
 * Every identifier a route can answer is one its operation documents, at the status the one error mapper
 * gives it (docs/decisions/0102-a-route-answers-what-it-can-refuse-with.md). What a route can answer is read
 * from the sources (tests/support/routeRefusals.ts); which operations each defineRoute call registers is seen
 * as the service registers them, and what each operation documents is read from the document it serves.
 */

const root = process.cwd();

interface Operation {
  responses: Record<string, unknown>;
}

/** An operation as the service registered it, with the `file:line` of the defineRoute call that did. */
interface Registered {
  method: string;
  path: string;
  site: string;
}

const registered: Registered[] = [];
let document: { paths: Record<string, Record<string, Operation>> };
let analysed: RouteRefusals[];

/** The `file:line` that called defineRoute, from the stack of the registration it makes. */
const callerOfDefineRoute = (stack: string): string => {
  const lines = stack.split('\n');
  const at = lines.findIndex((l) => /\bat defineRoute\b/.test(l));
  const caller = /\(?(\/[^()]*):(\d+):\d+\)?$/.exec(lines[at + 1]?.trim() ?? '');
  if (at < 0 || !caller) throw new Error(`no call of defineRoute in\n${stack}`);
  return `${relative(root, caller[1])}:${caller[2]}`;
};

beforeAll(async () => {
  const register = OpenAPIRegistry.prototype.registerPath;
  const spy = vi.spyOn(OpenAPIRegistry.prototype, 'registerPath').mockImplementation(function (
    this: OpenAPIRegistry,
    route,
  ) {
    registered.push({ method: route.method, path: route.path, site: callerOfDefineRoute(new Error().stack ?? '') });
    return register.call(this, route);
  });
  const svc = await startTestService().finally(() => spy.mockRestore());
  try {
    document = (await svc.request('GET', '/api/v1/openapi.json')).body;
  } finally {
    await svc.stop();
  }
  analysed = routeRefusals(root);
}, 300_000);

/** The status the error mapper answers an error of this kind with. */
const statusOf = (kind: string): number => {
  let status = 0;
  const res = {
    headersSent: false,
    setHeader: () => res,
    status: (s: number) => ((status = s), res),
    json: () => res,
  };
  errorMapper(new DomainError(kind as ErrorKind, 'Conflict', ''), {} as Request, res as unknown as Response, () => {});
  return status;
};

/** The identifiers an operation's answer at `status` may carry: its `error` enum. */
const documentedAt = (op: Operation, status: number): string[] => {
  const found: string[] = [];
  const search = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const error = (node as { properties?: { error?: { enum?: string[] } } }).properties?.error;
    if (error?.enum) found.push(...error.enum);
    Object.values(node).forEach(search);
  };
  search(op.responses[String(status)]);
  return found;
};

test('every defineRoute call is read, and each registers an operation of the served document', () => {
  const read = new Set(analysed.map((r) => r.route));
  expect(registered.filter((r) => !read.has(r.site))).toEqual([]);
  const sites = new Set(registered.map((r) => r.site));
  expect(analysed.map((r) => r.route).filter((s) => !sites.has(s))).toEqual([]);
  expect(registered.filter((r) => !document.paths[r.path]?.[r.method])).toEqual([]);
});

test('the reading tells, for every route, which identifiers the errors it can meet carry', () => {
  expect(analysed.flatMap((r) => r.unknown.map((why) => `${r.route}: ${why}`))).toEqual([]);
});

test('every operation documents each identifier its route can answer, at the status it is answered with', () => {
  const bySite = new Map(analysed.map((r) => [r.route, r.refusals]));
  const undocumented = registered.flatMap(({ method, path, site }) =>
    (bySite.get(site) ?? [])
      .filter((r) => !documentedAt(document.paths[path][method], statusOf(r.kind)).includes(r.id))
      .map((r) => `${method.toUpperCase()} ${path} can answer ${statusOf(r.kind)} ${r.id}: ${r.via.join(' > ')}`),
  );
  expect(undocumented).toEqual([]);
});
