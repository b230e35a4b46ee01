import type { Ok } from '../../api/client';
import { fmt, label, t } from '../../i18n';

export type Receipt = Ok<'/admin/settlements/receipts/{id}', 'get'>['receipt'];

const s = t.settlements;

/** A receipt with its lines, payout orders (and their attempts) and audit trail: read-only. */
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
      <dt>{s.method}</dt>
      <dd>{label(t.enums.payoutMethod, r.payout_method)}</dd>
      <dt>{s.net}</dt>
      <dd>{fmt.usd(r.net_usd)}</dd>
      <dt>{s.payable}</dt>
      <dd>{fmt.usd(r.payable_usd)}</dd>
      <dt>{s.paidBs}</dt>
      <dd>{fmt.bs(r.total_paid_bs_cents / 100)}</dd>
      <dt>{s.failure}</dt>
      <dd>
        {r.failure_reason ?? '—'}
        {r.failure_kind ? ` (${label(t.enums.failureKind, r.failure_kind)})` : ''}
      </dd>
      <dt>{t.common.reference}</dt>
      <dd>{r.bank_reference ?? '—'}</dd>
      <dt>{s.issued}</dt>
      <dd>{fmt.dateTime(r.issued_at)}</dd>
    </dl>
    <h4>{s.lines}</h4>
    <div className="table-wrap" tabIndex={0} role="region" aria-label={s.lines}>
      <table>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{s.lineType}</th>
            <th scope="col">{t.fields.id}</th>
            <th scope="col">{s.description}</th>
            <th scope="col">{s.subtotal}</th>
            <th scope="col">{s.commission}</th>
            <th scope="col">{s.net}</th>
            <th scope="col">{s.totalBs}</th>
          </tr>
        </thead>
        <tbody>
          {r.lines.map((l) => (
            <tr key={l.id}>
              <td>{l.line_number}</td>
              <td>{l.type}</td>
              <td>{l.order_id ?? '—'}</td>
              <td>{l.description}</td>
              <td>{fmt.usd(l.subtotal_usd)}</td>
              <td>{fmt.usd(l.commission_usd)}</td>
              <td>{fmt.usd(l.net_usd)}</td>
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
              <span className="badge">{o.status}</span>
            </dd>
            <dt>{s.amountBs}</dt>
            <dd>{fmt.bs(o.amount_bs_cents / 100)}</dd>
            <dt>{t.common.reference}</dt>
            <dd>{o.reference ?? '—'}</dd>
            <dt>{s.attempts}</dt>
            <dd>
              {o.attempt_count}
              {o.last_error ? ` · ${o.last_error}` : ''}
            </dd>
          </dl>
          <ul>
            {o.attempts.map((a) => (
              <li key={a.attempt_no}>
                #{a.attempt_no} · {a.result} · {a.provider_code ?? '—'} · {fmt.dateTime(a.created_at)}
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
            {fmt.dateTime(c.created_at)} · {c.action} · {c.from_status} → {c.to_status} · {c.admin_name ?? c.admin_id} ·{' '}
            {c.reason ?? ''}
          </li>
        ))}
      </ul>
    )}
  </div>
);
