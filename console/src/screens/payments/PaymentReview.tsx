import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { Route, Switch } from 'wouter';
import { client, unwrap, type Ok } from '../../api/client';
import { useAuditor } from '../../api/session';
import { fmt, label, t } from '../../i18n';
import { DataTable, Pager } from '../../ui/DataTable';
import { Select } from '../../ui/forms';
import { ReasonForm } from '../../ui/ReasonForm';
import { Notice, QueryView } from '../../ui/states';
import { PaymentsNav } from './PaymentsNav';
import { ReportedValues } from './ReportedValues';
import { ReviewedPayments } from './ReviewedPayments';
import { REVIEW_METHODS, type ReviewMethod } from './reviewMethods';

type Item = Ok<'/admin/payments/pending', 'get'>['items'][number];
const p = t.payments;

/** What the reviewer decides on: the order to deliver, who pays, how much, and what they reported. */
const Summary = ({ item }: { item: Item }) => (
  <dl className="kv" aria-label={p.summary}>
    <dt>{p.client}</dt>
    <dd data-field="client">
      {item.client.name ?? '—'} · {item.client.phone ?? '—'}
    </dd>
    <dt>{p.order}</dt>
    <dd data-field="order">
      #{item.order.id} · {item.order.address ?? '—'} · {fmt.number(item.order.liters_requested)} L ·{' '}
      {label(t.enums.orderStatus, item.order.status)}
    </dd>
    <dt>{p.amount}</dt>
    <dd data-field="amount">
      {fmt.usd(item.amount_usd)}
      {item.amount_bs !== null && ` · ${fmt.bs(item.amount_bs)}`}
    </dd>
    <dt>{p.method}</dt>
    <dd>{label(t.enums.paymentMethod, item.method)}</dd>
    {item.reported && (
      <>
        <dt>{p.payer}</dt>
        <dd data-field="reported">
          {item.reported.bank ?? '—'} · {item.reported.phone ?? '—'}
        </dd>
      </>
    )}
    <dt>{p.reported}</dt>
    <dd>
      <ReportedValues item={item} />
    </dd>
    {item.receipt_url && (
      <>
        <dt>{p.voucher}</dt>
        <dd>
          <a href={item.receipt_url} target="_blank" rel="noreferrer noopener">
            {p.openVoucher}
          </a>
        </dd>
      </>
    )}
  </dl>
);

/** Payments: the queue awaiting review, and the payments already reviewed. */
export default function Payments() {
  return (
    <Switch>
      <Route path="/" component={PendingPayments} />
      <Route path="/reviewed" component={ReviewedPayments} />
    </Switch>
  );
}

function PendingPayments() {
  // An auditor reads the queue; approving and rejecting are not its to do.
  const auditor = useAuditor();
  const queryClient = useQueryClient();
  const [method, setMethod] = useState<ReviewMethod | undefined>();
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
        id: 'client',
        header: p.client,
        cell: ({ row }) => (
          <>
            {row.original.client.name ?? '—'}
            <br />
            <span className="muted">{row.original.client.phone ?? '—'}</span>
          </>
        ),
      },
      {
        id: 'order',
        header: p.order,
        cell: ({ row }) => (
          <>
            #{row.original.order.id} · {label(t.enums.orderStatus, row.original.order.status)}
            <br />
            <span className="muted">
              {row.original.order.address ?? '—'} · {fmt.number(row.original.order.liters_requested)} L
            </span>
          </>
        ),
      },
      { id: 'method', header: p.method, cell: ({ row }) => label(t.enums.paymentMethod, row.original.method) },
      {
        id: 'status',
        header: t.settlements.status,
        cell: ({ row }) => label(t.enums.paymentStatus, row.original.status),
      },
      {
        id: 'amount',
        header: p.amount,
        cell: ({ row }) => (
          <>
            {fmt.usd(row.original.amount_usd)}
            {row.original.amount_bs !== null && (
              <>
                <br />
                {fmt.bs(row.original.amount_bs)}
              </>
            )}
          </>
        ),
      },
      { id: 'reported', header: p.reported, cell: ({ row }) => <ReportedValues item={row.original} /> },
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
                aria-label={p.approveOrder(row.original.order.id)}
              >
                {p.approve}
              </button>
              <button
                type="button"
                onClick={() => {
                  setMessage('');
                  setAction({ kind: 'reject', item: row.original });
                }}
                aria-label={p.rejectOrder(row.original.order.id)}
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
  // An auditor is shown no action: each one writes.
  const shown = useMemo(() => (auditor ? columns.filter((c) => c.id !== 'actions') : columns), [auditor, columns]);
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
      <PaymentsNav />
      <div className="row">
        <Select
          label={p.method}
          value={method ?? ''}
          onChange={(e) => {
            setMethod(REVIEW_METHODS.find((m) => m === e.currentTarget.value));
            setPage(1);
          }}
          options={[['', t.common.all], ...REVIEW_METHODS.map((m) => [m, label(t.enums.paymentMethod, m)] as const)]}
        />
      </div>
      {message && <Notice>{message}</Notice>}
      {action && (
        <div className="panel stack">
          <Summary item={action.item} />
          <ReasonForm
            key={`${action.kind}-${action.item.id}`}
            title={(action.kind === 'approve' ? p.approveOrder : p.rejectOrder)(action.item.order.id)}
            hint={p.reasonHint}
            onSubmit={decide}
            onCancel={() => setAction(null)}
          />
        </div>
      )}
      <QueryView query={list}>
        {(data) => (
          <>
            <DataTable caption={p.title} columns={shown} rows={data.items} rowKey={(r) => String(r.id)} />
            <Pager meta={data.meta} onPage={setPage} />
          </>
        )}
      </QueryView>
    </section>
  );
}
