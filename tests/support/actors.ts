import { randomInt } from 'node:crypto';
import { TEST_SUPER_ADMIN, type TestService } from './testService.js';

/**
 * Signed-in actors for API tests, made only through HTTP (OTP codes come from the non-production OTP
 * response, mail tokens from /dev/outbox), so that every test exercises the real sign-in paths.
 */

let phoneCounter = 0;
/** A phone no other test of this process uses: +58 then 10 digits. */
export const uniquePhone = (): string =>
  `+584${String(randomInt(0, 100_000)).padStart(5, '0')}${String(++phoneCounter % 10_000).padStart(4, '0')}`;

const expectStatus = (what: string, r: { status: number; body: unknown }, ...ok: number[]) => {
  if (!ok.includes(r.status)) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
};

export interface SignedInUser {
  token: string;
  user: { id: number; name: string | null; phone: string; [k: string]: unknown };
}

const otpSignIn = async (t: TestService, phone: string, app: 'client' | 'driver') => {
  const req = await t.request('POST', '/api/v1/auth/otp/request', { body: { phone } });
  expectStatus('POST /auth/otp/request', req, 200);
  const verify = await t.request('POST', '/api/v1/auth/otp/verify', { body: { phone, code: req.body.code, app } });
  expectStatus('POST /auth/otp/verify', verify, 200);
  return verify.body as { token: string; isNew: boolean; user: SignedInUser['user'] };
};

/** A CLIENT with a name (so needsUserData is false on the next sign-in). */
export const signInClient = async (
  t: TestService,
  phone: string = uniquePhone(),
  name = 'Cliente de prueba',
): Promise<SignedInUser> => {
  const { token } = await otpSignIn(t, phone, 'client');
  const me = await t.request('PATCH', '/api/v1/me', { token, body: { name } });
  expectStatus('PATCH /me', me, 200);
  return { token, user: me.body.user };
};

const rootTokens = new WeakMap<TestService, Promise<string>>();

/**
 * One sign-in of the bootstrap admin per service, shared by concurrent callers: the admin sign-in limits
 * count logins in flight, as a password guesser's would be.
 */
const rootToken = (t: TestService, fresh = false): Promise<string> => {
  const cached = rootTokens.get(t);
  if (cached && !fresh) return cached;
  const signIn = t.request('POST', '/api/v1/admin/auth/login', { body: TEST_SUPER_ADMIN }).then((r) => {
    expectStatus('POST /admin/auth/login (bootstrap super admin)', r, 200);
    return r.body.access_token as string;
  });
  rootTokens.set(t, signIn);
  signIn.catch(() => rootTokens.delete(t));
  return signIn;
};

export interface SignedInAdmin {
  token: string;
  admin: { id: number; email: string; superAdmin: boolean; cityIds: number[]; [k: string]: unknown };
}

let adminCounter = 0;

/**
 * The bootstrap super admin (default), or a new admin invited by it (an auditor with `auditor`), confirmed
 * through the mailed token and signed in. `cityIds` defaults to [1] (Caracas) for a plain admin.
 */
export const signInAdmin = async (
  t: TestService,
  opts: { superAdmin?: boolean; auditor?: boolean; cityIds?: number[]; allCities?: boolean } = {},
): Promise<SignedInAdmin> => {
  const superAdmin = opts.superAdmin ?? !opts.auditor;
  if (superAdmin && opts.cityIds === undefined && opts.allCities === undefined) {
    const login = await t.request('POST', '/api/v1/admin/auth/login', { body: TEST_SUPER_ADMIN });
    expectStatus('POST /admin/auth/login', login, 200);
    return { token: login.body.access_token, admin: login.body.user };
  }
  const email = `admin${++adminCounter}.${randomInt(0, 1e9)}@test.local`;
  const password = 'admin-password-123';
  const created = await t.request('POST', '/api/v1/admin/admins', {
    token: await rootToken(t),
    body: {
      email,
      name: `Admin ${adminCounter}`,
      superAdmin,
      ...(opts.auditor ? { auditor: true } : {}),
      cityIds: opts.cityIds ?? [1],
      ...(opts.allCities !== undefined ? { allCities: opts.allCities } : {}),
    },
  });
  expectStatus('POST /admin/admins', created, 201);
  const outbox = await t.request('GET', `/api/v1/dev/outbox?to=${encodeURIComponent(email)}`);
  const invite = (outbox.body.messages as { data: { purpose: string; token: string } | null }[]).find(
    (m) => m.data?.purpose === 'confirm_account',
  );
  if (!invite) throw new Error(`no confirm-account mail for ${email}`);
  const confirmed = await t.request('POST', '/api/v1/admin/auth/confirm-account', {
    body: { token: invite.data!.token, password },
  });
  expectStatus('POST /admin/auth/confirm-account', confirmed, 204);
  const login = await t.request('POST', '/api/v1/admin/auth/login', { body: { email, password } });
  expectStatus('POST /admin/auth/login', login, 200);
  return { token: login.body.access_token, admin: login.body.user };
};

export interface DriverOptions {
  phone?: string;
  name?: string;
  /** Profile, required documents and admin approval (default true). */
  approved?: boolean;
  capacityLiters?: number;
  cityId?: number;
  /** Water in the tank. */
  liters?: number;
  online?: boolean;
  lat?: number;
  lng?: number;
}

export interface SignedInDriver extends SignedInUser {
  driverId: number;
}

/** A DRIVER, by default ACTIVE (approved) with a profile in Caracas and a 10,000-liter tank. */
export const signInDriver = async (t: TestService, opts: DriverOptions = {}): Promise<SignedInDriver> => {
  const { token } = await otpSignIn(t, opts.phone ?? uniquePhone(), 'driver');
  const named = await t.request('PATCH', '/api/v1/me', { token, body: { name: opts.name ?? 'Conductor de prueba' } });
  expectStatus('PATCH /me', named, 200);
  const me = await t.request('GET', '/api/v1/me', { token });
  const driverId: number = me.body.user.driver.id;
  const call = async (method: string, path: string, body: unknown, ...ok: number[]) => {
    const r = await t.request(method, `/api/v1${path}`, { token, body });
    expectStatus(`${method} ${path}`, r, ...ok);
    return r;
  };
  if (opts.approved ?? true) {
    await call(
      'PUT',
      '/driver/profile',
      {
        plate: `AB${String(driverId).padStart(5, '0')}`,
        capacityLiters: opts.capacityLiters ?? 10_000,
        cityId: opts.cityId ?? 1,
      },
      200,
    );
    for (const type of ['ID_FRONT', 'LICENSE'])
      await call('POST', '/driver/documents', { type, expiresAt: '2099-12-31' }, 201);
    let approve = await t.request('POST', `/api/v1/admin/drivers/${driverId}/approve`, { token: await rootToken(t) });
    if (approve.status === 401)
      approve = await t.request('POST', `/api/v1/admin/drivers/${driverId}/approve`, {
        token: await rootToken(t, true),
      });
    expectStatus('POST /admin/drivers/{id}/approve', approve, 200);
  }
  if (opts.liters !== undefined) await call('PATCH', '/driver/tank', { availableLiters: opts.liters }, 200);
  const position = opts.lat !== undefined && opts.lng !== undefined ? { latitude: opts.lat, longitude: opts.lng } : {};
  if (opts.online) await call('POST', '/driver/online', { online: true, ...position }, 200);
  else if ('latitude' in position) await call('POST', '/driver/location', position, 204);
  const user = await t.request('GET', '/api/v1/me', { token });
  return { token, user: user.body.user, driverId };
};
