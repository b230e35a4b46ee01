import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { client, unwrap } from '../../api/client';
import { session } from '../../api/session';
import { fmt, t } from '../../i18n';
import { ConfirmToggle } from '../../ui/ConfirmToggle';
import { DataTable, Pager } from '../../ui/DataTable';
import { Notice, QueryView } from '../../ui/states';
import { AdminEditor, useCities, type AdminUser } from './AdminEditor';

const a = t.admins;

/** The back office's admins (super admins only): invite, change role and cities, deactivate. */
export default function Admins() {
  const queryClient = useQueryClient();
  const cities = useCities();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<AdminUser | null>(null);
  const isSuper = session.get()?.admin.superAdmin === true;
  const list = useQuery({
    queryKey: ['admins', page],
    enabled: isSuper,
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(client.GET('/admin/admins', { params: { query: { page, limit: 25 } } })),
  });
  if (!isSuper)
    return (
      <section>
        <h1>{a.title}</h1>
        <Notice>{a.superOnly}</Notice>
      </section>
    );
  const cityName = (id: number) => cities.data?.cities.find((c) => c.id === id)?.name ?? `#${id}`;
  const columns: ColumnDef<AdminUser, unknown>[] = [
    { id: 'name', header: a.name, cell: ({ row }) => row.original.name },
    {
      id: 'email',
      header: a.email,
      cell: ({ row }) =>
        row.original.pendingEmail
          ? `${row.original.email} (${a.pendingEmail}: ${row.original.pendingEmail})`
          : row.original.email,
    },
    { id: 'role', header: a.role, cell: ({ row }) => (row.original.superAdmin ? a.superAdmin : a.admin) },
    {
      id: 'cities',
      header: a.cities,
      cell: ({ row }) => (row.original.allCities ? a.allCities : row.original.cityIds.map(cityName).join(', ') || '—'),
    },
    { id: 'confirmed', header: a.confirmed, cell: ({ row }) => fmt.bool(row.original.confirmed) },
    { id: 'active', header: a.active, cell: ({ row }) => fmt.bool(row.original.isActive) },
    { id: 'createdAt', header: a.createdAt, cell: ({ row }) => fmt.dateTime(row.original.createdAt) },
    {
      id: 'actions',
      header: t.common.actions,
      cell: ({ row }) => (
        <div className="buttons">
          <button type="button" onClick={() => setEditing(row.original)} aria-label={`${a.edit} ${row.original.name}`}>
            {a.edit}
          </button>
          <ConfirmToggle
            name={row.original.name}
            active={row.original.isActive}
            words={a}
            onConfirm={async () => {
              await unwrap(
                client.PATCH('/admin/admins/{id}', {
                  params: { path: { id: row.original.id } },
                  body: { isActive: !row.original.isActive },
                }),
              );
              await queryClient.invalidateQueries({ queryKey: ['admins'] });
            }}
          />
        </div>
      ),
    },
  ];
  return (
    <section className="stack">
      <h1>{a.title}</h1>
      <AdminEditor key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />
      <QueryView query={list}>
        {(data) => (
          <>
            <DataTable caption={a.title} columns={columns} rows={data.items} rowKey={(x) => String(x.id)} />
            <Pager meta={data.meta} onPage={setPage} />
          </>
        )}
      </QueryView>
    </section>
  );
}
