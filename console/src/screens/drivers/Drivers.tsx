import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { Link, Route, Switch, useParams } from 'wouter';
import { client, unwrap, type Ok } from '../../api/client';
import { fmt, t } from '../../i18n';
import { DataTable, Pager } from '../../ui/DataTable';
import { Select } from '../../ui/forms';
import { ReasonForm } from '../../ui/ReasonForm';
import { ErrorView, Notice, QueryView } from '../../ui/states';

const d = t.drivers;
type Driver = Ok<'/admin/drivers', 'get'>['items'][number];
const KYC = ['PENDING_KYC', 'PENDING_REVIEW', 'APPROVED', 'REJECTED'] as const;

export default function Drivers() {
  return (
    <Switch>
      <Route path="/" component={DriverList} />
      <Route path="/:driverId" component={DriverDetail} />
    </Switch>
  );
}

const DriverList = () => {
  const [kyc, setKyc] = useState<(typeof KYC)[number] | undefined>();
  const [page, setPage] = useState(1);
  const query = { kyc_state: kyc, page, limit: 25 };
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
      { id: 'name', header: d.name, cell: ({ row }) => row.original.name ?? '—' },
      { id: 'phone', header: d.phone, accessorKey: 'phone' },
      { id: 'status', header: d.status, accessorKey: 'status' },
      { id: 'kycState', header: d.kyc, accessorKey: 'kycState' },
      { id: 'plate', header: d.plate, cell: ({ row }) => row.original.plate ?? '—' },
      { id: 'capacity', header: d.capacity, cell: ({ row }) => fmt.number(row.original.capacityLiters) },
      { id: 'rating', header: d.rating, cell: ({ row }) => fmt.number(row.original.avgRating) },
      { id: 'registeredAt', header: d.registered, cell: ({ row }) => fmt.dateTime(row.original.registeredAt) },
    ],
    [],
  );
  return (
    <section>
      <h1>{d.title}</h1>
      <div className="row">
        <Select
          label={d.kyc}
          value={kyc ?? ''}
          onChange={(e) => {
            setKyc(KYC.find((k) => k === e.currentTarget.value));
            setPage(1);
          }}
          options={[['', t.common.all], ...KYC.map((k) => [k, k] as const)]}
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
  const [rejecting, setRejecting] = useState(false);
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
  const approve = useMutation({
    mutationFn: () => unwrap(client.POST('/admin/drivers/{driverId}/approve', { params: { path: { driverId: id } } })),
    onSuccess: () => {
      setMessage(d.approved);
      void queryClient.invalidateQueries({ queryKey: ['driver', id] });
    },
  });
  const reject = async (reason: string) => {
    await unwrap(
      client.POST('/admin/drivers/{driverId}/reject', { params: { path: { driverId: id } }, body: { reason } }),
    );
    setRejecting(false);
    setMessage(d.rejected);
    await queryClient.invalidateQueries({ queryKey: ['driver', id] });
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
              <dd>{dr.status}</dd>
              <dt>{d.kyc}</dt>
              <dd>
                <span className="badge">{dr.kycState}</span>
              </dd>
              <dt>{d.plate}</dt>
              <dd>{dr.plate ?? '—'}</dd>
              <dt>{d.capacity}</dt>
              <dd>{fmt.number(dr.capacityLiters)}</dd>
              <dt>{d.rating}</dt>
              <dd>
                {fmt.number(dr.avgRating)} ({dr.ratingsCount})
              </dd>
            </dl>
            <div className="buttons">
              <button
                type="button"
                className="primary"
                disabled={dr.kycState === 'APPROVED' || approve.isPending}
                onClick={() => {
                  setMessage('');
                  approve.mutate();
                }}
              >
                {d.approve}
              </button>
              <button
                type="button"
                disabled={dr.kycState === 'REJECTED'}
                onClick={() => {
                  setMessage('');
                  setRejecting(true);
                }}
              >
                {d.reject}
              </button>
            </div>
            {message && <Notice>{message}</Notice>}
            {approve.isError && <ErrorView error={approve.error} />}
            {rejecting && <ReasonForm title={d.reject} onSubmit={reject} onCancel={() => setRejecting(false)} />}
            <h2>{d.documents}</h2>
            <ul>
              {documents.map((doc) => (
                <li key={doc.type}>
                  {doc.label} · {fmt.dateTime(doc.expiresAt)}
                </li>
              ))}
              {documents.length === 0 && <li className="muted">{t.common.empty}</li>}
            </ul>
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
              <dd>{fmt.number(w.balanceUSD)}</dd>
            </div>
            <div>
              <dt>{d.pendingPayout}</dt>
              <dd>{fmt.number(w.pendingPayoutUSD)}</dd>
            </div>
            <div>
              <dt>{d.withdrawable}</dt>
              <dd>{fmt.number(w.withdrawableUSD)}</dd>
            </div>
            <div>
              <dt>{d.cashDebt}</dt>
              <dd>{fmt.number(w.cashDebtUSD)}</dd>
            </div>
          </dl>
        )}
      </QueryView>
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
                        <td>{e.type}</td>
                        <td>
                          {e.direction === 'CREDIT' ? '+' : '−'}
                          {fmt.number(e.amount_usd)}
                        </td>
                        <td>{fmt.number(e.balance_after_usd)}</td>
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
