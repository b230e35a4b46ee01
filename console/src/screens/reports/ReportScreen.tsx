import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { lazy, Suspense, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useParams, useSearch, useLocation } from 'wouter';
import { client, download, unwrap } from '../../api/client';
import { codeLabel, fmt, t } from '../../i18n';
import { readAmount } from '../../ui/amount';
import { DataTable, Pager } from '../../ui/DataTable';
import { Picker, type PickerKind } from '../../ui/Picker';
import { ErrorView, QueryView } from '../../ui/states';
import { REPORT_KEYS, type ReportKey } from './reportKeys';
import { REPORTS, type FilterKind, type ReportAnswer, type ReportDef } from './reports';

const Charts = lazy(() => import('./Charts').then((m) => ({ default: m.OperationalCharts })));
const Ranking = lazy(() => import('./Charts').then((m) => ({ default: m.PerformanceChart })));

const label = (key: string) => t.fields[key] ?? key;

/** The figures an order only has once a driver took it and it was not cancelled or expired. */
const SETTLED_ONLY = ['commission_usd', 'driver_net_usd', 'solidary_fund_usd'];
const UNSETTLED = ['CANCELLED', 'EXPIRED'];

/**
 * A report value as read: money with its sign and two decimals, a code by its Spanish label, a calendar
 * day as a date; a rating without ratings and an unsettled order's commission as a dash.
 */
const reportCell = (column: string, v: unknown, row?: Record<string, unknown>): ReactNode => {
  if (row && column === 'rating' && row.ratings_count === 0) return '—';
  if (row && SETTLED_ONLY.includes(column) && (row.driver_id === null || UNSETTLED.includes(String(row.status))))
    return '—';
  if (column === 'traffic_light' && typeof v === 'string')
    return (
      <span className="light" data-light={v}>
        {codeLabel(v)}
      </span>
    );
  if (typeof v === 'number' && /_usd$/.test(column)) return fmt.usd(v);
  if (typeof v === 'number' && /_bs$/.test(column)) return fmt.bs(v);
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return fmt.date(v);
  if (typeof v === 'string' && /^\d{4}-\d{2}$/.test(v)) return `${v.slice(5)}/${v.slice(0, 4)}`;
  if (typeof v === 'string' && !/^\d{4}-\d{2}-\d{2}T/.test(v)) return codeLabel(v);
  return fmt.cell(v);
};

/**
 * The one place a report's query goes out: the descriptor's path is one of the seven typed report
 * paths, and the query holds only its typed filter, sort and page names (the filters come from the
 * address bar as strings, which the service validates and answers with a 422 when wrong).
 */
const fetchReport = (def: ReportDef, query: Record<string, string>) =>
  unwrap(
    client.GET(def.path as '/admin/reports/orders', { params: { query: query as never } }),
  ) as Promise<ReportAnswer>;

/** Filters that name a city, driver or client are picked by name, not typed as ids. */
const PICKERS: Record<string, PickerKind> = { city_id: 'city', driver_id: 'driver', client_id: 'client' };

const FilterInput = ({
  name,
  kind,
  value,
  error,
}: {
  name: string;
  kind: FilterKind;
  value: string;
  error?: string;
}) => {
  const id = `f-${name}`;
  let control;
  if (kind === 'bool' || Array.isArray(kind)) {
    const options: [string, string][] =
      kind === 'bool'
        ? [
            ['1', t.common.yes],
            ['0', t.common.no],
          ]
        : (kind as readonly string[]).map((o) => [o, codeLabel(o)]);
    control = (
      <select id={id} name={name} defaultValue={value}>
        <option value="">{t.common.all}</option>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    );
  } else if (PICKERS[name]) {
    return <Picker kind={PICKERS[name]} name={name} label={label(name)} defaultValue={value} />;
  } else if (kind === 'int' || kind === 'number') {
    // Typed the Venezuelan way or the plain way (ui/amount.ts), never the browser's number field.
    control = (
      <input
        id={id}
        name={name}
        inputMode={kind === 'int' ? 'numeric' : 'decimal'}
        autoComplete="off"
        defaultValue={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-err` : undefined}
      />
    );
  } else control = <input id={id} name={name} type={kind === 'date' ? 'date' : 'text'} defaultValue={value} />;
  return (
    <div className="field">
      <label htmlFor={id}>{label(name)}</label>
      {control}
      {error && (
        <span id={`${id}-err`} className="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
};

export default function ReportScreen() {
  const { report } = useParams<{ report: string }>();
  const key = (REPORT_KEYS as readonly string[]).includes(report) ? (report as ReportKey) : undefined;
  if (!key)
    return (
      <p role="alert" className="notice error">
        {t.errors.notFound}
      </p>
    );
  return <Report key={key} reportKey={key} />;
}

const Report = ({ reportKey }: { reportKey: ReportKey }) => {
  const def = REPORTS[reportKey];
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = useMemo(() => Object.fromEntries(new URLSearchParams(search)), [search]);
  const query = useMemo(
    () => (def.paged ? { limit: String(def.limit ?? 25), page: '1', ...params } : params),
    [def, params],
  );
  const result = useQuery({
    queryKey: ['report', def.path, query],
    queryFn: () => fetchReport(def, query),
    placeholderData: keepPreviousData,
  });
  const [exportError, setExportError] = useState<unknown>(null);
  const [exporting, setExporting] = useState(false);

  const setParams = (next: Record<string, string | undefined>) => {
    const merged = Object.entries({ ...params, ...next }).filter(([, v]) => v !== undefined && v !== '') as [
      string,
      string,
    ][];
    navigate(`/reports/${reportKey}?${new URLSearchParams(merged)}`);
  };
  const [filterErrors, setFilterErrors] = useState<Record<string, string>>({});
  const onFilter = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next: Record<string, string | undefined> = { page: undefined };
    const errors: Record<string, string> = {};
    for (const [name, kind] of def.filters) {
      const typed = String(form.get(name) ?? '').trim();
      if (typed !== '' && (kind === 'int' || kind === 'number')) {
        const read = readAmount(typed, kind === 'int' ? 0 : 2);
        if (read.ok) next[name] = String(read.value);
        else errors[name] = read.message;
      } else next[name] = typed || undefined;
    }
    setFilterErrors(errors);
    if (Object.keys(errors).length === 0) setParams(next);
  };
  const exportAs = async (format: 'csv' | 'xlsx') => {
    setExportError(null);
    setExporting(true);
    try {
      const { limit: _l, page: _p, ...filters } = query as Record<string, string>;
      await download(`${def.path}/export`, { ...filters, format });
    } catch (err) {
      setExportError(err);
    } finally {
      setExporting(false);
    }
  };

  const columns = useMemo<ColumnDef<Record<string, unknown>, unknown>[]>(
    () =>
      def.columns.map((c) => ({
        id: c,
        header: label(c),
        accessorFn: (row) => row[c],
        cell: (info) => reportCell(c, info.getValue(), info.row.original),
      })),
    [def],
  );
  const sort = params.sort
    ? { key: params.sort, direction: (params.direction === 'asc' ? 'asc' : 'desc') as 'asc' | 'desc' }
    : undefined;

  return (
    <section>
      <h1>{t.reports.names[reportKey]}</h1>
      <nav className="tabs" aria-label={t.reports.title}>
        {REPORT_KEYS.map((k) => (
          <Link key={k} href={`/reports/${k}`} aria-current={k === reportKey ? 'page' : undefined}>
            {t.reports.names[k]}
          </Link>
        ))}
      </nav>
      <form className="filters" onSubmit={onFilter} key={search}>
        {def.filters.map(([name, kind]) => (
          <FilterInput key={name} name={name} kind={kind} value={params[name] ?? ''} error={filterErrors[name]} />
        ))}
        <div className="buttons">
          <button type="submit" className="primary">
            {t.common.filter}
          </button>
          <button type="button" onClick={() => navigate(`/reports/${reportKey}`)}>
            {t.common.clear}
          </button>
        </div>
      </form>
      <div className="buttons">
        <button type="button" onClick={() => void exportAs('csv')} disabled={exporting}>
          {t.reports.exportCsv}
        </button>
        <button type="button" onClick={() => void exportAs('xlsx')} disabled={exporting}>
          {t.reports.exportXlsx}
        </button>
        {exporting && (
          <span className="muted" role="status">
            {t.reports.exporting}
          </span>
        )}
      </div>
      {exportError !== null && <ErrorView error={exportError} />}
      <QueryView query={result}>
        {(data) => (
          <>
            {data.totals && (
              <section aria-labelledby="totals-title">
                <h2 id="totals-title">{t.common.totals}</h2>
                <dl className="totals">
                  {Object.entries(data.totals).map(([k, v]) => (
                    <div key={k}>
                      <dt>{label(k)}</dt>
                      <dd>{reportCell(k, v)}</dd>
                    </div>
                  ))}
                </dl>
              </section>
            )}
            <Suspense fallback={null}>
              {def.chart === 'operational' && <Charts data={data} />}
              {def.chart === 'performance' && <Ranking data={data} rankBy={params.rank_by ?? 'deliveries'} />}
            </Suspense>
            <DataTable
              caption={t.reports.names[reportKey]}
              columns={columns}
              rows={data.items}
              sortable={def.sort as readonly string[]}
              sort={sort}
              onSort={(s) => setParams({ sort: s.key, direction: s.direction, page: undefined })}
            />
            {data.meta && <Pager meta={data.meta} onPage={(page) => setParams({ page: String(page) })} />}
          </>
        )}
      </QueryView>
    </section>
  );
};
