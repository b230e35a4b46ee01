import { CITY_CENTRES } from '../infra/cities/cityCentres.js';

/** One HTTP call to the rehearsal's app: status and parsed JSON body. */
export type RehearsalCall = (
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  // The answers are the routes' own documented ones, read a field or two at a time.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
) => Promise<{ status: number; body: any }>;

export interface RehearsalActors {
  /** The code the rehearsal's SMS simulator sent to `phone`. */
  codeSentTo(phone: string): Promise<string>;
  /** The rehearsal's own super admin (made by its bootstrap, in its private tables). */
  admin: { email: string; password: string };
}

const CITY_ID = 1;
const FLOWS_PER_DRIVER = 10;
const CENTRE = CITY_CENTRES[CITY_ID];

/**
 * The order flow a mobile app drives (create → bid → accept → start → arrived → deliver), `flows` times, by
 * one client and approved drivers made the way the apps and the back office make them: the same routes,
 * validators, deciders, inline read models and answers that real traffic meets first. `stop` ends it
 * between two calls. Any answer but the expected one ends the rehearsal with an error naming the call.
 */
export const rehearseOrderFlows = async (
  call: RehearsalCall,
  actors: RehearsalActors,
  flows: number,
  stop: AbortSignal,
): Promise<number> => {
  const must = async (status: number, method: string, path: string, token?: string, body?: unknown) => {
    if (stop.aborted) throw new Error('stopped');
    const r = await call(method, `/api/v1${path}`, token, body);
    if (r.status !== status) throw new Error(`${method} ${path} answered ${r.status} (${r.body?.error ?? 'no error'})`);
    return r.body;
  };
  const signIn = async (phone: string, app: 'client' | 'driver', name: string): Promise<string> => {
    await must(200, 'POST', '/auth/otp/request', undefined, { phone });
    const code = await actors.codeSentTo(phone);
    const { token } = await must(200, 'POST', '/auth/otp/verify', undefined, { phone, code, app });
    await must(200, 'PATCH', '/me', token, { name });
    return token;
  };

  const adminToken = (await must(200, 'POST', '/admin/auth/login', undefined, actors.admin)).access_token;
  const approvedDriver = async (n: number): Promise<string> => {
    const driver = await signIn(`+58412${String(n).padStart(7, '0')}`, 'driver', 'Conductor de ensayo');
    const driverId: number = (await must(200, 'GET', '/me', driver)).user.driver.id;
    const plate = `ENS${String(n).padStart(4, '0')}`;
    await must(200, 'PUT', '/driver/profile', driver, { plate, capacityLiters: 10_000, cityId: CITY_ID });
    for (const type of ['ID_FRONT', 'LICENSE'])
      await must(201, 'POST', '/driver/documents', driver, { type, expiresAt: '2099-12-31' });
    await must(200, 'POST', `/admin/drivers/${driverId}/approve`, adminToken);
    await must(200, 'PATCH', '/driver/tank', driver, { availableLiters: 10_000 });
    await must(200, 'POST', '/driver/online', driver, { online: true, ...CENTRE });
    return driver;
  };
  // A database with no rate yet (a new production one) gets one in the rehearsal's copy only: orders are
  // priced with it.
  const rates = await must(200, 'GET', '/admin/exchange-rates?limit=1', adminToken);
  if (rates.items.length === 0)
    await must(201, 'POST', '/admin/exchange-rates', adminToken, { currency: 'VES', rate: 36.5 });
  const client = await signIn('+584129999999', 'client', 'Cliente de ensayo');

  let driver = '';
  let done = 0;
  for (; done < flows; done++) {
    // A cash delivery leaves the driver owing its commission: a driver stops before the cash-debt cap.
    if (done % FLOWS_PER_DRIVER === 0) driver = await approvedDriver(done / FLOWS_PER_DRIVER);
    const { order } = await must(201, 'POST', '/orders', client, {
      ...CENTRE,
      address: 'Ensayo de arranque',
      litersRequested: 40,
      basePrice: 25,
    });
    const { offer } = await must(201, 'POST', `/orders/${order.id}/counter-offer`, driver, { driverGross: 23.5 });
    const accepted = await must(200, 'POST', `/orders/offers/${offer.id}/accept`, client);
    await must(200, 'POST', `/orders/${order.id}/start`, driver);
    await must(200, 'POST', `/orders/${order.id}/arrived`, driver, CENTRE);
    await must(200, 'POST', `/orders/${order.id}/deliver`, driver, {
      actualLiters: 40,
      deliveryPin: accepted.order.delivery_pin,
    });
  }
  return done;
};
