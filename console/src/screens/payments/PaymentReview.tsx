import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { client, unwrap, type Ok } from '../../api/client';
import { fmt, t } from '../../i18n';
import { DataTable, Pager } from '../../ui/DataTable';
import { Select } from '../../ui/forms';
import { ReasonForm } from '../../ui/ReasonForm';
import { Notice, QueryView } from '../../ui/states';

type Item = Ok<'/admin/payments/pending', 'get'>['items'][number];
const METHODS = ['CASH_USD', 'EXCHANGE_PAY', 'PAYPROV_DI', 'PAYMENT_FORM'] as const;
const p = t.payments;

const reportedText = (values: unknown) => {
  if (!values || typeof values !== 'object') return '—';
  return Object.entries(values as Record<string, unknown>)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' · ');
};

export default function PaymentReview() {
  const queryClient = useQueryClient();
  const [method, setMethod] = useState<(typeof METHODS)[number] | undefined>();
  const [page, setPage] = useState(1);
  const [action, setAction] = useState<{ kind: 'approve' | 'reject'; item: Item } | null>(null);
  const [message, setMessage] = useState('');
  const query = { method, page, limit: 25 };
  const list = useQuery({
    queryKey: ['payments', query],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(client.GET('/admin/payments/pending', { params: { query } })),
  });
  const columns = useMemo<ColumnDef<Item, unknown>[]>(
    () => [
      { id: 'id', header: t.common.id, accessorKey: 'id' },
      {
        id: 'order',
        header: p.order,
        cell: ({ row }) => `#${row.original.order.id} (${row.original.order.status ?? '—'})`,
      },
      { id: 'method', header: p.method, accessorKey: 'method' },
      { id: 'status', header: t.settlements.status, accessorKey: 'status' },
      { id: 'amount_usd', header: p.amount, cell: ({ row }) => fmt.number(row.original.amount_usd) },
      { id: 'reference', header: p.reference, cell: ({ row }) => row.original.reference ?? '—' },
      { id: 'reported', header: p.reported, cell: ({ row }) => reportedText(row.original.reported_values) },
      { id: 'created_at', header: p.created, cell: ({ row }) => fmt.dateTime(row.original.created_at) },
      {
        id: 'actions',
        header: t.common.actions,
        cell: ({ row }) =>
          row.original.actionable ? (
            <div className="buttons">
              <button
                type="button"
                onClick={() => {
                  setMessage('');
                  setAction({ kind: 'approve', item: row.original });
                }}
                aria-label={`${p.approve} ${row.original.id}`}
              >
                {p.approve}
              </button>
              <button
                type="button"
                onClick={() => {
                  setMessage('');
                  setAction({ kind: 'reject', item: row.original });
                }}
                aria-label={`${p.reject} ${row.original.id}`}
              >
                {p.reject}
              </button>
            </div>
          ) : (
            <span className="muted">{p.notActionable}</span>
          ),
      },
    ],
    [],
  );
  const decide = async (reason: string) => {
    if (!action) return;
    const path = { paymentId: action.item.id };
    if (action.kind === 'approve')
      await unwrap(client.POST('/admin/payments/{paymentId}/approve', { params: { path }, body: { reason } }));
    else await unwrap(client.POST('/admin/payments/{paymentId}/reject', { params: { path }, body: { reason } }));
    setMessage(action.kind === 'approve' ? p.approved : p.rejected);
    setAction(null);
    await queryClient.invalidateQueries({ queryKey: ['payments'] });
  };
  return (
    <section>
      <h1>{p.title}</h1>
      <div className="row">
        <Select
          label={p.method}
          value={method ?? ''}
          onChange={(e) => {
            setMethod(METHODS.find((m) => m === e.currentTarget.value));
            setPage(1);
          }}
          options={[['', t.common.all], ...METHODS.map((m) => [m, m] as const)]}
        />
      </div>
      {message && <Notice>{message}</Notice>}
      {action && (
        <ReasonForm
          key={`${action.kind}-${action.item.id}`}
          title={`${action.kind === 'approve' ? p.approve : p.reject}: ${action.item.id}`}
          hint={p.reasonHint}
          onSubmit={decide}
          onCancel={() => setAction(null)}
        />
      )}
      <QueryView query={list}>
        {(data) => (
          <>
            <DataTable caption={p.title} columns={columns} rows={data.items} rowKey={(r) => String(r.id)} />
            <Pager meta={data.meta} onPage={setPage} />
          </>
        )}
      </QueryView>
    </section>
  );
}
