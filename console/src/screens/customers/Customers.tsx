import { keepPreviousData, useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import { Link, Route, Switch, useParams } from 'wouter';
import { client, unwrap, type Ok } from '../../api/client';
import { codeLabel, fmt, t } from '../../i18n';
import { DataTable, Pager } from '../../ui/DataTable';
import { amountOf, amountRule } from '../../ui/amount';
import { ReviewedSubmit } from '../../ui/ConfirmPanel';
import { applyFieldErrors, Input, reasonRule, Select } from '../../ui/forms';
import { useReviewedSend } from '../../ui/useReviewedSend';
import { BankAccount } from './BankAccount';
import { QueryView } from '../../ui/states';

const c = t.customers;
type Customer = Ok<'/admin/customers', 'get'>['items'][number];

export default function Customers() {
  return (
    <Switch>
      <Route path="/" component={CustomerList} />
      <Route path="/:customerId" component={CustomerDetail} />
    </Switch>
  );
}

const CustomerList = () => {
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const query = { q: q || undefined, page, limit: 25 };
  const list = useQuery({
    queryKey: ['customers', query],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(client.GET('/admin/customers', { params: { query } })),
  });
  const columns = useMemo<ColumnDef<Customer, unknown>[]>(
    () => [
      {
        id: 'id',
        header: t.common.id,
        cell: ({ row }) => <Link href={`/${row.original.id}`}>#{row.original.id}</Link>,
      },
      { id: 'name', header: c.name, cell: ({ row }) => row.original.name ?? '—' },
      { id: 'phone', header: c.phone, accessorKey: 'phone' },
      { id: 'email', header: c.email, cell: ({ row }) => row.original.email ?? '—' },
      { id: 'is_active', header: c.active, cell: ({ row }) => fmt.bool(row.original.is_active) },
      { id: 'total_orders', header: c.orders, accessorKey: 'total_orders' },
      {
        id: 'total_liters_ordered',
        header: c.liters,
        cell: ({ row }) => fmt.number(row.original.total_liters_ordered),
      },
      { id: 'created_at', header: t.fields.created_at, cell: ({ row }) => fmt.dateTime(row.original.created_at) },
    ],
    [],
  );
  const onSearch = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setQ(String(new FormData(e.currentTarget).get('q') ?? ''));
    setPage(1);
  };
  return (
    <section>
      <h1>{c.title}</h1>
      <form className="row" onSubmit={onSearch} role="search">
        <Input label={c.q} name="q" defaultValue={q} maxLength={80} />
        <button type="submit" className="primary">
          {t.common.search}
        </button>
      </form>
      <QueryView query={list}>
        {(data) => (
          <>
            <DataTable caption={c.title} columns={columns} rows={data.items} rowKey={(r) => String(r.id)} />
            <Pager meta={data.meta} onPage={setPage} />
          </>
        )}
      </QueryView>
    </section>
  );
};

type AdjustForm = { type: 'credit' | 'debit'; scope: 'ANY' | 'ORDERS' | 'SURPLUS'; amount: string; reason: string };
type Credit = Ok<'/admin/customers/{customerId}', 'get'>['credit'];
const BUCKET = { ANY: 'anyUSD', ORDERS: 'ordersUSD', SURPLUS: 'surplusUSD' } as const;

/**
 * A manual credit adjustment: it moves money, so it is confirmed first with the signed amount and its
 * bucket, and a debit that leaves the bucket below zero says so; it is booked once (useReviewedSend).
 */
const AdjustCredit = ({ customerId, credit }: { customerId: number; credit: Credit }) => {
  const queryClient = useQueryClient();
  const [done, setDone] = useState(false);
  const { register, handleSubmit, setError, reset, formState } = useForm<AdjustForm>({
    defaultValues: { type: 'credit', scope: 'ANY', amount: '', reason: '' },
  });
  const adjustment = useReviewedSend<AdjustForm>(
    async (f, key) => {
      await unwrap(
        client.POST('/admin/customers/{customerId}/credit/adjust', {
          params: { path: { customerId }, header: { 'idempotency-key': key } },
          body: { type: f.type, scope: f.scope, amount: amountOf(f.amount, 2), reason: f.reason.trim() },
        }),
      );
      reset();
      setDone(true);
      await queryClient.invalidateQueries({ queryKey: ['customer', customerId] });
      await queryClient.invalidateQueries({ queryKey: ['credit-history', customerId] });
    },
    (err) => applyFieldErrors(err, setError, ['type', 'scope', 'amount', 'reason']),
  );
  const check = handleSubmit((f) => {
    setDone(false);
    adjustment.ask(f);
  });
  const e = formState.errors;
  const review = adjustment.review;
  const amount = review ? amountOf(review.amount, 2) : 0;
  const after = review ? Math.round((credit[BUCKET[review.scope]] - amount) * 100) / 100 : 0;
  return (
    <form className="panel stack" onSubmit={check} noValidate aria-labelledby="adjust-title">
      <h2 id="adjust-title">{c.adjust}</h2>
      <div className="row">
        <Select
          label={c.type}
          error={e.type?.message}
          options={[
            ['credit', c.credit_],
            ['debit', c.debit],
          ]}
          {...register('type')}
        />
        <Select
          label={c.scope}
          error={e.scope?.message}
          options={[
            ['ANY', codeLabel('ANY')],
            ['ORDERS', codeLabel('ORDERS')],
            ['SURPLUS', codeLabel('SURPLUS')],
          ]}
          {...register('scope')}
        />
        <Input
          label={c.amount}
          inputMode="decimal"
          autoComplete="off"
          error={e.amount?.message}
          {...register('amount', { validate: amountRule(2, { min: 0.01, max: 1_000_000, message: c.amountRange }) })}
        />
      </div>
      <Input
        label={t.common.reason}
        placeholder={t.payments.reasonHint}
        error={e.reason?.message}
        {...register('reason', reasonRule)}
      />
      <ReviewedSubmit
        submitLabel={c.adjust}
        confirm={
          review && {
            title: c.adjustConfirmTitle,
            message: c.adjustConfirm(fmt.signedUsd(amount, review.type === 'credit'), codeLabel(review.scope)),
            warning: review.type === 'debit' && after < 0 ? t.amount.belowZero(fmt.usd(after)) : undefined,
          }
        }
        busy={adjustment.busy}
        onConfirm={() => void adjustment.confirm()}
        onCancel={adjustment.cancel}
        done={done ? c.adjusted : ''}
        error={adjustment.error}
      />
    </form>
  );
};

const CustomerDetail = () => {
  const { customerId } = useParams<{ customerId: string }>();
  const id = Number(customerId);
  const [page, setPage] = useState(1);
  const detail = useQuery({
    queryKey: ['customer', id, page],
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        client.GET('/admin/customers/{customerId}', {
          params: { path: { customerId: id }, query: { page, limit: 10 } },
        }),
      ),
  });
  const history = useInfiniteQuery({
    queryKey: ['credit-history', id],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        client.GET('/admin/customers/{customerId}/credit/transactions', {
          params: { path: { customerId: id }, query: { limit: 25, cursor: pageParam } },
        }),
      ),
    getNextPageParam: (last) => (last.has_more ? (last.next_cursor ?? undefined) : undefined),
  });
  return (
    <section>
      <QueryView query={detail}>
        {(data) => (
          <div className="stack">
            <h1>{data.customer.name ?? `#${data.customer.id}`}</h1>
            <dl className="kv panel">
              <dt>{c.phone}</dt>
              <dd>{data.customer.phone}</dd>
              <dt>{c.email}</dt>
              <dd>{data.customer.email ?? '—'}</dd>
              <dt>{c.orders}</dt>
              <dd>{data.totals.total_orders}</dd>
              <dt>{c.liters}</dt>
              <dd>{fmt.number(data.totals.total_liters_ordered)}</dd>
              <dt>{c.spent}</dt>
              <dd>{fmt.usd(data.totals.total_spent_usd)}</dd>
            </dl>
            <BankAccount customerId={id} />
            <h2>{c.credit}</h2>
            <dl className="totals">
              {Object.entries(data.credit).map(([k, v]) => (
                <div key={k}>
                  <dt>{c.summary[k] ?? k}</dt>
                  <dd>{fmt.usd(v)}</dd>
                </div>
              ))}
            </dl>
            <AdjustCredit customerId={id} credit={data.credit} />
            <h2>{c.orders}</h2>
            <div className="table-wrap" tabIndex={0} role="region" aria-label={c.orders}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t.common.id}</th>
                    <th scope="col">{t.fields.status}</th>
                    <th scope="col">{c.liters}</th>
                    <th scope="col">USD</th>
                    <th scope="col">{t.fields.created_at}</th>
                    <th scope="col">{t.nav.replay}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.orders.map((o) => (
                    <tr key={o.id}>
                      <td>#{o.id}</td>
                      <td>{codeLabel(o.status)}</td>
                      <td>{fmt.number(o.liters)}</td>
                      <td>{fmt.usd(o.price_usd)}</td>
                      <td>{fmt.dateTime(o.created_at)}</td>
                      <td>
                        <Link href={`~/console/replay/order/${o.id}`}>{c.history}</Link>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager meta={data.meta} onPage={setPage} />
          </div>
        )}
      </QueryView>
      <h2>{c.creditHistory}</h2>
      <QueryView query={history}>
        {(data) => (
          <>
            <div className="table-wrap" tabIndex={0} role="region" aria-label={c.creditHistory}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{c.date}</th>
                    <th scope="col">{c.type}</th>
                    <th scope="col">{c.scope}</th>
                    <th scope="col">{c.amount}</th>
                    <th scope="col">{c.balanceAfter}</th>
                    <th scope="col">{c.description}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.pages
                    .flatMap((p) => p.items)
                    .map((x) => (
                      <tr key={x.id}>
                        <td>{fmt.dateTime(x.created_at)}</td>
                        <td>{codeLabel(x.type)}</td>
                        <td>{codeLabel(x.scope)}</td>
                        <td>{fmt.signedUsd(x.amount_usd, x.direction === 'CREDIT')}</td>
                        <td>{fmt.usd(x.balance_after_usd)}</td>
                        <td>{x.description ?? '—'}</td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </div>
            {history.hasNextPage && (
              <button type="button" onClick={() => void history.fetchNextPage()}>
                {t.common.more}
              </button>
            )}
          </>
        )}
      </QueryView>
    </section>
  );
};
