import { keepPreviousData, useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState, type FormEvent } from 'react';
import { Link, Route, Switch, useLocation } from 'wouter';
import { client, unwrap, type Ok, type QueryOf } from '../../api/client';
import { fmt, label, t } from '../../i18n';
import { DataTable } from '../../ui/DataTable';
import { Input, Select } from '../../ui/forms';
import { QueryView } from '../../ui/states';
import { StationDetail } from './StationDetail';
import { StationForm } from './StationForm';
import { ImportJob, StationImport } from './StationImport';
import { StationReports } from './StationReports';

const s = t.stations;
type Item = Ok<'/admin/stations', 'get'>['items'][number];
type Filters = QueryOf<'/admin/stations'>;

/** Stations: the directory's list with filters, creation, the bulk import, each station's page and reports. */
export default function Stations() {
  return (
    <Switch>
      <Route path="/" component={StationList} />
      <Route path="/new" component={NewStation} />
      <Route path="/import" component={StationImport} />
      <Route path="/import/:jobId" component={ImportJob} />
      <Route path="/:stationId/reports" component={StationReports} />
      <Route path="/:stationId" component={StationDetail} />
    </Switch>
  );
}

const StationList = () => {
  const [filters, setFilters] = useState<Filters>({ estado: 'TODAS' });
  const list = useInfiniteQuery({
    queryKey: ['stations', filters],
    placeholderData: keepPreviousData,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(client.GET('/admin/stations', { params: { query: { ...filters, limit: 25, cursor: pageParam } } })),
    getNextPageParam: (last) => (last.has_more ? (last.next_cursor ?? undefined) : undefined),
  });
  const columns = useMemo<ColumnDef<Item, unknown>[]>(
    () => [
      { id: 'name', header: s.name, cell: ({ row }) => <Link href={`/${row.original.id}`}>{row.original.name}</Link> },
      { id: 'address', header: s.address, accessorKey: 'address' },
      { id: 'tipo', header: s.tipoLabel, cell: ({ row }) => label(s.tipo, row.original.tipo) },
      { id: 'estado', header: s.estadoLabel, cell: ({ row }) => label(s.estado, row.original.estado) },
      { id: 'last_report_at', header: s.lastReport, cell: ({ row }) => fmt.dateTime(row.original.last_report_at) },
    ],
    [],
  );
  const onFilter = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const tipo = String(f.get('tipo') ?? '');
    setFilters({
      q: String(f.get('q') ?? '').trim() || undefined,
      tipo: tipo === 'AGUA' || tipo === 'GASOLINA' ? tipo : undefined,
      estado: String(f.get('estado')) as Filters['estado'],
    });
  };
  return (
    <section className="stack">
      <h1>{s.title}</h1>
      <div className="buttons">
        <Link href="/new">{s.new}</Link>
        <Link href="/import">{s.import}</Link>
      </div>
      <form className="row" onSubmit={onFilter} role="search" aria-label={t.common.filter}>
        <Input label={s.q} name="q" maxLength={120} defaultValue={filters.q} />
        <Select
          label={s.tipoLabel}
          name="tipo"
          defaultValue={filters.tipo ?? ''}
          options={[['', t.common.all], ...Object.entries(s.tipo)]}
        />
        <Select
          label={s.estadoLabel}
          name="estado"
          defaultValue={filters.estado}
          options={Object.entries(s.estadoFilter)}
        />
        <button type="submit" className="primary">
          {t.common.filter}
        </button>
      </form>
      <QueryView query={list}>
        {(data) => (
          <>
            <DataTable
              caption={s.title}
              columns={columns}
              rows={data.pages.flatMap((p) => p.items)}
              rowKey={(r) => String(r.id)}
            />
            {list.hasNextPage && (
              <button type="button" onClick={() => void list.fetchNextPage()}>
                {t.common.more}
              </button>
            )}
          </>
        )}
      </QueryView>
    </section>
  );
};

const NewStation = () => {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  return (
    <section className="stack">
      <h1>{s.new}</h1>
      <StationForm
        title={s.new}
        submitLabel={t.common.save}
        onSave={async (body) => {
          const { station } = await unwrap(client.POST('/admin/stations', { body }));
          await queryClient.invalidateQueries({ queryKey: ['stations'] });
          navigate(`/${station.id}`);
          return s.created;
        }}
      />
    </section>
  );
};
