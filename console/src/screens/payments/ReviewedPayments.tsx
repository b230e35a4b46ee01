import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, type FormEvent } from 'react';
import { Link } from 'wouter';
import { client, unwrap, type Ok, type QueryOf } from '../../api/client';
import { fmt, label, t } from '../../i18n';
import { DataTable, Pager } from '../../ui/DataTable';
import { Input, Select } from '../../ui/forms';
import { QueryView } from '../../ui/states';
import { useUrlQuery } from '../../ui/useUrlQuery';
import { PaymentsNav } from './PaymentsNav';
import { ReportedValues } from './ReportedValues';
import { REVIEW_METHODS } from './reviewMethods';

type Item = Ok<'/admin/payments/reviewed', 'get'>['items'][number];
type Query = QueryOf<'/admin/payments/reviewed'>;
const OUTCOMES = ['APPROVED', 'REJECTED'] as const;
const FILTERS = ['outcome', 'method', 'date_from', 'date_to'] as const;
const p = t.payments;

/**
 * The payments already reviewed, newest decision first: who decided, when, the outcome and the reason,
 * beside what the customer reported; filtered by outcome, method and the day of the decision. A read:
 * an auditor sees it as an admin does.
 */
export const ReviewedPayments = () => {
  const [params, set, search] = useUrlQuery();
  const query: Query = {
    limit: 25,
    page: Number(params.page ?? 1),
    outcome: OUTCOMES.find((o) => o === params.outcome),
    method: REVIEW_METHODS.find((m) => m === params.method),
    date_from: params.date_from || undefined,
    date_to: params.date_to || undefined,
  };
  const list = useQuery({
    queryKey: ['payments-reviewed', query],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(client.GET('/admin/payments/reviewed', { params: { query } })),
  });
  const columns = useMemo<ColumnDef<Item, unknown>[]>(
    () => [
      {
        id: 'reviewed_at',
        header: p.reviewedAt,
        cell: ({ row }) => fmt.dateTime(row.original.review.reviewed_at),
      },
      {
        id: 'outcome',
        header: p.outcomeLabel,
        cell: ({ row }) => <strong>{label(p.outcome, row.original.review.outcome)}</strong>,
      },
      {
        id: 'reviewed_by',
        header: p.reviewedBy,
        cell: ({ row }) => row.original.review.admin.name ?? `#${row.original.review.admin.id}`,
      },
      { id: 'reason', header: t.common.reason, cell: ({ row }) => row.original.review.reason ?? '—' },
      {
        id: 'order',
        header: p.order,
        cell: ({ row }) => (
          <>
            <Link href={`~/console/replay/order/${row.original.order.id}`}>#{row.original.order.id}</Link> ·{' '}
            {label(t.enums.orderStatus, row.original.order.status)}
          </>
        ),
      },
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
      { id: 'method', header: p.method, cell: ({ row }) => label(t.enums.paymentMethod, row.original.method) },
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
      {
        id: 'status',
        header: p.currentStatus,
        cell: ({ row }) => label(t.enums.paymentStatus, row.original.status),
      },
    ],
    [],
  );
  const onFilter = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    set({ page: undefined, ...Object.fromEntries(FILTERS.map((k) => [k, String(f.get(k) ?? '') || undefined])) });
  };
  return (
    <section>
      <h1>{p.reviewedTitle}</h1>
      <PaymentsNav />
      <form className="filters" onSubmit={onFilter} key={search} aria-label={t.common.filter}>
        <Select
          label={p.outcomeLabel}
          name="outcome"
          defaultValue={params.outcome ?? ''}
          options={[['', t.common.all], ...OUTCOMES.map((o) => [o, label(p.outcome, o)] as const)]}
        />
        <Select
          label={p.method}
          name="method"
          defaultValue={params.method ?? ''}
          options={[['', t.common.all], ...REVIEW_METHODS.map((m) => [m, label(t.enums.paymentMethod, m)] as const)]}
        />
        <Input label={t.fields.date_from} name="date_from" type="date" defaultValue={params.date_from} />
        <Input label={t.fields.date_to} name="date_to" type="date" defaultValue={params.date_to} />
        <div className="buttons">
          <button type="submit" className="primary">
            {t.common.filter}
          </button>
        </div>
      </form>
      <QueryView query={list}>
        {(data) => (
          <>
            <DataTable caption={p.reviewedTitle} columns={columns} rows={data.items} rowKey={(r) => String(r.id)} />
            <Pager meta={data.meta} onPage={(page) => set({ page: String(page) })} />
          </>
        )}
      </QueryView>
    </section>
  );
};
