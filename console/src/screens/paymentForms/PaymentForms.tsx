import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { client, unwrap, type Ok } from '../../api/client';
import { session } from '../../api/session';
import { fmt, label, t } from '../../i18n';
import { DataTable, Pager } from '../../ui/DataTable';
import { Notice, QueryView } from '../../ui/states';
import { ConfirmToggle } from '../../ui/ConfirmToggle';
import { FormEditor } from './FormEditor';

const p = t.paymentForms;
type Method = Ok<'/payment-methods', 'get'>['methods'][number];
export type PaymentForm = Ok<'/admin/payment-forms', 'get'>['items'][number];

/** A method or form switched on or off after confirming (`send`), then its list (`list`) read again. */
const Switch = ({
  name,
  active,
  list,
  send,
}: {
  name: string;
  active: boolean;
  list: string;
  send: () => Promise<unknown>;
}) => {
  const queryClient = useQueryClient();
  return (
    <ConfirmToggle
      name={name}
      active={active}
      words={p}
      onConfirm={async () => {
        await send();
        await queryClient.invalidateQueries({ queryKey: [list] });
      }}
    />
  );
};

const Methods = ({ canChange }: { canChange: boolean }) => {
  const methods = useQuery({
    queryKey: ['payment-methods'],
    queryFn: () => unwrap(client.GET('/payment-methods')),
  });
  const columns: ColumnDef<Method, unknown>[] = [
    { id: 'code', header: p.code, cell: ({ row }) => <code>{row.original.code}</code> },
    { id: 'name', header: p.name, cell: ({ row }) => row.original.name },
    { id: 'kind', header: p.kind, cell: ({ row }) => label(p.kinds, row.original.kind) },
    { id: 'active', header: p.active, cell: ({ row }) => fmt.bool(row.original.active) },
  ];
  if (canChange)
    columns.push({
      id: 'actions',
      header: t.common.actions,
      cell: ({ row }) => (
        <Switch
          name={row.original.name}
          active={row.original.active}
          list="payment-methods"
          send={() =>
            unwrap(
              client.PATCH('/admin/payment-methods/{code}', {
                params: { path: { code: row.original.code } },
                body: { active: !row.original.active },
              }),
            )
          }
        />
      ),
    });
  return (
    <section aria-labelledby="methods-title">
      <h2 id="methods-title">{p.methods}</h2>
      <QueryView query={methods}>
        {(data) => <DataTable caption={p.methods} columns={columns} rows={data.methods} rowKey={(m) => m.code} />}
      </QueryView>
    </section>
  );
};

const Forms = ({ canChange }: { canChange: boolean }) => {
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<PaymentForm | null>(null);
  const forms = useQuery({
    queryKey: ['payment-forms', page],
    queryFn: () => unwrap(client.GET('/admin/payment-forms', { params: { query: { page, limit: 25 } } })),
  });
  const columns: ColumnDef<PaymentForm, unknown>[] = [
    { id: 'name', header: p.name, cell: ({ row }) => row.original.name },
    { id: 'internal_name', header: p.internalName, cell: ({ row }) => <code>{row.original.internal_name}</code> },
    { id: 'category', header: p.category, cell: ({ row }) => label(p.categories, row.original.category) },
    { id: 'currency', header: p.currency, cell: ({ row }) => label(p.currencies, row.original.currency) },
    {
      id: 'fields',
      header: p.fields,
      cell: ({ row }) =>
        row.original.fields.map((f) => (f.required ? f.label : `${f.label} (${p.fieldOptional})`)).join(', '),
    },
    { id: 'sort_order', header: p.sortOrder, cell: ({ row }) => fmt.number(row.original.sort_order) },
    { id: 'active', header: p.active, cell: ({ row }) => fmt.bool(row.original.active) },
  ];
  if (canChange)
    columns.push({
      id: 'actions',
      header: t.common.actions,
      cell: ({ row }) => (
        <div className="buttons">
          <button type="button" onClick={() => setEditing(row.original)} aria-label={`${p.edit} ${row.original.name}`}>
            {p.edit}
          </button>
          <Switch
            name={row.original.name}
            active={row.original.active}
            list="payment-forms"
            send={() =>
              unwrap(
                client.PATCH('/admin/payment-forms/{id}', {
                  params: { path: { id: row.original.id } },
                  body: { active: !row.original.active },
                }),
              )
            }
          />
        </div>
      ),
    });
  return (
    <section aria-labelledby="forms-title" className="stack">
      <h2 id="forms-title">{p.forms}</h2>
      {canChange && <FormEditor key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />}
      <QueryView query={forms}>
        {(data) => (
          <>
            <DataTable caption={p.forms} columns={columns} rows={data.items} rowKey={(f) => String(f.id)} />
            <Pager meta={data.meta} onPage={setPage} />
          </>
        )}
      </QueryView>
    </section>
  );
};

/** The payment-method catalogue and the manual payment forms; super admins switch and edit them. */
export default function PaymentForms() {
  const canChange = session.get()?.admin.superAdmin === true;
  return (
    <section className="stack">
      <h1>{p.title}</h1>
      {!canChange && <Notice>{p.superOnly}</Notice>}
      <Methods canChange={canChange} />
      <Forms canChange={canChange} />
    </section>
  );
}
