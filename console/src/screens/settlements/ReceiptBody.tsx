import type { Ok } from '../../api/client';
import { codeLabel, fmt, label, t } from '../../i18n';
import { bankName } from '../../i18n/banks';

export type Receipt = Ok<'/admin/settlements/receipts/{id}', 'get'>['receipt'];

const s = t.settlements;
const cents = (usd: number) => Math.round(usd * 100);
/** What the order total leaves after the commission and before the net: the driver's solidary share. */
const solidaryOf = (total: number, commission: number, net: number) =>
  (cents(total) - cents(commission) - cents(net)) / 100;

/**
 * How the net comes from the orders, on screen: orders total − commission (its base and VAT shown apart)
 * − the driver's solidary contribution, ± the adjustments = net, then in bolivars at each line's rate.
 */
const Figures = ({ r }: { r: Receipt }) => {
  const netOf = (type: 'ORDER' | 'ADJUSTMENT') =>
    r.lines.filter((l) => l.type === type).reduce((sum, l) => sum + cents(l.net_usd), 0) / 100;
  const solidary = solidaryOf(r.orders_total_usd, Math.abs(r.commission_usd), netOf('ORDER'));
  const adjustments = netOf('ADJUSTMENT');
  return (
    <dl className="kv panel" aria-label={s.figures}>
      <dt>{s.subtotal}</dt>
      <dd>{fmt.usd(r.subtotal_usd)}</dd>
      <dt>{s.discount}</dt>
      <dd>{fmt.signedUsd(r.discount_usd, false)}</dd>
      <dt>{s.ordersTotal}</dt>
      <dd>{fmt.usd(r.orders_total_usd)}</dd>
      <dt>{s.commission}</dt>
      <dd>
        {fmt.signedUsd(Math.abs(r.commission_usd), false)}{' '}
        <span className="muted">
          {s.commissionSplit(fmt.usd(r.remuneration_base_usd), fmt.number(r.iva_prc), fmt.usd(r.iva_usd))}
        </span>
      </dd>
      <dt>{s.solidary}</dt>
      <dd>{fmt.signedUsd(solidary, false)}</dd>
      <dt>{s.adjustments}</dt>
      <dd>{fmt.signedUsd(Math.abs(adjustments), adjustments >= 0)}</dd>
      <dt>{s.net}</dt>
      <dd>
        <strong>{fmt.usd(r.net_usd)}</strong>
      </dd>
      <dt>{s.netBs}</dt>
      <dd>{fmt.bs(r.net_bs_cents / 100)}</dd>
    </dl>
  );
};

/** A receipt with its figures, beneficiary, lines, payout orders (and their attempts) and audit trail: read-only. */
export const ReceiptBody = ({ receipt: r }: { receipt: Receipt }) => (
  <div className="stack">
    <dl className="kv panel">
      <dt>{s.number}</dt>
      <dd>{r.receipt_number}</dd>
      <dt>{s.status}</dt>
      <dd>
        <span className="badge" data-status={r.status}>
          {label(t.enums.receiptStatus, r.status)}
        </span>
      </dd>
      <dt>{s.driver}</dt>
      <dd>
        {r.driver_name ?? '—'} (#{r.driver_id})
      </dd>
      <dt>{s.period}</dt>
      <dd>{r.fiscal_period}</dd>
      <dt>{s.beneficiary}</dt>
      <dd>
        {r.beneficiary_name ?? '—'} · {s.idNumber} {r.beneficiary_id_number ?? '—'}
      </dd>
      <dt>{s.method}</dt>
      <dd>
        {label(t.enums.payoutMethod, r.payout_method)} ·{' '}
        {r.beneficiary_bank_code ? bankName(r.beneficiary_bank_code) : '—'}
        {r.beneficiary_account_type ? ` · ${label(t.enums.accountType, r.beneficiary_account_type)}` : ''} ·{' '}
        {r.payout_account ?? '—'}
      </dd>
      <dt>{s.payable}</dt>
      <dd>{fmt.usd(r.payable_usd)}</dd>
      <dt>{s.paidBs}</dt>
      <dd>{fmt.bs(r.total_paid_bs_cents / 100)}</dd>
      <dt>{s.failure}</dt>
      <dd>
        {r.failure_reason ? codeLabel(r.failure_reason) : '—'}
        {r.failure_kind ? ` (${label(t.enums.failureKind, r.failure_kind)})` : ''}
      </dd>
      <dt>{t.common.reference}</dt>
      <dd>{r.bank_reference ?? '—'}</dd>
      <dt>{s.issued}</dt>
      <dd>{fmt.dateTime(r.issued_at)}</dd>
    </dl>
    <Figures r={r} />
    <h4>{s.lines}</h4>
    <div className="table-wrap" tabIndex={0} role="region" aria-label={s.lines}>
      <table>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{s.lineType}</th>
            <th scope="col">{s.description}</th>
            <th scope="col">{s.ordersTotal}</th>
            <th scope="col">{s.commission}</th>
            <th scope="col">{s.solidary}</th>
            <th scope="col">{s.net}</th>
            <th scope="col">{s.rate}</th>
            <th scope="col">{s.totalBs}</th>
          </tr>
        </thead>
        <tbody>
          {r.lines.map((l) => (
            <tr key={l.id}>
              <td>{l.line_number}</td>
              <td>{label(s.lineTypes, l.type)}</td>
              <td>{l.description}</td>
              <td>{l.type === 'ORDER' ? fmt.usd(l.order_total_usd) : '—'}</td>
              <td>{l.type === 'ORDER' ? fmt.signedUsd(Math.abs(l.commission_usd), false) : '—'}</td>
              <td>
                {l.type === 'ORDER'
                  ? fmt.signedUsd(solidaryOf(l.order_total_usd, Math.abs(l.commission_usd), l.net_usd), false)
                  : '—'}
              </td>
              <td>{fmt.usd(l.net_usd)}</td>
              <td>{fmt.bs(Number(l.exchange_rate_amount))}</td>
              <td>{fmt.bs(l.total_bs_cents / 100)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    <h4>{s.payoutOrders}</h4>
    {r.payout_orders.length === 0 ? (
      <p className="muted">{t.common.empty}</p>
    ) : (
      r.payout_orders.map((o) => (
        <div key={o.id} className="panel">
          <dl className="kv">
            <dt>{t.common.id}</dt>
            <dd>{o.id}</dd>
            <dt>{s.status}</dt>
            <dd>
              <span className="badge">{label(s.payoutStatus, o.status)}</span>
            </dd>
            <dt>{s.amountBs}</dt>
            <dd>{fmt.bs(o.amount_bs_cents / 100)}</dd>
            <dt>{t.common.reference}</dt>
            <dd>{o.reference ?? '—'}</dd>
            <dt>{s.attempts}</dt>
            <dd>
              {o.attempt_count}
              {o.last_error ? ` · ${codeLabel(o.last_error)}` : ''}
            </dd>
          </dl>
          <ul>
            {o.attempts.map((a) => (
              <li key={a.attempt_no}>
                {s.attempt(a.attempt_no)} · {label(s.payoutStatus, a.result)} ·{' '}
                {a.provider_code ? codeLabel(a.provider_code) : '—'} · {fmt.dateTime(a.created_at)}
              </li>
            ))}
          </ul>
        </div>
      ))
    )}
    <h4>{s.changes}</h4>
    {r.receipt_changes.length === 0 ? (
      <p className="muted">{t.common.empty}</p>
    ) : (
      <ul>
        {r.receipt_changes.map((c, i) => (
          <li key={i}>
            {fmt.dateTime(c.created_at)} · {label(s.changeActions, c.action)} ·{' '}
            {label(t.enums.receiptStatus, c.from_status)} → {label(t.enums.receiptStatus, c.to_status)} ·{' '}
            {c.admin_name ?? `#${c.admin_id}`}
            {c.reason ? ` · ${c.reason}` : ''}
          </li>
        ))}
      </ul>
    )}
  </div>
);
