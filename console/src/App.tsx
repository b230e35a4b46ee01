import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect } from 'react';
import { Link, Route, Router, Switch, useLocation } from 'wouter';
import { client } from './api/client';
import { session, useAuditor, useSession } from './api/session';
import { t } from './i18n';
import { SignIn } from './screens/SignIn';
import { Home } from './screens/Home';

// Each area is its own chunk: the first load is the shell and the sign-in.
const Reports = lazy(() => import('./screens/reports/ReportScreen'));
const Replay = lazy(() => import('./screens/replay/Replay'));
const Settlements = lazy(() => import('./screens/settlements/Settlements'));
const Payments = lazy(() => import('./screens/payments/PaymentReview'));
const Support = lazy(() => import('./screens/support/Support'));
const Drivers = lazy(() => import('./screens/drivers/Drivers'));
const Customers = lazy(() => import('./screens/customers/Customers'));
const ExchangeRates = lazy(() => import('./screens/rates/ExchangeRates'));
// Stations and promotion campaigns (issue 31).
const Stations = lazy(() => import('./screens/stations/Stations'));
const Promotions = lazy(() => import('./screens/promotions/Promotions'));
// Payment forms and admin users (issue 31).
const PaymentForms = lazy(() => import('./screens/paymentForms/PaymentForms'));
const Admins = lazy(() => import('./screens/admins/Admins'));

const NAV: [string, string][] = [
  ['/', t.nav.home],
  ['/reports/orders', t.nav.reports],
  ['/replay', t.nav.replay],
  ['/settlements', t.nav.settlements],
  ['/settlements/tray', t.nav.tray],
  ['/payments', t.nav.payments],
  ['/support', t.nav.support],
  ['/drivers', t.nav.drivers],
  ['/customers', t.nav.customers],
  ['/exchange-rates', t.nav.rates],
  ['/stations', t.nav.stations],
  ['/promotions', t.nav.promotions],
  // Payment forms and admin users (issue 31).
  ['/payment-forms', t.nav.paymentForms],
  ['/admins', t.nav.admins],
];

/** The screens an auditor reads (the others are refused to it by the API). */
const AUDITOR_SCREENS = new Set(['/', '/reports/orders', '/replay', '/settlements', '/settlements/tray', '/payments']);

const NavLink = ({ href, label }: { href: string; label: string }) => {
  const [location] = useLocation();
  const current =
    href === '/'
      ? location === '/'
      : location === href ||
        (location.startsWith(`${href}/`) &&
          !NAV.some(([h]) => h !== href && h.startsWith(href) && location.startsWith(h)));
  return (
    <Link href={href} aria-current={current ? 'page' : undefined}>
      {label}
    </Link>
  );
};

const Shell = () => {
  const s = useSession()!;
  const auditor = useAuditor();
  const nav = auditor ? NAV.filter(([href]) => AUDITOR_SCREENS.has(href)) : NAV;
  const queryClient = useQueryClient();
  const [location] = useLocation();
  useEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [location]);
  const signOut = async () => {
    await client.POST('/admin/auth/logout').catch(() => undefined);
    session.signOut();
    queryClient.clear();
  };
  return (
    <div className="shell">
      <a className="skip" href="#main">
        {t.app.skip}
      </a>
      <header className="top">
        <span className="brand">{t.app.title}</span>
        <span className="who">
          {t.signIn.signedInAs} {s.admin.name}
          {s.admin.superAdmin ? ` (${t.signIn.superAdmin})` : auditor ? ` (${t.signIn.auditor})` : ''}
        </span>
        <button type="button" onClick={() => void signOut()}>
          {t.nav.signOut}
        </button>
      </header>
      <nav className="side" aria-label={t.app.menu}>
        {nav.map(([href, label]) => (
          <NavLink key={href} href={href} label={label} />
        ))}
      </nav>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p className="muted">{t.common.loading}</p>}>
          <Switch>
            <Route path="/" component={Home} />
            <Route path="/reports/:report" component={Reports} />
            <Route path="/replay" nest component={Replay} />
            <Route path="/settlements" nest component={Settlements} />
            <Route path="/payments" nest component={Payments} />
            {/* An auditor's console has none of these: its address shows the not-found notice. */}
            {!auditor && (
              <>
                <Route path="/support" nest component={Support} />
                <Route path="/drivers" nest component={Drivers} />
                <Route path="/customers" nest component={Customers} />
                <Route path="/exchange-rates" component={ExchangeRates} />
                <Route path="/stations" nest component={Stations} />
                <Route path="/promotions" nest component={Promotions} />
                {/* Payment forms and admin users (issue 31). */}
                <Route path="/payment-forms" component={PaymentForms} />
                <Route path="/admins" component={Admins} />
              </>
            )}
            <Route>
              <p role="alert" className="notice error">
                {t.errors.notFound}
              </p>
            </Route>
          </Switch>
        </Suspense>
      </main>
    </div>
  );
};

/** Signed out: the sign-in page, whatever the address; signed in: the console at that address. */
export const App = () => {
  const s = useSession();
  return <Router base="/console">{s ? <Shell /> : <SignIn />}</Router>;
};
