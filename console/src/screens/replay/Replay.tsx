import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, Route, Switch, useLocation, useParams } from 'wouter';
import { client, unwrap } from '../../api/client';
import { fmt, t } from '../../i18n';
import { ErrorView, QueryView } from '../../ui/states';
import { ReceiptBody } from '../settlements/ReceiptBody';
import { ChainStatus } from './ChainStatus';
import { actorOf, Timeline, type TimelineEvent } from './Timeline';

/** The auditor's replay: read-only, every call here is a GET. */
export default function Replay() {
  return (
    <section>
      <h1>
        {t.replay.title} <span className="badge">{t.replay.readOnly}</span>
      </h1>
      <Switch>
        <Route path="/" component={Chooser} />
        <Route path="/receipt/:id" component={ReceiptReplay} />
        <Route path="/wallet/:driverId" component={WalletReplay} />
        <Route path="/order/:orderId" component={OrderReplay} />
      </Switch>
    </section>
  );
}

const Chooser = () => {
  const [, navigate] = useLocation();
  const go = (kind: string) => (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const id = String(new FormData(e.currentTarget).get('id') ?? '').trim();
    if (id) navigate(`/${kind}/${encodeURIComponent(id)}`);
  };
  const form = (kind: string, title: string, label: string) => (
    <form className="panel row" onSubmit={go(kind)} aria-label={title}>
      <div className="field">
        <label htmlFor={`pick-${kind}`}>{label}</label>
        <input id={`pick-${kind}`} name="id" required />
      </div>
      <button type="submit" className="primary">
        {t.common.open}: {title}
      </button>
    </form>
  );
  return (
    <>
      <p>{t.replay.intro}</p>
      {form('receipt', t.replay.receipt, t.replay.receiptId)}
      {form('wallet', t.replay.wallet, t.replay.driverId)}
      {form('order', t.replay.order, t.replay.orderId)}
    </>
  );
};

/** Starts at the newest event, and follows the list when it grows. */
const useIndex = (length: number) => {
  const [index, setIndex] = useState<number | null>(null);
  useEffect(() => {
    if (index === null && length > 0) setIndex(length - 1);
  }, [length, index]);
  return [Math.min(index ?? length - 1, length - 1), setIndex] as const;
};

const ReceiptReplay = () => {
  const id = Number(useParams<{ id: string }>().id);
  const history = useQuery({
    queryKey: ['receipt-history', id],
    queryFn: () => unwrap(client.GET('/admin/settlements/receipts/{id}/history', { params: { path: { id } } })),
  });
  const events = history.data?.events ?? [];
  const [index, setIndex] = useIndex(events.length);
  const selected = events[index];
  const asOf = selected?.recorded_at;
  const receipt = useQuery({
    queryKey: ['receipt-as-of', id, asOf],
    enabled: asOf !== undefined,
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(client.GET('/admin/settlements/receipts/{id}', { params: { path: { id }, query: { as_of: asOf } } })),
  });
  const timeline: TimelineEvent[] = events.map((e) => ({
    key: String(e.global_position),
    type: e.type,
    at: e.recorded_at,
    actor: actorOf(e.actor),
    correlation: e.correlation_id,
  }));
  return (
    <>
      <h2>
        {t.replay.receipt} {id}
      </h2>
      <p>
        <Link href={`~/console/settlements/receipts/${id}`}>{t.settlements.detail}</Link>
      </p>
      <QueryView query={history}>
        {() => (
          <div className="split">
            <div>
              <h3>{t.replay.timeline}</h3>
              <Timeline events={timeline} index={index} onSelect={setIndex} label={t.replay.timeline} />
            </div>
            <div aria-live="polite">
              <h3>
                {t.replay.asOf} {fmt.dateTime(asOf)}
              </h3>
              <ChainStatus stream={`receipt-${id}`} asOf={asOf} />
              {selected && <EventDetail e={selected} />}
              {receipt.isError ? (
                <ErrorView error={receipt.error} />
              ) : receipt.data ? (
                <ReceiptBody receipt={receipt.data.receipt} />
              ) : (
                <p className="muted">{t.common.loading}</p>
              )}
            </div>
          </div>
        )}
      </QueryView>
    </>
  );
};

const EventDetail = ({
  e,
}: {
  e: {
    type: string;
    recorded_at: string;
    actor: { id: number | string | null; role: string } | null;
    correlation_id: string | null;
    causation_id: string | null;
    data?: unknown;
  };
}) => (
  <details className="panel" open>
    <summary>
      {t.replay.event}: {e.type}
    </summary>
    <dl className="kv">
      <dt>{t.replay.type}</dt>
      <dd>{e.type}</dd>
      <dt>{t.replay.time}</dt>
      <dd>{fmt.dateTime(e.recorded_at)}</dd>
      <dt>{t.replay.actor}</dt>
      <dd>{actorOf(e.actor)}</dd>
      <dt>{t.replay.correlation}</dt>
      <dd>{e.correlation_id ?? '—'}</dd>
    </dl>
    <pre tabIndex={0} aria-label={t.replay.data}>
      {JSON.stringify(e.data, null, 2)}
    </pre>
  </details>
);

const WalletReplay = () => {
  const { driverId } = useParams<{ driverId: string }>();
  const id = Number(driverId);
  const ledger = useInfiniteQuery({
    queryKey: ['wallet-ledger', id],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        client.GET('/admin/drivers/{driverId}/wallet/transactions', {
          params: { path: { driverId: id }, query: { limit: 100, cursor: pageParam } },
        }),
      ),
    getNextPageParam: (last) => (last.has_more ? (last.next_cursor ?? undefined) : undefined),
  });
  // The ledger comes newest first; the timeline reads oldest first.
  const entries = (ledger.data?.pages.flatMap((p) => p.items) ?? []).slice().reverse();
  const [index, setIndex] = useIndex(entries.length);
  const selected = entries[index];
  const asOf = selected?.created_at;
  const wallet = useQuery({
    queryKey: ['wallet-as-of', id, asOf],
    enabled: asOf !== undefined,
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        client.GET('/admin/drivers/{driverId}/wallet', { params: { path: { driverId: id }, query: { as_of: asOf } } }),
      ),
  });
  const timeline: TimelineEvent[] = entries.map((e) => ({
    key: String(e.id),
    type: `${e.type} ${e.direction === 'CREDIT' ? '+' : '−'}${fmt.number(e.amount_usd)}`,
    at: e.created_at,
  }));
  return (
    <>
      <h2>
        {t.replay.wallet} #{id}
      </h2>
      <QueryView query={ledger}>
        {() => (
          <div className="split">
            <div>
              <h3>{t.replay.timeline}</h3>
              <Timeline events={timeline} index={index} onSelect={setIndex} label={t.replay.timeline} />
              {ledger.hasNextPage && (
                <button type="button" onClick={() => void ledger.fetchNextPage()}>
                  {t.common.more}
                </button>
              )}
            </div>
            <div aria-live="polite">
              <h3>
                {t.replay.asOf} {fmt.dateTime(asOf)}
              </h3>
              <ChainStatus stream={`wallet-${id}`} asOf={asOf} />
              {selected && (
                <dl className="kv panel">
                  <dt>{t.replay.ledgerEntry}</dt>
                  <dd>{selected.type}</dd>
                  <dt>{t.drivers.amount}</dt>
                  <dd>
                    {selected.direction === 'CREDIT' ? '+' : '−'}
                    {fmt.number(selected.amount_usd)}
                  </dd>
                  <dt>{t.drivers.description}</dt>
                  <dd>{selected.description}</dd>
                </dl>
              )}
              {wallet.isError ? (
                <ErrorView error={wallet.error} />
              ) : wallet.data ? (
                <dl className="kv panel">
                  <dt>{t.drivers.balance}</dt>
                  <dd>{fmt.number(wallet.data.wallet.balanceUSD)}</dd>
                  <dt>{t.drivers.pendingPayout}</dt>
                  <dd>{fmt.number(wallet.data.wallet.pendingPayoutUSD)}</dd>
                  <dt>{t.drivers.withdrawable}</dt>
                  <dd>{fmt.number(wallet.data.wallet.withdrawableUSD)}</dd>
                  <dt>{t.drivers.cashDebt}</dt>
                  <dd>{fmt.number(wallet.data.wallet.cashDebtUSD)}</dd>
                </dl>
              ) : null}
            </div>
          </div>
        )}
      </QueryView>
    </>
  );
};

const OrderReplay = () => {
  const { orderId } = useParams<{ orderId: string }>();
  const id = Number(orderId);
  const history = useQuery({
    queryKey: ['order-history', id],
    queryFn: () => unwrap(client.GET('/admin/orders/{orderId}/history', { params: { path: { orderId: id } } })),
  });
  const events = history.data?.events ?? [];
  const [index, setIndex] = useIndex(events.length);
  const selected = events[index];
  const timeline: TimelineEvent[] = events.map((e) => ({
    key: String(e.global_position),
    type: e.type,
    at: e.recorded_at,
    actor: actorOf(e.actor),
    correlation: e.correlation_id,
  }));
  return (
    <>
      <h2>
        {t.replay.order} #{id}
      </h2>
      <QueryView query={history}>
        {() => (
          <div className="split">
            <div>
              <h3>{t.replay.timeline}</h3>
              <Timeline events={timeline} index={index} onSelect={setIndex} label={t.replay.timeline} />
            </div>
            <div aria-live="polite">{selected && <EventDetail e={selected} />}</div>
          </div>
        )}
      </QueryView>
    </>
  );
};
