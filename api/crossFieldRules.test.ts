import express from 'express';
import { describe, expect, it } from 'vitest';
import { driversReport } from './admin/reports/driversReport.js';
import { ordersReport } from './admin/reports/ordersReport.js';
import { reportRoutes } from './admin/reports/routes.js';
import { settlementConfigRoutes } from './admin/settlements/configRoutes.js';
import type { ApiContext } from './apiContext.js';
import { noAuthenticator } from './auth.js';
import { buildOpenApiDocument, createOpenApiRegistry } from './openapi.js';

type Param = { name: string; description?: string };
type Op = {
  description?: string;
  parameters?: Param[];
  requestBody?: { content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> } }> };
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
};

/** The routes' registration needs only the registry and the guards' authenticator. */
const documentOf = () => {
  const registry = createOpenApiRegistry();
  const ctx = { openapi: registry, auth: noAuthenticator } as unknown as ApiContext;
  reportRoutes(ctx, express.Router(), [ordersReport, driversReport]);
  settlementConfigRoutes(ctx, express.Router());
  return buildOpenApiDocument(registry).paths as Record<string, Record<string, Op>>;
};

/** Issue #44: rules between fields are in the document, so an outside checker does not generate them as valid. */
describe('the document says the rules between fields', () => {
  const paths = documentOf();
  const param = (op: Op, name: string) => op.parameters?.find((p) => p.name === name)?.description ?? '';

  it("says a report's window: its order, its length, its open ends, in the operation and on each date", () => {
    for (const op of [paths['/admin/reports/orders'].get, paths['/admin/reports/orders/export'].get]) {
      expect(op.description).toContain('date_to is on or after date_from');
      expect(op.description).toContain('at most 30 days');
      expect(param(op, 'date_to')).toContain('on or after date_from');
      expect(param(op, 'date_from')).toContain('29 days before date_to');
      expect(op.description).toContain('rating_max may not be below rating_min');
      expect(param(op, 'rating_max')).toContain('rating_min');
    }
    const drivers = paths['/admin/reports/drivers'].get;
    expect(drivers.description).toContain('capacity_max may not be below capacity_min');
    expect(param(drivers, 'capacity_max')).toContain('capacity_min');
  });

  it('gives the 422 answer an example of the refusal', () => {
    const example = paths['/admin/reports/orders'].get.responses['422'].content!['application/json'].example;
    expect(example).toEqual({
      error: 'ValidationError',
      message: 'The given data was invalid.',
      details: { fieldErrors: { date_to: ['must be on or after date_from'] } },
    });
  });

  it('says payout_time follows cutoff_time, and gives timezone the offset pattern or the zones', () => {
    const patch = paths['/admin/settlements/config'].patch;
    expect(patch.description).toContain('payout_time is after cutoff_time');
    const props = patch.requestBody!.content['application/json'].schema.properties;
    expect(props.payout_time.description).toContain('cutoff_time');
    const [offset, zones] = props.timezone.anyOf as [{ pattern: string }, { enum: string[] }];
    expect(new RegExp(offset.pattern).test('-04:00')).toBe(true);
    expect(new RegExp(offset.pattern).test('Mars/Olympus')).toBe(false);
    expect(zones.enum).toEqual(expect.arrayContaining(['America/Caracas', 'UTC']));
    expect(zones.enum).not.toContain('Mars/Olympus');
  });
});
