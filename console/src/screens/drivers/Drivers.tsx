import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { Link, Route, Switch, useParams, useSearch } from 'wouter';
import { client, unwrap, type Ok } from '../../api/client';
import { session } from '../../api/session';
import { fmt, label, t } from '../../i18n';
import { DataTable, Pager } from '../../ui/DataTable';
import { Input, Select } from '../../ui/forms';
import { useDebounced } from '../../ui/useDebounced';
import { KycReview } from './KycReview';
import { WalletAdjustment } from './WalletAdjustment';
import { ReasonForm } from '../../ui/ReasonForm';
import { ErrorView, Notice, QueryView } from '../../ui/states';

const d = t.drivers;
type Driver = Ok<'/admin/drivers', 'get'>['items'][number];
const KYC = ['PENDING_KYC', 'PENDING_REVIEW', 'APPROVED', 'REJECTED'] as const;

export default function Drivers() {
  // The list starts afresh from its address: the menu's plain /drivers drops a filter the home page's
  // link set (?kyc_state=PENDING_REVIEW), which would otherwise hide every other driver from a search.
  const search = useSearch();
  return (
    <Switch>
      <Route path="/">{() => <DriverList key={search} />}</Route>
      <Route path="/:driverId" component={DriverDetail} />
    </Switch>
  );
}

const STATUSES = ['PENDING_VERIFICATION', 'ACTIVE', 'REJECTED', 'SUSPENDED', 'BANNED'] as const;

/** Drivers found as the operator types: name, phone, cédula or plate (the API's `q`). */
const DriverList = () => {
  const search = useSearch();
  // The home page links here with ?kyc_state=PENDING_REVIEW (drivers awaiting KYC review).
  const [kyc, setKyc] = useState<(typeof KYC)[number] | undefined>(() =>
    KYC.find((k) => k === new URLSearchParams(search).get('kyc_state')),
  );
  const [status, setStatus] = useState<(typeof STATUSES)[number] | undefined>();
  const [typed, setTyped] = useState('');
  const q = useDebounced(typed.trim(), 300);
  const [page, setPage] = useState(1);
  const query = { kyc_state: kyc, status, q: q || undefined, page, limit: 25 };
  const list = useQuery({
    queryKey: ['drivers', query],
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(client.GET('/admin/drivers', { params: { query } })),
  });
  const columns = useMemo<ColumnDef<Driver, unknown>[]>(
    () => [
      {
        id: 'id',
        header: t.common.id,
        cell: ({ row }) => <Link href={`/${row.original.id}`}>#{row.original.id}</Link>,
      },
      {
        id: 'name',
        header: d.name,
        cell: ({ row }) => <Link href={`/${row.original.id}`}>{row.original.name ?? '—'}</Link>,
      },
      { id: 'phone', header: d.phone, accessorKey: 'phone' },
      { id: 'status', header: d.status, cell: ({ row }) => label(t.enums.driverStatus, row.original.status) },
      { id: 'kycState', header: d.kyc, cell: ({ row }) => label(t.enums.kycState, row.original.kycState) },
      { id: 'plate', header: d.plate, cell: ({ row }) => row.original.plate ?? '—' },
      { id: 'capacity', header: d.capacity, cell: ({ row }) => fmt.number(row.original.capacityLiters) },
      {
        id: 'rating',
        header: d.rating,
        cell: ({ row }) => (row.original.ratingsCount ? fmt.number(row.original.avgRating) : '—'),
      },
      { id: 'registeredAt', header: d.registered, cell: ({ row }) => fmt.dateTime(row.original.registeredAt) },
    ],
    [],
  );
  return (
    <section>
      <h1>{d.title}</h1>
      <div className="row" role="search">
        <Input
          label={d.search}
          type="search"
          value={typed}
          placeholder={d.searchHint}
          onChange={(e) => {
            setTyped(e.currentTarget.value);
            setPage(1);
          }}
        />
        <Select
          label={d.status}
          value={status ?? ''}
          onChange={(e) => {
            setStatus(STATUSES.find((k) => k === e.currentTarget.value));
            setPage(1);
          }}
          options={[['', t.common.all], ...STATUSES.map((k) => [k, label(t.enums.driverStatus, k)] as const)]}
        />
        <Select
          label={d.kyc}
          value={kyc ?? ''}
          onChange={(e) => {
            setKyc(KYC.find((k) => k === e.currentTarget.value));
            setPage(1);
          }}
          options={[['', t.common.all], ...KYC.map((k) => [k, label(t.enums.kycState, k)] as const)]}
        />
      </div>
      <QueryView query={list}>
        {(data) => (
          <>
            <DataTable caption={d.title} columns={columns} rows={data.items} rowKey={(r) => String(r.id)} />
            <Pager meta={data.meta} onPage={setPage} />
          </>
        )}
      </QueryView>
    </section>
  );
};

const DriverDetail = () => {
  const { driverId } = useParams<{ driverId: string }>();
  const id = Number(driverId);
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState<'reject' | 'suspend' | null>(null);
  const [message, setMessage] = useState('');
  const driver = useQuery({
    queryKey: ['driver', id],
    queryFn: () => unwrap(client.GET('/admin/drivers/{driverId}', { params: { path: { driverId: id } } })),
  });
  const wallet = useQuery({
    queryKey: ['driver-wallet', id],
    queryFn: () => unwrap(client.GET('/admin/drivers/{driverId}/wallet', { params: { path: { driverId: id } } })),
  });
  const ledger = useInfiniteQuery({
    queryKey: ['driver-ledger', id],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        client.GET('/admin/drivers/{driverId}/wallet/transactions', {
          params: { path: { driverId: id }, query: { limit: 25, cursor: pageParam } },
        }),
      ),
    getNextPageParam: (last) => (last.has_more ? (last.next_cursor ?? undefined) : undefined),
  });
  const done = (text: string) => {
    setAsking(null);
    setMessage(text);
    void queryClient.invalidateQueries({ queryKey: ['driver', id] });
    void queryClient.invalidateQueries({ queryKey: ['drivers'] });
  };
  const path = { driverId: id };
  const reinstate = useMutation({
    mutationFn: () => unwrap(client.POST('/admin/drivers/{driverId}/reinstate', { params: { path } })),
    onSuccess: () => done(d.reinstated),
  });
  const reject = async (reason: string) => {
    await unwrap(client.POST('/admin/drivers/{driverId}/reject', { params: { path }, body: { reason } }));
    done(d.rejected);
  };
  const suspend = async (reason: string) => {
    await unwrap(client.POST('/admin/drivers/{driverId}/suspend', { params: { path }, body: { reason } }));
    done(d.suspended);
  };
  const ask = (what: 'reject' | 'suspend') => {
    setMessage('');
    setAsking(what);
  };
  return (
    <section>
      <QueryView query={driver}>
        {({ driver: dr, documents }) => (
          <div className="stack">
            <h1>{dr.name ?? `#${dr.id}`}</h1>
            <dl className="kv panel">
              <dt>{d.phone}</dt>
              <dd>{dr.phone}</dd>
              <dt>{d.status}</dt>
              <dd data-status={dr.status}>{label(t.enums.driverStatus, dr.status)}</dd>
              <dt>{d.kyc}</dt>
              <dd>
                <span className="badge" data-status={dr.kycState}>
                  {label(t.enums.kycState, dr.kycState)}
                </span>
              </dd>
              <dt>{d.plate}</dt>
              <dd>{dr.plate ?? '—'}</dd>
              <dt>{d.capacity}</dt>
              <dd>{fmt.number(dr.capacityLiters)}</dd>
              <dt>{d.rating}</dt>
              <dd>{dr.ratingsCount ? `${fmt.number(dr.avgRating)} (${dr.ratingsCount})` : d.noRatings}</dd>
            </dl>
            {/* Only the actions the driver's status allows (the API answers 409 WrongStatus otherwise). */}
            <div className="buttons">
              {dr.status === 'PENDING_VERIFICATION' && (
                <button type="button" onClick={() => ask('reject')}>
                  {d.reject}
                </button>
              )}
              {dr.status === 'ACTIVE' && (
                <button type="button" onClick={() => ask('suspend')}>
                  {d.suspend}
                </button>
              )}
              {dr.status === 'SUSPENDED' && (
                <button
                  type="button"
                  disabled={reinstate.isPending}
                  onClick={() => {
                    setMessage('');
                    if (window.confirm(d.reinstateConfirm(dr.name ?? `#${dr.id}`))) reinstate.mutate();
                  }}
                >
                  {d.reinstate}
                </button>
              )}
            </div>
            {message && <Notice>{message}</Notice>}
            {reinstate.isError && <ErrorView error={reinstate.error} />}
            {asking === 'reject' && <ReasonForm title={d.reject} onSubmit={reject} onCancel={() => setAsking(null)} />}
            {asking === 'suspend' && (
              <ReasonForm title={d.suspend} onSubmit={suspend} onCancel={() => setAsking(null)} />
            )}
            <KycReview driver={dr} documents={documents} onApproved={() => done(d.approved)} />
          </div>
        )}
      </QueryView>
      <h2>{d.wallet}</h2>
      <p>
        <Link href={`~/console/replay/wallet/${id}`}>{d.walletReplay}</Link>
      </p>
      <QueryView query={wallet}>
        {({ wallet: w }) => (
          <dl className="totals">
            <div>
              <dt>{d.balance}</dt>
              <dd>{fmt.usd(w.balanceUSD)}</dd>
            </div>
            <div>
              <dt>{d.pendingPayout}</dt>
              <dd>{fmt.usd(w.pendingPayoutUSD)}</dd>
            </div>
            <div>
              <dt>{d.withdrawable}</dt>
              <dd>{fmt.usd(w.withdrawableUSD)}</dd>
            </div>
            <div>
              <dt>{d.cashDebt}</dt>
              <dd>{fmt.usd(w.cashDebtUSD)}</dd>
            </div>
          </dl>
        )}
      </QueryView>
      {session.get()?.admin.superAdmin && <WalletAdjustment driverId={id} />}
      <h2>{d.ledger}</h2>
      <QueryView query={ledger}>
        {(data) => (
          <>
            <div className="table-wrap" tabIndex={0} role="region" aria-label={d.ledger}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{d.date}</th>
                    <th scope="col">{d.type}</th>
                    <th scope="col">{d.amount}</th>
                    <th scope="col">{d.balanceAfter}</th>
                    <th scope="col">{d.description}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.pages
                    .flatMap((p) => p.items)
                    .map((e) => (
                      <tr key={e.id}>
                        <td>{fmt.dateTime(e.created_at)}</td>
                        <td>{label(t.enums.ledgerType, e.type)}</td>
                        <td>{fmt.signedUsd(e.amount_usd, e.direction === 'CREDIT')}</td>
                        <td>{fmt.usd(e.balance_after_usd)}</td>
                        <td>{e.description}</td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </div>
            {ledger.hasNextPage && (
              <button type="button" onClick={() => void ledger.fetchNextPage()}>
                {t.common.more}
              </button>
            )}
          </>
        )}
      </QueryView>
    </section>
  );
};
