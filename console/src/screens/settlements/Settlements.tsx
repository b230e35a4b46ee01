import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import { Link, Route, Switch, useLocation, useParams } from 'wouter';
import { client, unwrap, type Ok, type QueryOf } from '../../api/client';
import { session, useAuditor } from '../../api/session';
import { codeLabel, fmt, label, t } from '../../i18n';
import { amountOf, amountRule } from '../../ui/amount';
import { DataTable, Pager } from '../../ui/DataTable';
import { applyFieldErrors, Input, Select } from '../../ui/forms';
import { Picker } from '../../ui/Picker';
import { useUrlQuery } from '../../ui/useUrlQuery';
import { ErrorView, Notice, QueryView } from '../../ui/states';
import { ReceiptBody } from './ReceiptBody';
import { TrayAction, type TrayActionKind, type TrayItem } from './TrayAction';

const s = t.settlements;

// An auditor reads the receipts and the tray; it neither runs a process, acts on the tray nor sees the configuration.
export default function Settlements() {
  const auditor = useAuditor();
  return (
    <Switch>
      <Route path="/" component={Receipts} />
      <Route path="/receipts/:id" component={ReceiptDetail} />
      <Route path="/tray" component={Tray} />
      {!auditor && <Route path="/config" component={Config} />}
    </Switch>
  );
}

const SubNav = () => {
  const [location] = useLocation();
  const auditor = useAuditor();
  const links: [string, string][] = [
    ['/', s.receipts],
    ['/tray', s.tray],
    ...(auditor ? [] : [['/config', s.config] as [string, string]]),
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

type Process = 'cutoff' | 'payout' | 'reconcile';

/** What a payout run would pay now: the GENERATED receipts and their total (first 100 summed). */
const PendingPayout = () => {
  const pending = useQuery({
    queryKey: ['receipts', 'GENERATED-to-pay'],
    queryFn: () =>
      unwrap(client.GET('/admin/settlements/receipts', { params: { query: { status: 'GENERATED', limit: 100 } } })),
  });
  return (
    <QueryView query={pending}>
      {(data) => (
        <p data-field="pending">
          {s.runPending(data.meta.total, fmt.usd(data.items.reduce((sum, r) => sum + r.payable_usd, 0)))}
        </p>
      )}
    </QueryView>
  );
};

/** Runs a settlement process now, after a second look at what it will do (a payout sends money). */
const RunPanel = () => {
  const queryClient = useQueryClient();
  const [asked, setAsked] = useState<Process | null>(null);
  const run = useMutation({
    mutationFn: (process: Process) => unwrap(client.POST('/admin/settlements/run', { body: { process } })),
    onSuccess: () => {
      setAsked(null);
      void queryClient.invalidateQueries();
    },
  });
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    run.reset();
    setAsked(new FormData(e.currentTarget).get('process') as Process);
  };
  return (
    <div className="stack">
      <form className="panel row" onSubmit={onSubmit} aria-label={s.run}>
        <Select label={s.runProcess} name="process" options={Object.entries(s.processes)} />
        <button type="submit" className="primary" disabled={run.isPending || asked !== null}>
          {s.run}
        </button>
        {run.isSuccess && <Notice>{s.ran(run.data.receipts.length)}</Notice>}
        {run.isError && <ErrorView error={run.error} />}
      </form>
      {asked && (
        <div className="panel stack" role="alertdialog" aria-label={s.runConfirm(s.processes[asked])}>
          <h2>{s.runConfirm(s.processes[asked])}</h2>
          {asked === 'payout' ? <PendingPayout /> : <p>{asked === 'cutoff' ? s.runCutoffNote : s.runReconcileNote}</p>}
          <div className="buttons">
            <button type="button" className="primary" disabled={run.isPending} onClick={() => run.mutate(asked)}>
              {t.common.confirm}
            </button>
            <button type="button" onClick={() => setAsked(null)}>
              {t.common.cancel}
            </button>
          </div>
        </div>
      )}
    </div>
  );
};

const Receipts = () => {
  const auditor = useAuditor();
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
      { id: 'status', header: s.status, cell: ({ row }) => label(t.enums.receiptStatus, row.original.status) },
      {
        id: 'payout_method',
        header: s.method,
        cell: ({ row }) => label(t.enums.payoutMethod, row.original.payout_method),
      },
      { id: 'net_usd', header: s.net, cell: ({ row }) => fmt.usd(row.original.net_usd) },
      { id: 'payable_usd', header: s.payable, cell: ({ row }) => fmt.usd(row.original.payable_usd) },
      {
        id: 'failure_reason',
        header: s.failure,
        cell: ({ row }) => (row.original.failure_reason ? codeLabel(row.original.failure_reason) : '—'),
      },
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
      {!auditor && <RunPanel />}
      <form className="filters" onSubmit={onFilter} key={search}>
        <Select
          label={s.status}
          name="status"
          defaultValue={params.status ?? ''}
          options={[['', t.common.all], ...STATUSES.map((x) => [x, label(t.enums.receiptStatus, x)] as const)]}
        />
        <Picker kind="driver" name="driver_id" label={s.driver} defaultValue={params.driver_id} />
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

type Action = { kind: TrayActionKind; item: TrayItem };

const Tray = () => {
  const auditor = useAuditor();
  const [params, set] = useUrlQuery();
  const failureKind = (['business', 'deadline'] as const).find((k) => k === params.failure_kind);
  const query = { limit: 25, page: Number(params.page ?? 1), failure_kind: failureKind };
  const tray = useQuery({
    queryKey: ['tray', query],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(client.GET('/admin/settlements/tray', { params: { query } })),
  });
  const [action, setAction] = useState<Action | null>(null);
  const [message, setMessage] = useState('');
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
      { id: 'payable_usd', header: s.payable, cell: ({ row }) => fmt.usd(row.original.payable_usd) },
      {
        id: 'failure_reason',
        header: s.failure,
        cell: ({ row }) => (row.original.failure_reason ? codeLabel(row.original.failure_reason) : '—'),
      },
      {
        id: 'failure_kind',
        header: s.failureKind,
        cell: ({ row }) => label(t.enums.failureKind, row.original.failure_kind),
      },
      {
        id: 'provider_code',
        header: s.providerCode,
        cell: ({ row }) => (row.original.provider_code ? codeLabel(row.original.provider_code) : '—'),
      },
      { id: 'attempts', header: s.attempts, accessorKey: 'attempts' },
      { id: 'failed_at', header: s.failedAt, cell: ({ row }) => fmt.dateTime(row.original.failed_at) },
      {
        id: 'actions',
        header: t.common.actions,
        cell: ({ row }) => (
          <div className="buttons">
            <button
              type="button"
              disabled={row.original.failure_kind === 'deadline'}
              onClick={() => {
                setMessage('');
                setAction({ kind: 'retry', item: row.original });
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
    [],
  );
  // An auditor is shown no action: each one writes.
  const shown = useMemo(() => (auditor ? columns.filter((c) => c.id !== 'actions') : columns), [auditor, columns]);
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
            ['business', t.enums.failureKind.business],
            ['deadline', t.enums.failureKind.deadline],
          ]}
        />
      </div>
      {message && <Notice>{message}</Notice>}
      {action && (
        <TrayAction
          key={`${action.kind}-${action.item.id}`}
          kind={action.kind}
          item={action.item}
          onDone={(m) => {
            setAction(null);
            setMessage(m);
          }}
        />
      )}
      <QueryView query={tray}>
        {(data) => (
          <>
            <DataTable caption={s.tray} columns={shown} rows={data.items} rowKey={(r) => String(r.id)} />
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
  min_balance: string;
  active_days: boolean[];
  iva_prc: string;
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
    defaultValues: {
      cutoff_enabled: config.cutoff_enabled,
      cutoff_time: config.cutoff_time,
      payout_enabled: config.payout_enabled,
      payout_time: config.payout_time,
      min_balance: fmt.typed(config.min_balance_usd),
      active_days: config.active_days,
      iva_prc: fmt.typed(config.iva_prc),
      timezone: config.timezone,
    },
  });
  const submit = handleSubmit(async (body) => {
    setSaved(false);
    setErr(null);
    try {
      await unwrap(
        client.PATCH('/admin/settlements/config', {
          // Only the patch's own keys: the view's min_balance_usd/_cents are read-only names (a 422 if sent).
          body: {
            cutoff_enabled: body.cutoff_enabled,
            cutoff_time: body.cutoff_time,
            payout_enabled: body.payout_enabled,
            payout_time: body.payout_time,
            min_balance: amountOf(body.min_balance, 2),
            active_days: body.active_days,
            iva_prc: amountOf(body.iva_prc, 2),
            timezone: body.timezone,
          },
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
      <p className="muted">{session.get()?.admin.superAdmin ? s.configAppliesNext : s.configOnlySuper}</p>
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
        inputMode="decimal"
        autoComplete="off"
        error={e.min_balance?.message}
        {...register('min_balance', { validate: amountRule(2) })}
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
      <Input
        label={s.iva}
        inputMode="decimal"
        autoComplete="off"
        error={e.iva_prc?.message}
        {...register('iva_prc', { validate: amountRule(2) })}
      />
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
