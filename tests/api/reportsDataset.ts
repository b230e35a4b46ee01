import { expect } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import {
  signInAdmin,
  signInClient,
  signInDriver,
  type SignedInAdmin,
  type SignedInDriver,
  type SignedInUser,
} from '../support/actors.js';
import { CARACAS, call, near, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * The reports tests' dataset, built through the API: delivered cash and online orders, a counter-offer,
 * a failed then confirmed payment, cancellations by client, driver and admin, an expiry with an offer,
 * incidents, ratings, two cities, an earlier order in the previous period, and driver documents that are
 * valid, expiring, expired and missing.
 */
export const MARACAIBO = { latitude: 10.6427, longitude: -71.6125 };
const MINUTE = 60_000;
/** The password tests/support/actors.ts gives invited admins. */
const ADMIN_PASSWORD = 'admin-password-123';
const PAYER = { bank_code: '0102', id_number: 'V12345678', phone: '04141234567', name: 'Diego Pagador' };

export interface Dataset {
  t: TestService;
  clock: ManualClock;
  api: ReturnType<typeof call>;
  root: SignedInAdmin;
  caracasAdmin: SignedInAdmin;
  maracaiboAdmin: SignedInAdmin;
  drivers: { ana: SignedInDriver; bruno: SignedInDriver; mario: SignedInDriver; pendiente: SignedInDriver };
  clients: { carla: SignedInUser; diego: SignedInUser; marta: SignedInUser };
  /** o0 in the previous period; o1 … o7 in the default window (see build). */
  orders: Record<'o0' | 'o1' | 'o2' | 'o3' | 'o4' | 'o5' | 'o6' | 'o7', number>;
}

const must = (what: string, r: { status: number; body: any }, ...ok: number[]) => {
  if (!ok.includes(r.status)) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

export const buildDataset = async (): Promise<Dataset> => {
  const clock = new ManualClock('2026-02-01T15:00:00Z');
  const t = await startTestService({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
  const api = call(t);
  const tick = () => t.service.ctx.scheduler.tick();
  const step = (minutes: number) => clock.advance(minutes * MINUTE);

  const invited = {
    caracas: await signInAdmin(t, { superAdmin: false, cityIds: [1] }),
    maracaibo: await signInAdmin(t, { superAdmin: false, cityIds: [2] }),
  };
  const ana = await onlineDriver(t, { name: 'Ana Conductora' });
  const bruno = await onlineDriver(t, { name: 'Bruno Conductor' });
  const mario = await onlineDriver(t, {
    name: 'Mario Zuliano',
    cityId: 2,
    lat: MARACAIBO.latitude + 0.01,
    lng: MARACAIBO.longitude,
  });
  const pendiente = await signInDriver(t, { name: 'Pedro Pendiente', approved: false });
  const carla = await signInClient(t, undefined, 'Carla Cliente');
  const diego = await signInClient(t, undefined, 'Diego Cliente');
  const marta = await signInClient(t, undefined, 'Marta Maracucha');
  must('doc', await api.post('/driver/documents', ana.token, { type: 'RCV', expiresAt: '2026-03-01' }), 201);

  const create = async (client: SignedInUser, body: Record<string, unknown>) =>
    must('POST /orders', await api.post('/orders', client.token, orderBody(body)), 201).order.id as number;
  const bid = async (driver: SignedInDriver, orderId: number, driverGross?: number) =>
    must(
      'bid',
      driverGross === undefined
        ? await api.post(`/orders/${orderId}/accept`, driver.token, {})
        : await api.post(`/orders/${orderId}/counter-offer`, driver.token, { driverGross }),
      201,
    ).offer.id as number;
  const acceptOffer = async (client: SignedInUser, offerId: number) =>
    must('accept offer', await api.post(`/orders/offers/${offerId}/accept`, client.token), 200).order;
  const deliver = async (
    driver: SignedInDriver,
    orderId: number,
    pin: string,
    actualLiters: number,
    at = near(0.001),
  ) => {
    must('start', await api.post(`/orders/${orderId}/start`, driver.token), 200);
    step(15);
    must('arrived', await api.post(`/orders/${orderId}/arrived`, driver.token, at), 200);
    step(5);
    must(
      'deliver',
      await api.post(`/orders/${orderId}/deliver`, driver.token, { actualLiters, deliveryPin: pin }),
      200,
    );
  };

  // o0: the previous period (2026-02-01), delivered by Ana.
  const o0 = await create(diego, { basePrice: 50, litersRequested: 4000 });
  step(2);
  let order = await acceptOffer(diego, await bid(ana, o0));
  await deliver(ana, o0, order.delivery_pin, 4000);

  // 2026-03-10 in Caracas.
  clock.set('2026-03-10T15:00:00Z');
  // o3: Carla cancels while it is being broadcast.
  const o3 = await create(carla, { basePrice: 10, litersRequested: 1000 });
  step(5);
  must(
    'cancel o3',
    await api.post(`/orders/${o3}/cancel`, carla.token, {
      reason_code: 'CLIENT_CHANGED_MIND',
      reason: 'Ya no la necesito',
    }),
    200,
  );
  step(10);
  // o1: cash, accepted at the published price after 3 minutes, 1800 of 2000 liters, rated 5, one incident.
  const o1 = await create(carla, { basePrice: 25, litersRequested: 2000 });
  step(3);
  order = await acceptOffer(carla, await bid(ana, o1));
  step(10);
  await deliver(ana, o1, order.delivery_pin, 1800);
  must('rate o1', await api.post(`/orders/${o1}/rating`, carla.token, { score: 5 }), 201);
  must(
    'incident o1',
    await api.post(`/orders/${o1}/incidents`, carla.token, { type: 'ACCESO_BLOQUEADO', description: 'Portón cerrado' }),
    201,
  );
  // o2: online, counter-offer (driver gross 40), a failed payment then a confirmed one, rated 4.
  const o2 = await create(diego, { basePrice: 30, litersRequested: 3000, paymentMethod: 'PAYPROV_DI' });
  step(2);
  await acceptOffer(diego, await bid(bruno, o2, 40));
  must('prepare', await api.post(`/orders/${o2}/payment/prepare`, diego.token, PAYER), 200);
  must('bad otp', await api.post(`/orders/${o2}/payment/report`, diego.token, { ...PAYER, otp: '000000' }), 400);
  must('prepare again', await api.post(`/orders/${o2}/payment/prepare`, diego.token, PAYER), 200);
  must('good otp', await api.post(`/orders/${o2}/payment/report`, diego.token, { ...PAYER, otp: '123456' }), 200);
  order = must('GET o2', await api.get(`/orders/${o2}`, diego.token), 200).order;
  step(10);
  await deliver(bruno, o2, order.delivery_pin, 3000);
  must('rate o2', await api.post(`/orders/${o2}/rating`, diego.token, { score: 4 }), 201);
  // o4: Ana takes it and cancels it once confirmed.
  const o4 = await create(diego, { basePrice: 20, litersRequested: 1500 });
  step(1);
  await acceptOffer(diego, await bid(ana, o4));
  step(4);
  must('cancel o4', await api.post(`/orders/${o4}/cancel`, ana.token, { reason_code: 'DRIVER_VEHICLE_ISSUE' }), 200);

  // 2026-03-11: Maracaibo.
  clock.set('2026-03-11T14:00:00Z');
  const root = await signInAdmin(t);
  const o5 = await create(marta, { basePrice: 15, litersRequested: 1000, ...MARACAIBO });
  step(6);
  order = await acceptOffer(marta, await bid(mario, o5));
  await deliver(mario, o5, order.delivery_pin, 1000, {
    latitude: MARACAIBO.latitude + 0.001,
    longitude: MARACAIBO.longitude,
  });
  const o6 = await create(marta, { basePrice: 12, litersRequested: 800, ...MARACAIBO });
  step(2);
  must('cancel o6', await api.post(`/orders/${o6}/cancel`, root.token, { reason_code: 'ADMIN_TEST' }), 200);
  // o7: Bruno counter-offers, nobody accepts, the order expires.
  const o7 = await create(carla, { basePrice: 8, litersRequested: 500, ...CARACAS });
  step(1);
  await bid(bruno, o7, 9);
  step(31);
  await tick();

  // Documents: Ana's medical certificate expires in 9 days (recorded now), her RCV expired 10 days ago.
  must('doc', await api.post('/driver/documents', ana.token, { type: 'MEDICAL_CERT', expiresAt: '2026-03-20' }), 201);

  must(
    'suspend',
    await api.post(`/admin/drivers/${mario.driverId}/suspend`, root.token, { reason: 'Documentos en revisión' }),
    200,
  );

  // Invited at the start (the bootstrap token is then fresh); signed in again now that the clock moved on.
  const relogin = async (a: SignedInAdmin): Promise<SignedInAdmin> => ({
    admin: a.admin,
    token: must(
      'login',
      await t.request('POST', '/api/v1/admin/auth/login', { body: { email: a.admin.email, password: ADMIN_PASSWORD } }),
      200,
    ).access_token,
  });
  const caracasAdmin = await relogin(invited.caracas);
  const maracaiboAdmin = await relogin(invited.maracaibo);
  return {
    t,
    clock,
    api,
    root: await signInAdmin(t),
    caracasAdmin,
    maracaiboAdmin,
    drivers: { ana, bruno, mario, pendiente },
    clients: { carla, diego, marta },
    orders: { o0, o1, o2, o3, o4, o5, o6, o7 },
  };
};

/** Every reaction run (the wallet's entries follow deliveries from the scheduler), then every read model caught up. */
export const settled = async (d: Dataset): Promise<void> => {
  await d.t.service.ctx.scheduler.tick();
  await d.t.service.ctx.settle(await d.t.service.ctx.store.headPosition());
  // Commands do not wait for the reports' read model; the tests that read its tables directly do.
  await d.t.service.ctx.caughtUp('reports');
};

/** Null sorts lowest; equal values may come in any order. */
export const expectSorted = (items: Record<string, unknown>[], key: string, direction: 'asc' | 'desc') => {
  const cmp = (a: unknown, b: unknown) => {
    if (a === b) return 0;
    if (a === null || a === undefined) return -1;
    if (b === null || b === undefined) return 1;
    return (a as number | string) < (b as number | string) ? -1 : 1;
  };
  for (let i = 1; i < items.length; i++) {
    const c = cmp(items[i - 1][key], items[i][key]);
    expect(
      direction === 'asc' ? c <= 0 : c >= 0,
      `${key} ${direction}: ${JSON.stringify(items.map((x) => x[key]))}`,
    ).toBe(true);
  }
};
