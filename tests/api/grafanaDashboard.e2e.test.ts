import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestService } from '../support/testService.js';

const dashboard = JSON.parse(readFileSync(new URL('../../ops/grafana/dashboard.json', import.meta.url), 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};

/** PromQL's own words, which stand in a query beside metric names. */
const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset']);

/**
 * The metric names a query reads: label matchers, ranges, strings and `by (…)` lists taken out, function
 * calls (a name before a parenthesis) and numbers left aside.
 */
const metricNamesOf = (expr: string): string[] => {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '')
    .replace(/(?<![\w:])\d+(\.\d+)?(e[+-]?\d+)?/gi, '');
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?/g)]
    .filter((m) => !m[2] && !PROMQL_WORDS.has(m[1]))
    .map((m) => m[1]);
};

describe('the Grafana dashboard (ops/grafana/dashboard.json)', () => {
  let exported = new Set<string>();
  let stop: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const { service, drop } = await buildTestService();
    stop = async () => {
      await service.stop();
      await drop?.();
    };
    // A histogram or summary is read through its series' suffixes.
    exported = new Set(
      service.ctx.metrics.registry
        .getMetricsAsArray()
        .flatMap((m) => [m.name, `${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`]),
    );
  });
  afterAll(() => stop());

  it('reads only metrics the service exports', () => {
    const queries = dashboard.panels.flatMap((p) => p.targets.map((t) => ({ panel: p.title, expr: t.expr })));
    expect(queries.length).toBeGreaterThan(15);
    const unknown = queries.flatMap((q) =>
      metricNamesOf(q.expr)
        .filter((name) => !exported.has(name))
        .map((name) => `${q.panel}: ${name}`),
    );
    expect(unknown).toEqual([]);
    // The extraction itself finds what a query names (else the check above could pass on nothing).
    expect(metricNamesOf('sum by (le) (rate(event_store_append_duration_seconds_bucket{a="b"}[5m])) / 1e6')).toEqual([
      'event_store_append_duration_seconds_bucket',
    ]);
  });

  it('has a panel for every alert the README names', () => {
    const all = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
    for (const metric of [
      'projection_lag_seconds',
      'event_store_appends_total',
      'provider_calls_total',
      'settlement_runs_total',
    ])
      expect(all).toContain(metric);
  });
});
