import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'wouter';
import { ApiError, client, unwrap, type Ok, type QueryOf } from '../../api/client';
import { fmt, label, t } from '../../i18n';
import { spanishFieldMessage } from '../../i18n/apiMessages';
import { Input, Select } from '../../ui/forms';
import { QueryView } from '../../ui/states';

const s = t.stations;
type Report = Ok<'/admin/stations/{stationId}/reports', 'get'>['items'][number];
type Filters = QueryOf<'/admin/stations/{stationId}/reports'>;
const PAGE_SIZES = ['10', '25', '50', '100'] as const;

/** A station's reports, newest first: when, the colour reported, the wait, the comment and who reported. */
export const ReportsTable = ({ caption, reports }: { caption: string; reports: Report[] }) => (
  <div className="table-wrap" tabIndex={0} role="region" aria-label={caption}>
    <table>
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{s.reportedAt}</th>
          <th scope="col">{s.estadoLabel}</th>
          <th scope="col">{s.wait}</th>
          <th scope="col">{s.comment}</th>
          <th scope="col">{s.reporter}</th>
        </tr>
      </thead>
      <tbody>
        {reports.length === 0 && (
          <tr>
            <td colSpan={5} className="muted">
              {t.common.empty}
            </td>
          </tr>
        )}
        {reports.map((r) => (
          <tr key={r.id}>
            <td>{fmt.dateTime(r.created_at)}</td>
            <td>{label(s.color, r.color)}</td>
            <td>{fmt.number(r.wait_minutes)}</td>
            <td>{r.comment ?? '—'}</td>
            <td>{r.reporter ?? s.anonymous}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

// A day typed by the operator is a day where they are: from its first to its last millisecond there.
const startOfDay = (day: string) => (day ? new Date(`${day}T00:00:00.000`).toISOString() : undefined);
const endOfDay = (day: string) => (day ? new Date(`${day}T23:59:59.999`).toISOString() : undefined);

/**
 * A station's whole report history, newest first, filtered by colour and by days, a page at a time
 * (the API's cursor); a refused filter says why on its own input.
 */
export const StationReports = () => {
  const { stationId } = useParams<{ stationId: string }>();
  const id = Number(stationId);
  // What the API is asked, and the days as typed (the form shows them again).
  const [{ query, fromDay, toDay }, setFilters] = useState<{ query: Filters; fromDay: string; toDay: string }>({
    query: { limit: 25 },
    fromDay: '',
    toDay: '',
  });
  const station = useQuery({
    queryKey: ['station', id],
    queryFn: () => unwrap(client.GET('/admin/stations/{stationId}', { params: { path: { stationId: id } } })),
  });
  const history = useInfiniteQuery({
    queryKey: ['station-reports', id, query],
    placeholderData: keepPreviousData,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        client.GET('/admin/stations/{stationId}/reports', {
          params: { path: { stationId: id }, query: { ...query, cursor: pageParam } },
        }),
      ),
    getNextPageParam: (last) => (last.has_more ? (last.next_cursor ?? undefined) : undefined),
  });
  // A refused filter (422) speaks on its input; any other error shows where the table would.
  const refused = history.error instanceof ApiError && history.error.status === 422 ? history.error.fieldErrors : null;
  const errorOf = (key: string) => refused?.[key]?.map(spanishFieldMessage).join(' ');
  const onFilter = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const color = String(f.get('color') ?? '');
    const from = String(f.get('from') ?? '');
    const to = String(f.get('to') ?? '');
    setFilters({
      query: {
        color: color ? (color as Filters['color']) : undefined,
        from: startOfDay(from),
        to: endOfDay(to),
        limit: Number(f.get('limit')),
      },
      fromDay: from,
      toDay: to,
    });
  };
  const name = station.data?.station.name ?? `#${id}`;
  return (
    <section className="stack">
      <h1>{s.historyTitle(name)}</h1>
      <Link href={`/${id}`}>{s.backToStation}</Link>
      <form className="row" onSubmit={onFilter} role="search" aria-label={t.common.filter}>
        <Select
          label={s.estadoLabel}
          name="color"
          defaultValue={query.color ?? ''}
          error={errorOf('color')}
          options={[['', t.common.all], ...Object.entries(s.color)]}
        />
        <Input label={s.fromDay} name="from" type="date" defaultValue={fromDay} error={errorOf('from')} />
        <Input label={s.toDay} name="to" type="date" defaultValue={toDay} error={errorOf('to')} />
        <Select
          label={t.common.perPage}
          name="limit"
          defaultValue={String(query.limit)}
          error={errorOf('limit')}
          options={PAGE_SIZES.map((n) => [n, n] as const)}
        />
        <button type="submit" className="primary">
          {t.common.filter}
        </button>
      </form>
      {refused ? null : (
        <QueryView query={history}>
          {(data) => {
            const reports = data.pages.flatMap((p) => p.items);
            return (
              <>
                <p className="muted" role="status">
                  {s.shown(reports.length, !history.hasNextPage)}
                </p>
                <ReportsTable caption={s.history} reports={reports} />
                {history.hasNextPage && (
                  <button
                    type="button"
                    disabled={history.isFetchingNextPage}
                    onClick={() => void history.fetchNextPage()}
                  >
                    {t.common.more}
                  </button>
                )}
              </>
            );
          }}
        </QueryView>
      )}
    </section>
  );
};
