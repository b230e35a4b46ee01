import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { client, unwrap, type Ok } from '../../api/client';
import { session } from '../../api/session';
import { fmt, t } from '../../i18n';
import { amountOf, amountRule } from '../../ui/amount';
import { ConfirmPanel } from '../../ui/ConfirmPanel';
import { DataTable, Pager } from '../../ui/DataTable';
import { applyFieldErrors, Input } from '../../ui/forms';
import { ErrorView, Notice, QueryView } from '../../ui/states';

const r = t.rates;
type Rate = Ok<'/admin/exchange-rates', 'get'>['items'][number];

const columns: ColumnDef<Rate, unknown>[] = [
  { id: 'effective_at', header: r.effectiveAt, cell: ({ row }) => fmt.dateTime(row.original.effective_at) },
  { id: 'rate', header: r.rate, cell: ({ row }) => fmt.bs(row.original.rate) },
];

/**
 * A new official rate (super admins): it prices every order from now on, so the form shows the rate
 * as it will read and asks to confirm it.
 */
const NewRate = () => {
  const queryClient = useQueryClient();
  const [review, setReview] = useState<number | null>(null);
  const [message, setMessage] = useState('');
  const [error, setErr] = useState<unknown>(null);
  const { register, handleSubmit, setError, formState, reset } = useForm<{ rate: string }>();
  const check = handleSubmit(({ rate }) => {
    setMessage('');
    setReview(amountOf(rate, 8));
  });
  const send = async () => {
    if (review === null) return;
    setErr(null);
    try {
      await unwrap(client.POST('/admin/exchange-rates', { body: { currency: 'VES', rate: review } }));
      setReview(null);
      reset();
      setMessage(r.saved);
      await queryClient.invalidateQueries({ queryKey: ['exchange-rates'] });
    } catch (err) {
      setReview(null);
      if (!applyFieldErrors(err, setError, ['rate'])) setErr(err);
    }
  };
  return (
    <form className="panel stack" onSubmit={check} noValidate aria-label={r.new}>
      <h2>{r.new}</h2>
      <Input
        label={r.rateInput}
        inputMode="decimal"
        autoComplete="off"
        error={formState.errors.rate?.message}
        {...register('rate', {
          validate: amountRule(8, { min: 0.01, max: Number.MAX_SAFE_INTEGER, message: r.rateRange }),
        })}
      />
      {review !== null ? (
        <ConfirmPanel
          title={r.confirmTitle}
          message={r.confirm(fmt.bs(review))}
          onConfirm={() => void send()}
          onCancel={() => setReview(null)}
        />
      ) : (
        <div className="buttons">
          <button type="submit" className="primary">
            {r.new}
          </button>
        </div>
      )}
      {message && <Notice>{message}</Notice>}
      {error !== null && <ErrorView error={error} />}
    </form>
  );
};

/** The official VES rate series, newest first, and a new rate for super admins. */
export default function ExchangeRates() {
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['exchange-rates', page],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(client.GET('/admin/exchange-rates', { params: { query: { page, limit: 25 } } })),
  });
  return (
    <section>
      <h1>{r.title}</h1>
      {session.get()?.admin.superAdmin && <NewRate />}
      <QueryView query={list}>
        {(data) => (
          <>
            <DataTable caption={r.title} columns={columns} rows={data.items} rowKey={(x) => String(x.id)} />
            <Pager meta={data.meta} onPage={setPage} />
          </>
        )}
      </QueryView>
    </section>
  );
}
