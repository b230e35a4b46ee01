import { Link } from 'wouter';
import { t } from '../i18n';
import { REPORT_KEYS } from './reports/reportKeys';

export const Home = () => (
  <section>
    <h1>{t.app.title}</h1>
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
      <li>
        <Link href="/settlements/config">{t.settlements.config}</Link>
      </li>
      <li>
        <Link href="/replay">{t.replay.title}</Link>
      </li>
    </ul>
  </section>
);
