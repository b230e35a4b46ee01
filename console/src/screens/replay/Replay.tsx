import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Fragment, type FormEvent } from 'react';
import { Link, Route, Switch, useLocation, useParams } from 'wouter';
import { client, unwrap, type Ok } from '../../api/client';
import { codeLabel, fmt, label, t } from '../../i18n';
import { ErrorView, QueryView } from '../../ui/states';
import { ReceiptBody } from '../settlements/ReceiptBody';
import { InstantForm, useReplayInstant } from './instant';
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
      {form('receipt', t.replay.receipt, t.replay.receiptNumber)}
      {form('wallet', t.replay.wallet, t.replay.driverId)}
      {form('order', t.replay.order, t.replay.orderId)}
    </>
  );
};

/** A receipt's record id from the address: the id itself, or its number (2026-11-000001) looked up. */
const useReceiptId = (param: string) => {
  const byNumber = !/^\d+$/.test(param);
  const found = useQuery({
    queryKey: ['receipt-by-number', param],
    enabled: byNumber,
    queryFn: () => unwrap(client.GET('/admin/settlements/receipts', { params: { query: { q: param, limit: 5 } } })),
  });
  if (!byNumber) return { id: Number(param), missing: false };
  const match = found.data?.items.find((r) => r.receipt_number === param);
  return { id: match ? Number(match.id) : undefined, missing: found.isSuccess && !match };
};

const ReceiptReplay = () => {
  const param = decodeURIComponent(useParams<{ id: string }>().id);
  const { id, missing } = useReceiptId(param);
  if (missing) return <p role="alert">{t.replay.receiptNotFound}</p>;
  if (id === undefined) return <p className="muted">{t.common.loading}</p>;
  return <ReceiptReplayOf id={id} />;
};

const ReceiptReplayOf = ({ id }: { id: number }) => {
  const history = useQuery({
    queryKey: ['receipt-history', id],
    queryFn: () => unwrap(client.GET('/admin/settlements/receipts/{id}/history', { params: { path: { id } } })),
  });
  const events = history.data?.events ?? [];
  const { index, asOf, select, at } = useReplayInstant(events);
  const selected = events[index];
  const receipt = useQuery({
    queryKey: ['receipt-as-of', id, asOf],
    enabled: asOf !== undefined && index >= 0,
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(client.GET('/admin/settlements/receipts/{id}', { params: { path: { id }, query: { as_of: asOf } } })),
  });
  const timeline: TimelineEvent[] = events.map((e) => ({
    key: String(e.global_position),
    type: eventName(e.type),
    at: e.recorded_at,
    actor: actorOf(e.actor),
    correlation: e.correlation_id,
  }));
  return (
    <>
      <h2>
        {t.replay.receipt} {receipt.data?.receipt.receipt_number ?? id}
      </h2>
      <p>
        <Link href={`~/console/settlements/receipts/${id}`}>{t.settlements.detail}</Link>
      </p>
      <QueryView query={history}>
        {() => (
          <div className="split">
            <div>
              <h3>{t.replay.timeline}</h3>
              <InstantForm asOf={asOf} onInstant={at} />
              <Timeline events={timeline} index={index} onSelect={select} label={t.replay.timeline} />
            </div>
            <div aria-live="polite">
              <h3>
                {t.replay.asOf} {fmt.dateTime(asOf)}
              </h3>
              <ChainStatus stream={`receipt-${id}`} asOf={asOf} />
              {selected ? <EventDetail e={selected} /> : <p className="muted">{t.replay.beforeFirst}</p>}
              {index < 0 ? null : receipt.isError ? (
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

/** An event's name in the auditor's words; a newer event shows as recorded. */
const eventName = (type: string) => t.replay.events[type] ?? type;

/** A value of an event's data as read: cents as money, codes by their labels, instants as dates. */
const dataValue = (key: string, v: unknown): string => {
  if (typeof v === 'number' && /BsCents$/.test(key)) return fmt.bs(v / 100);
  if (typeof v === 'number' && /Cents$/.test(key)) return fmt.usd(v / 100);
  if (typeof v === 'string' && !/^\d{4}-\d{2}-\d{2}T/.test(v) && !/Number$|reference|Id$/.test(key))
    return codeLabel(v);
  return fmt.cell(v);
};

/**
 * The data an event recorded: the fields an auditor reads, labelled, with amounts in dollars or
 * bolivars; the record as stored (JSON, amounts in cents) stays one click away.
 */
const EventData = ({ data }: { data: unknown }) => {
  const fields = Object.entries((data ?? {}) as Record<string, unknown>).filter(
    ([k, v]) => t.replay.dataKeys[k] && (v === null || typeof v !== 'object'),
  );
  return (
    <>
      {fields.length > 0 && (
        <dl className="kv" aria-label={t.replay.data}>
          {fields.map(([k, v]) => (
            <Fragment key={k}>
              <dt>{t.replay.dataKeys[k]}</dt>
              <dd>{dataValue(k, v)}</dd>
            </Fragment>
          ))}
        </dl>
      )}
      <details>
        <summary>{t.replay.stored}</summary>
        <pre tabIndex={0} aria-label={t.replay.stored}>
          {JSON.stringify(data, null, 2)}
        </pre>
      </details>
    </>
  );
};

const EventDetail = ({
  e,
  title,
}: {
  title?: string;
  e: {
    type: string;
    recorded_at: string;
    actor: { id: number | string | null; role: string; name?: string | null } | null;
    correlation_id: string | null;
    causation_id: string | null;
    data?: unknown;
  };
}) => (
  <details className="panel" open>
    <summary>
      {t.replay.event}: {title ?? eventName(e.type)}
    </summary>
    <dl className="kv">
      <dt>{t.replay.type}</dt>
      <dd>{eventName(e.type)}</dd>
      <dt>{t.replay.time}</dt>
      <dd>{fmt.dateTime(e.recorded_at)}</dd>
      <dt>{t.replay.actor}</dt>
      <dd data-field="actor">{actorOf(e.actor)}</dd>
      <dt>{t.replay.correlation}</dt>
      <dd>
        <code className="hash">{e.correlation_id ?? '—'}</code>
      </dd>
    </dl>
    <EventData data={e.data} />
  </details>
);

type WalletStep = Ok<'/admin/drivers/{driverId}/wallet/history', 'get'>['events'][number];

/** What a wallet step did, in the auditor's words: a movement with its signed amount, or a reservation. */
const walletStepLabel = (e: WalletStep, numbers: Map<number, string>): string => {
  const d = e.data as Record<string, unknown>;
  if (e.reservation === 'RESERVED') {
    const totals = d.totals as { payableCents: number } | undefined;
    return t.replay.walletSteps.RESERVED(String(d.receiptNumber), fmt.usd((totals?.payableCents ?? 0) / 100));
  }
  if (e.reservation === 'RELEASED') return t.replay.walletSteps.RELEASED(numbers.get(e.receipt_id ?? 0) ?? '—');
  if (e.type === 'LedgerEntryRecorded')
    return `${label(t.enums.ledgerType, String(d.type))} ${fmt.signedUsd(Number(d.amountCents) / 100, d.direction === 'CREDIT')}`;
  return eventName(e.type);
};

/**
 * The driver's wallet as the API's as_of shows it after each step: every step asks for the step's own
 * recorded_at (the instant whose as_of includes it), reservations of the driver's receipts included.
 */
const WalletReplay = () => {
  const { driverId } = useParams<{ driverId: string }>();
  const id = Number(driverId);
  const history = useQuery({
    queryKey: ['wallet-history', id],
    queryFn: () =>
      unwrap(client.GET('/admin/drivers/{driverId}/wallet/history', { params: { path: { driverId: id } } })),
  });
  const events = history.data?.events ?? [];
  const { index, asOf, select, at } = useReplayInstant(events);
  const selected = events[index];
  const wallet = useQuery({
    queryKey: ['wallet-as-of', id, asOf],
    enabled: asOf !== undefined,
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        client.GET('/admin/drivers/{driverId}/wallet', { params: { path: { driverId: id }, query: { as_of: asOf } } }),
      ),
  });
  const numbers = new Map(
    events
      .filter((e) => e.reservation === 'RESERVED')
      .map((e) => [e.receipt_id ?? 0, String((e.data as { receiptNumber?: string }).receiptNumber)]),
  );
  const timeline: TimelineEvent[] = events.map((e) => ({
    key: `${e.global_position}`,
    type: walletStepLabel(e, numbers),
    at: e.recorded_at,
    actor: actorOf(e.actor),
  }));
  const w = wallet.data?.wallet;
  return (
    <>
      <h2>
        {t.replay.wallet} #{id}
      </h2>
      <p>
        <Link href={`~/console/drivers/${id}`}>{t.drivers.title}</Link>
      </p>
      <QueryView query={history}>
        {() => (
          <div className="split">
            <div>
              <h3>{t.replay.timeline}</h3>
              <InstantForm asOf={asOf} onInstant={at} />
              <Timeline events={timeline} index={index} onSelect={select} label={t.replay.timeline} />
            </div>
            <div aria-live="polite">
              <h3>
                {t.replay.asOf} {fmt.dateTime(asOf)}
              </h3>
              <ChainStatus stream={`wallet-${id}`} asOf={asOf} />
              {selected ? (
                <EventDetail e={selected} title={walletStepLabel(selected, numbers)} />
              ) : (
                <p className="muted">{t.replay.beforeFirst}</p>
              )}
              {wallet.isError ? (
                <ErrorView error={wallet.error} />
              ) : w ? (
                <dl className="kv panel" aria-label={t.drivers.wallet}>
                  <dt>{t.drivers.balance}</dt>
                  <dd data-field="balanceUSD">{fmt.usd(w.balanceUSD)}</dd>
                  <dt>{t.drivers.pendingPayout}</dt>
                  <dd data-field="pendingPayoutUSD">{fmt.usd(w.pendingPayoutUSD)}</dd>
                  <dt>{t.drivers.withdrawable}</dt>
                  <dd data-field="withdrawableUSD">{fmt.usd(w.withdrawableUSD)}</dd>
                  <dt>{t.drivers.cashDebt}</dt>
                  <dd data-field="cashDebtUSD">{fmt.usd(w.cashDebtUSD)}</dd>
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
  const { index, select } = useReplayInstant(events);
  const selected = events[index];
  const timeline: TimelineEvent[] = events.map((e) => ({
    key: String(e.global_position),
    type: eventName(e.type),
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
              <Timeline events={timeline} index={index} onSelect={select} label={t.replay.timeline} />
            </div>
            <div aria-live="polite">{selected && <EventDetail e={selected} />}</div>
          </div>
        )}
      </QueryView>
    </>
  );
};
