import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import { Link, Route, Switch, useLocation, useParams, useSearch } from 'wouter';
import { client, unwrap, type Ok, type QueryOf } from '../../api/client';
import { fmt, t } from '../../i18n';
import { DataTable, Pager } from '../../ui/DataTable';
import { applyFieldErrors, Input, Select } from '../../ui/forms';
import { ErrorView, Notice, QueryView } from '../../ui/states';
import { ReceiptBody } from './ReceiptBody';

const s = t.settlements;

export default function Settlements() {
  return (
    <Switch>
      <Route path="/" component={Receipts} />
      <Route path="/receipts/:id" component={ReceiptDetail} />
      <Route path="/tray" component={Tray} />
      <Route path="/config" component={Config} />
    </Switch>
  );
}

const SubNav = () => {
  const [location] = useLocation();
  const links: [string, string][] = [
    ['/', s.receipts],
    ['/tray', s.tray],
    ['/config', s.config],
  ];
  return (
    <nav className="tabs" aria-label={t.nav.settlements}>
      {links.map(([href, label]) => (
        <Link key={href} href={href} aria-current={location === href ? 'page' : undefined}>
          {label}
        </Link>
      ))}
    </nav>
  );
};

type ReceiptsQuery = QueryOf<'/admin/settlements/receipts'>;
type ReceiptItem = Ok<'/admin/settlements/receipts', 'get'>['items'][number];
const STATUSES = ['GENERATED', 'IN_PAYMENT', 'PAID', 'FAILED', 'PAID_EXTERNALLY', 'VOIDED'] as const;

const useUrlQuery = () => {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const params = useMemo(() => Object.fromEntries(new URLSearchParams(search)), [search]);
  const set = (next: Record<string, string | undefined>) => {
    const merged = Object.entries({ ...params, ...next }).filter(([, v]) => v) as [string, string][];
    navigate(`${location}?${new URLSearchParams(merged)}`);
  };
  return [params, set, search] as const;
};

const RunPanel = () => {
  const queryClient = useQueryClient();
  const run = useMutation({
    mutationFn: (process: 'cutoff' | 'payout' | 'reconcile') =>
      unwrap(client.POST('/admin/settlements/run', { body: { process } })),
    onSuccess: () => void queryClient.invalidateQueries(),
  });
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    run.mutate(new FormData(e.currentTarget).get('process') as 'cutoff' | 'payout' | 'reconcile');
  };
  return (
    <form className="panel row" onSubmit={onSubmit} aria-label={s.run}>
      <Select label={s.runProcess} name="process" options={Object.entries(s.processes)} />
      <button type="submit" className="primary" disabled={run.isPending}>
        {s.run}
      </button>
      {run.isSuccess && <Notice>{s.ran(run.data.receipts.length)}</Notice>}
      {run.isError && <ErrorView error={run.error} />}
    </form>
  );
};

const Receipts = () => {
  const [params, set, search] = useUrlQuery();
  const query: ReceiptsQuery = {
    limit: 25,
    page: Number(params.page ?? 1),
    status: STATUSES.find((x) => x === params.status),
    driver_id: params.driver_id ? Number(params.driver_id) : undefined,
    fiscal_period: params.fiscal_period || undefined,
    date_from: params.date_from || undefined,
    date_to: params.date_to || undefined,
    q: params.q || undefined,
  };
  const list = useQuery({
    queryKey: ['receipts', query],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(client.GET('/admin/settlements/receipts', { params: { query } })),
  });
  const columns = useMemo<ColumnDef<ReceiptItem, unknown>[]>(
    () => [
      {
        id: 'receipt_number',
        header: s.number,
        cell: ({ row }) => <Link href={`/receipts/${row.original.id}`}>{row.original.receipt_number}</Link>,
      },
      {
        id: 'driver',
        header: s.driver,
        cell: ({ row }) => `${row.original.driver_name ?? '—'} (#${row.original.driver_id})`,
      },
      { id: 'fiscal_period', header: s.period, accessorKey: 'fiscal_period' },
      { id: 'status', header: s.status, accessorKey: 'status' },
      { id: 'payout_method', header: s.method, cell: ({ row }) => row.original.payout_method ?? '—' },
      { id: 'net_usd', header: s.net, cell: ({ row }) => fmt.number(row.original.net_usd) },
      { id: 'payable_usd', header: s.payable, cell: ({ row }) => fmt.number(row.original.payable_usd) },
      { id: 'failure_reason', header: s.failure, cell: ({ row }) => row.original.failure_reason ?? '—' },
      { id: 'issued_at', header: s.issued, cell: ({ row }) => fmt.dateTime(row.original.issued_at) },
    ],
    [],
  );
  const onFilter = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    set({
      page: undefined,
      ...Object.fromEntries(
        ['status', 'driver_id', 'fiscal_period', 'date_from', 'date_to', 'q'].map((k) => [
          k,
          String(f.get(k) ?? '') || undefined,
        ]),
      ),
    });
  };
  return (
    <section>
      <h1>{s.receipts}</h1>
      <SubNav />
      <RunPanel />
      <form className="filters" onSubmit={onFilter} key={search}>
        <Select
          label={s.status}
          name="status"
          defaultValue={params.status ?? ''}
          options={[['', t.common.all], ...STATUSES.map((x) => [x, x] as const)]}
        />
        <Input label={t.fields.driver_id} name="driver_id" type="number" defaultValue={params.driver_id} />
        <Input label={s.period} name="fiscal_period" defaultValue={params.fiscal_period} />
        <Input label={t.fields.date_from} name="date_from" type="date" defaultValue={params.date_from} />
        <Input label={t.fields.date_to} name="date_to" type="date" defaultValue={params.date_to} />
        <Input label={s.q} name="q" defaultValue={params.q} />
        <div className="buttons">
          <button type="submit" className="primary">
            {t.common.filter}
          </button>
        </div>
      </form>
      <QueryView query={list}>
        {(data) => (
          <>
            <DataTable caption={s.receipts} columns={columns} rows={data.items} rowKey={(r) => String(r.id)} />
            <Pager meta={data.meta} onPage={(page) => set({ page: String(page) })} />
          </>
        )}
      </QueryView>
    </section>
  );
};

const ReceiptDetail = () => {
  const id = Number(useParams<{ id: string }>().id);
  const receipt = useQuery({
    queryKey: ['receipt', id],
    queryFn: () => unwrap(client.GET('/admin/settlements/receipts/{id}', { params: { path: { id } } })),
  });
  return (
    <section>
      <h1>{s.detail}</h1>
      <SubNav />
      <p>
        <Link href={`~/console/replay/receipt/${id}`}>{s.replay}</Link>
      </p>
      <QueryView query={receipt}>{(data) => <ReceiptBody receipt={data.receipt} />}</QueryView>
    </section>
  );
};

type TrayItem = Ok<'/admin/settlements/tray', 'get'>['items'][number];
type Action = { kind: 'annul' | 'external'; item: TrayItem };

/** The reason (and, to mark paid externally, the reference) of a tray action, with the API's 422s on their fields. */
const ActionForm = ({ action, onDone }: { action: Action; onDone: (message: string) => void }) => {
  const queryClient = useQueryClient();
  const { register, handleSubmit, setError, formState } = useForm<{ reason: string; reference: string }>();
  const [error, setErr] = useState<unknown>(null);
  const submit = handleSubmit(async ({ reason, reference }) => {
    setErr(null);
    try {
      const path = { id: action.item.id };
      if (action.kind === 'annul')
        await unwrap(client.POST('/admin/settlements/receipts/{id}/annul', { params: { path }, body: { reason } }));
      else
        await unwrap(
          client.POST('/admin/settlements/receipts/{id}/mark-external', {
            params: { path },
            body: { reason, reference },
          }),
        );
      await queryClient.invalidateQueries();
      onDone(action.kind === 'annul' ? s.annulled : s.markedExternal);
    } catch (err) {
      if (!applyFieldErrors(err, setError, ['reason', 'reference'])) setErr(err);
    }
  });
  const title = `${action.kind === 'annul' ? s.annul : s.markExternal}: ${action.item.receipt_number}`;
  return (
    <form className="panel stack" onSubmit={submit} noValidate aria-label={title}>
      <h2>{title}</h2>
      <Input label={t.common.reason} error={formState.errors.reason?.message} {...register('reason')} />
      {action.kind === 'external' && (
        <Input label={t.common.reference} error={formState.errors.reference?.message} {...register('reference')} />
      )}
      {error !== null && <ErrorView error={error} />}
      <div className="buttons">
        <button type="submit" className="primary" disabled={formState.isSubmitting}>
          {t.common.confirm}
        </button>
        <button type="button" onClick={() => onDone('')}>
          {t.common.cancel}
        </button>
      </div>
    </form>
  );
};

const Tray = () => {
  const [params, set] = useUrlQuery();
  const queryClient = useQueryClient();
  const failureKind = (['business', 'deadline'] as const).find((k) => k === params.failure_kind);
  const query = { limit: 25, page: Number(params.page ?? 1), failure_kind: failureKind };
  const tray = useQuery({
    queryKey: ['tray', query],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(client.GET('/admin/settlements/tray', { params: { query } })),
  });
  const [action, setAction] = useState<Action | null>(null);
  const [message, setMessage] = useState('');
  const retry = useMutation({
    mutationFn: (id: number) =>
      unwrap(client.POST('/admin/settlements/receipts/{id}/retry', { params: { path: { id } } })),
    onSuccess: (r) => {
      setMessage(s.retried(r.receipt.status));
      void queryClient.invalidateQueries();
    },
  });
  const columns = useMemo<ColumnDef<TrayItem, unknown>[]>(
    () => [
      {
        id: 'receipt_number',
        header: s.number,
        cell: ({ row }) => <Link href={`/receipts/${row.original.id}`}>{row.original.receipt_number}</Link>,
      },
      {
        id: 'driver',
        header: s.driver,
        cell: ({ row }) => `${row.original.driver_name ?? '—'} (#${row.original.driver_id})`,
      },
      { id: 'payable_usd', header: s.payable, cell: ({ row }) => fmt.number(row.original.payable_usd) },
      { id: 'failure_reason', header: s.failure, cell: ({ row }) => row.original.failure_reason ?? '—' },
      { id: 'failure_kind', header: s.failureKind, cell: ({ row }) => row.original.failure_kind ?? '—' },
      { id: 'provider_code', header: s.providerCode, cell: ({ row }) => row.original.provider_code ?? '—' },
      { id: 'attempts', header: s.attempts, accessorKey: 'attempts' },
      { id: 'failed_at', header: s.failedAt, cell: ({ row }) => fmt.dateTime(row.original.failed_at) },
      {
        id: 'actions',
        header: t.common.actions,
        cell: ({ row }) => (
          <div className="buttons">
            <button
              type="button"
              disabled={row.original.failure_kind === 'deadline' || retry.isPending}
              onClick={() => {
                setMessage('');
                retry.mutate(row.original.id);
              }}
              aria-label={`${s.retry} ${row.original.receipt_number}`}
            >
              {s.retry}
            </button>
            <button
              type="button"
              onClick={() => {
                setMessage('');
                setAction({ kind: 'annul', item: row.original });
              }}
              aria-label={`${s.annul} ${row.original.receipt_number}`}
            >
              {s.annul}
            </button>
            <button
              type="button"
              onClick={() => {
                setMessage('');
                setAction({ kind: 'external', item: row.original });
              }}
              aria-label={`${s.markExternal} ${row.original.receipt_number}`}
            >
              {s.markExternal}
            </button>
          </div>
        ),
      },
    ],
    [retry],
  );
  return (
    <section>
      <h1>{s.tray}</h1>
      <SubNav />
      <div className="row">
        <Select
          label={s.failureKind}
          value={failureKind ?? ''}
          onChange={(e) => set({ failure_kind: e.currentTarget.value || undefined, page: undefined })}
          options={[
            ['', t.common.all],
            ['business', 'business'],
            ['deadline', 'deadline'],
          ]}
        />
      </div>
      {message && <Notice>{message}</Notice>}
      {retry.isError && <ErrorView error={retry.error} />}
      {action && (
        <ActionForm
          key={`${action.kind}-${action.item.id}`}
          action={action}
          onDone={(m) => {
            setAction(null);
            setMessage(m);
          }}
        />
      )}
      <QueryView query={tray}>
        {(data) => (
          <>
            <DataTable caption={s.tray} columns={columns} rows={data.items} rowKey={(r) => String(r.id)} />
            <Pager meta={data.meta} onPage={(page) => set({ page: String(page) })} />
          </>
        )}
      </QueryView>
    </section>
  );
};

type ConfigForm = {
  cutoff_enabled: boolean;
  cutoff_time: string;
  payout_enabled: boolean;
  payout_time: string;
  min_balance: number;
  active_days: boolean[];
  iva_prc: number;
  timezone: string;
};

const Config = () => {
  const config = useQuery({
    queryKey: ['settlement-config'],
    queryFn: () => unwrap(client.GET('/admin/settlements/config')),
  });
  return (
    <section>
      <h1>{s.config}</h1>
      <SubNav />
      <QueryView query={config}>{(data) => <ConfigEditor config={data.config} />}</QueryView>
    </section>
  );
};

const ConfigEditor = ({ config }: { config: Ok<'/admin/settlements/config', 'get'>['config'] }) => {
  const queryClient = useQueryClient();
  const [saved, setSaved] = useState(false);
  const [error, setErr] = useState<unknown>(null);
  const { register, handleSubmit, setError, formState } = useForm<ConfigForm>({
    defaultValues: { ...config, min_balance: config.min_balance_usd },
  });
  const submit = handleSubmit(async (body) => {
    setSaved(false);
    setErr(null);
    try {
      await unwrap(
        client.PATCH('/admin/settlements/config', {
          body: { ...body, min_balance: Number(body.min_balance), iva_prc: Number(body.iva_prc) },
        }),
      );
      await queryClient.invalidateQueries({ queryKey: ['settlement-config'] });
      setSaved(true);
    } catch (err) {
      if (
        !applyFieldErrors(err, setError, [
          'cutoff_time',
          'payout_time',
          'min_balance',
          'iva_prc',
          'timezone',
          'active_days',
        ])
      )
        setErr(err);
    }
  });
  const e = formState.errors;
  return (
    <form className="stack panel" onSubmit={submit} noValidate>
      <p className="muted">{s.configOnlySuper}</p>
      <label>
        <input type="checkbox" {...register('cutoff_enabled')} /> {s.cutoffEnabled}
      </label>
      <Input label={s.cutoffTime} error={e.cutoff_time?.message} {...register('cutoff_time')} />
      <label>
        <input type="checkbox" {...register('payout_enabled')} /> {s.payoutEnabled}
      </label>
      <Input label={s.payoutTime} error={e.payout_time?.message} {...register('payout_time')} />
      <Input
        label={s.minBalance}
        type="number"
        step="0.01"
        error={e.min_balance?.message}
        {...register('min_balance')}
      />
      <fieldset>
        <legend>{s.activeDays}</legend>
        {s.days.map((d, i) => (
          <label key={d} className="badge">
            <input type="checkbox" {...register(`active_days.${i}` as const)} /> {d}
          </label>
        ))}
        {e.active_days?.message && (
          <span className="field-error" role="alert">
            {e.active_days.message}
          </span>
        )}
      </fieldset>
      <Input label={s.iva} type="number" step="0.01" error={e.iva_prc?.message} {...register('iva_prc')} />
      <Input label={s.timezone} error={e.timezone?.message} {...register('timezone')} />
      {saved && <Notice>{s.saved}</Notice>}
      {error !== null && <ErrorView error={error} />}
      <div className="buttons">
        <button type="submit" className="primary" disabled={formState.isSubmitting}>
          {t.common.save}
        </button>
      </div>
    </form>
  );
};
