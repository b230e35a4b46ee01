import type { TestResponse, TestService } from './testService.js';
import { signInClient, signInDriver, type DriverOptions, type SignedInDriver, type SignedInUser } from './actors.js';

/** Fixtures for the order API tests: a point in Caracas, a valid order body, and the steps of the flow. */
export const CARACAS = { latitude: 10.4806, longitude: -66.9036 };

/** ~1.1 km north of CARACAS per 0.01 degree of latitude. */
export const near = (dLat: number, dLng = 0) => ({
  latitude: CARACAS.latitude + dLat,
  longitude: CARACAS.longitude + dLng,
});

export const orderBody = (over: Record<string, unknown> = {}) => ({
  latitude: CARACAS.latitude,
  longitude: CARACAS.longitude,
  address: 'Av. Urdaneta, Edificio Sur, Caracas',
  litersRequested: 2000,
  basePrice: 25,
  ...over,
});

/** Paths under /api/v1; `headers` for what a route reads beyond the token (an idempotency key, a signature, a client's IP). */
export const call = (t: TestService) => {
  const req =
    (method: string) =>
    (path: string, token?: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse> =>
      t.request(method, `/api/v1${path}`, { token, body, headers });
  return { get: req('GET'), post: req('POST'), patch: req('PATCH'), put: req('PUT'), del: req('DELETE') };
};

const must = (what: string, r: TestResponse, status: number) => {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

/** An online driver next to CARACAS with water in the tank. */
export const onlineDriver = (t: TestService, opts: DriverOptions = {}): Promise<SignedInDriver> =>
  signInDriver(t, { liters: 8000, online: true, lat: CARACAS.latitude + 0.01, lng: CARACAS.longitude, ...opts });

export interface Flow {
  client: SignedInUser;
  driver: SignedInDriver;
  orderId: number;
  offerId: number;
  pin: string;
}

/** A client's order accepted by a driver (CONFIRMED for cash), ready to start. */
export const confirmedOrder = async (
  t: TestService,
  opts: { client?: SignedInUser; driver?: SignedInDriver; body?: Record<string, unknown>; driverGross?: number } = {},
): Promise<Flow> => {
  const api = call(t);
  const client = opts.client ?? (await signInClient(t));
  const driver = opts.driver ?? (await onlineDriver(t));
  const created = must('POST /orders', await api.post('/orders', client.token, orderBody(opts.body)), 201);
  const orderId: number = created.order.id;
  const bid =
    opts.driverGross === undefined
      ? await api.post(`/orders/${orderId}/accept`, driver.token, {})
      : await api.post(`/orders/${orderId}/counter-offer`, driver.token, { driverGross: opts.driverGross });
  const offerId: number = must('bid', bid, 201).offer.id;
  const accepted = must('accept offer', await api.post(`/orders/offers/${offerId}/accept`, client.token), 200);
  return { client, driver, orderId, offerId, pin: accepted.order.delivery_pin };
};

/** start → location at the door → arrived. */
export const arrive = async (t: TestService, f: Flow) => {
  const api = call(t);
  must('start', await api.post(`/orders/${f.orderId}/start`, f.driver.token), 200);
  must('arrived', await api.post(`/orders/${f.orderId}/arrived`, f.driver.token, { ...near(0.001) }), 200);
};

/** start → arrived → delivered with the order's PIN: the driver's whole trip of a confirmed order. */
export const deliverOrder = async (t: TestService, f: Flow, actualLiters = 2000) => {
  await arrive(t, f);
  must(
    'deliver',
    await call(t).post(`/orders/${f.orderId}/deliver`, f.driver.token, { actualLiters, deliveryPin: f.pin }),
    200,
  );
};
