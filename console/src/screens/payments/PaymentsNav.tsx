import { Link, useLocation } from 'wouter';
import { t } from '../../i18n';

const LINKS: [string, string][] = [
  ['/', t.payments.pending],
  ['/reviewed', t.payments.reviewedTab],
];

/** The payments awaiting review and those already reviewed, one click apart. */
export const PaymentsNav = () => {
  const [location] = useLocation();
  return (
    <nav className="tabs" aria-label={t.nav.payments}>
      {LINKS.map(([href, text]) => (
        <Link key={href} href={href} aria-current={location === href ? 'page' : undefined}>
          {text}
        </Link>
      ))}
    </nav>
  );
};
