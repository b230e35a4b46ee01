/** GET /metrics of a metrics listener, as Prometheus' text format. */
export const scrape = async (metricsUrl: string): Promise<string> => {
  const res = await fetch(`${metricsUrl}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return res.text();
};

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The sum of every sample of `name` whose labels include `labels` (0 when there is none). */
export const sampleOf = (text: string, name: string, labels: Record<string, string> = {}): number => {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m || m[1] !== name) continue;
    const has = Object.fromEntries([...(m[2] ?? '').matchAll(LABEL)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => has[k] === v)) sum += Number(m[3]);
  }
  return sum;
};
