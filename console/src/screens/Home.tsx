import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { client, unwrap } from '../api/client';
import { useAuditor } from '../api/session';
import { t } from '../i18n';
import { REPORT_KEYS } from './reports/reportKeys';

const h = t.home;

/** One thing waiting for the back office: how many, and the link to where it is handled. */
const Attention = ({
  id,
  title,
  href,
  count,
}: {
  id: string;
  title: (one: boolean) => string;
  href: string;
  count: { data?: string; isError: boolean; isPending: boolean };
}) => (
  <li data-attention={id}>
    <Link href={href}>
      <strong className="count">{count.isPending ? '…' : count.isError ? '—' : count.data}</strong>{' '}
      {title(count.data === '1')}
    </Link>
  </li>
);

const total = (r: { meta: { total: number } }) => String(r.meta.total);

/** The home page: what needs attention now (oldest work first), then the reports and settlements. */
export const Home = () => {
  // An auditor reads neither the support inbox nor the drivers' review, nor the settlement configuration.
  const auditor = useAuditor();
  const payments = useQuery({
    queryKey: ['home', 'payments'],
    queryFn: () => unwrap(client.GET('/admin/payments/pending', { params: { query: { limit: 1 } } })).then(total),
    refetchInterval: 30_000,
  });
  const tray = useQuery({
    queryKey: ['home', 'tray'],
    queryFn: () => unwrap(client.GET('/admin/settlements/tray', { params: { query: { limit: 1 } } })).then(total),
    refetchInterval: 30_000,
  });
  const support = useQuery({
    queryKey: ['home', 'support'],
    queryFn: () =>
      unwrap(client.GET('/admin/order-support', { params: { query: { bucket: 'pool', limit: 100 } } })).then((r) =>
        r.has_more ? `${r.items.length}+` : String(r.items.length),
      ),
    refetchInterval: 30_000,
    enabled: !auditor,
  });
  const kyc = useQuery({
    queryKey: ['home', 'kyc'],
    queryFn: () =>
      unwrap(client.GET('/admin/drivers', { params: { query: { kyc_state: 'PENDING_REVIEW', limit: 1 } } })).then(
        total,
      ),
    refetchInterval: 30_000,
    enabled: !auditor,
  });
  return (
    <section>
      <h1>{t.app.title}</h1>
      <h2>{h.attention}</h2>
      <ul className="cards attention">
        <Attention id="payments" title={h.payments} href="/payments" count={payments} />
        <Attention id="tray" title={h.tray} href="/settlements/tray" count={tray} />
        {!auditor && <Attention id="support" title={h.support} href="/support" count={support} />}
        {!auditor && <Attention id="kyc" title={h.kyc} href="/drivers?kyc_state=PENDING_REVIEW" count={kyc} />}
      </ul>
      <h2>{t.reports.title}</h2>
      <ul className="cards">
        {REPORT_KEYS.map((key) => (
          <li key={key}>
            <Link href={`/reports/${key}`}>{t.reports.names[key]}</Link>
          </li>
        ))}
      </ul>
      <h2>{t.nav.settlements}</h2>
      <ul className="cards">
        <li>
          <Link href="/settlements">{t.settlements.receipts}</Link>
        </li>
        <li>
          <Link href="/settlements/tray">{t.settlements.tray}</Link>
        </li>
        {!auditor && (
          <li>
            <Link href="/settlements/config">{t.settlements.config}</Link>
          </li>
        )}
        <li>
          <Link href="/replay">{t.replay.title}</Link>
        </li>
      </ul>
    </section>
  );
};
