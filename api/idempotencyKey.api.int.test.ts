import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../infra/clock.js';
import { signInAdmin, signInClient, signInDriver, type SignedInAdmin } from '../tests/support/actors.js';
import { creditStream } from '../domain/credit/events.js';
import { walletStream } from '../domain/wallet/events.js';
import {
  expectNewEvents,
  expectNoNewEvents,
  expectResponse,
  race,
  refused,
  startApiUnderTest,
  type ApiUnderTest,
} from '../tests/support/apiSpecification.js';

const HOUR = 60 * 60_000;

describe('Idempotency-Key on manual adjustments: a double click books once', () => {
  let t: ApiUnderTest;
  const clock = new ManualClock('2026-11-23T16:00:00Z');
  beforeAll(async () => {
    t = await startApiUnderTest({ clock, env: { OFFICIAL_RATE_VES: '36.5' } });
  });
  afterAll(() => t?.stop());

  /** The same super admin every time (signed in again: the clock jumps past a token's life). */
  const root = () => signInAdmin(t);
  const send = async (path: string, admin: SignedInAdmin | Promise<SignedInAdmin>, body: unknown, key?: string) =>
    t.request('POST', `/api/v1${path}`, {
      token: (await admin).token,
      body,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
  /** The request, its status, and what it booked on the target's stream: the first booking, another, or nothing. */
  const post = async (
    r: (typeof routes)[number],
    path: string,
    admin: SignedInAdmin | Promise<SignedInAdmin>,
    key: string | undefined,
    books: 'first' | 'again' | false,
  ) =>
    t
      .given()
      .when(() => send(path, admin, r.body, key))
      .then(
        expectResponse(r.status),
        books ? expectNewEvents(r.stream(path), r.booked(books === 'first')) : expectNoNewEvents(r.stream(path)),
      );

  const routes = [
    {
      name: 'POST /admin/drivers/{id}/wallet/adjustments',
      target: async () => `/admin/drivers/${(await signInDriver(t)).driverId}/wallet/adjustments`,
      body: { direction: 'CREDIT', amount: 12.5, reason: 'Depósito de deuda en efectivo' },
      status: 201,
      booking: (b: { entry: { id: unknown } }) => b.entry,
      stream: (path: string) => walletStream(Number(path.split('/')[3])),
      // A driver's first money movement opens the wallet.
      booked: (first: boolean) => [
        ...(first ? [{ type: 'WalletOpened' }] : []),
        { type: 'LedgerEntryRecorded', data: { type: 'MANUAL_ADJUSTMENT', direction: 'CREDIT', amountCents: 1250 } },
      ],
      bookings: async (path: string) => {
        const driverId = Number(path.split('/')[3]);
        return (
          await t.service.ctx.db
            .selectFrom('wallet_ledger')
            .select('entry_id')
            .where('driver_id', '=', driverId)
            .where('type', '=', 'MANUAL_ADJUSTMENT')
            .execute()
        ).length;
      },
    },
    {
      name: 'POST /admin/customers/{id}/credit/adjust',
      target: async () => `/admin/customers/${(await signInClient(t)).user.id}/credit/adjust`,
      body: { type: 'credit', amount: 3, reason: 'Compensación por un pedido tardío' },
      status: 200,
      booking: (b: { transaction: { id: unknown } }) => b.transaction,
      stream: (path: string) => creditStream(Number(path.split('/')[3])),
      booked: () => [{ type: 'CreditAdjusted', data: { direction: 'CREDIT', amountCents: 300 } }],
      bookings: async (path: string) => {
        const clientId = Number(path.split('/')[3]);
        return (
          await t.service.ctx.db
            .selectFrom('credit_transactions')
            .select('id')
            .where('client_id', '=', clientId)
            .where('type', '=', 'MANUAL_ADJUSTMENT')
            .execute()
        ).length;
      },
    },
  ];

  for (const r of routes) {
    describe(r.name, () => {
      it(
        'the same key, sent five times at once and again later, ' +
          'books once and answers the first booking each time',
        async () => {
          const path = await r.target();
          const admin = await root();
          const clicks = race(() => Array.from({ length: 5 }, () => send(path, admin, r.body, 'click-1')));
          await t
            .given()
            .when(clicks.send)
            .then(expectNewEvents(r.stream(path), r.booked(true)));
          const answers = clicks.responses;
          expect(answers.map((a) => a.status)).toEqual(answers.map(() => r.status));
          const first = r.booking(answers[0].body as never);
          for (const a of answers) expect(r.booking(a.body as never)).toEqual(first);
          clock.advance(23 * HOUR);
          const later = await post(r, path, root(), 'click-1', false);
          expect([later.status, r.booking(later.body as never)]).toEqual([r.status, first]);
          expect(await r.bookings(path)).toBe(1);
        },
      );

      it('another key, another admin or no key books again; after 24 hours the same key books anew', async () => {
        const path = await r.target();
        const first = r.booking((await post(r, path, root(), 'k-1', 'first')).body as never);
        const otherKey = r.booking((await post(r, path, root(), 'k-2', 'again')).body as never);
        const otherAdmin = r.booking(
          (await post(r, path, await signInAdmin(t, { allCities: true }), 'k-1', 'again')).body as never,
        );
        await post(r, path, root(), undefined, 'again');
        await post(r, path, root(), undefined, 'again');
        expect(new Set([first.id, otherKey.id, otherAdmin.id]).size).toBe(3);
        expect(await r.bookings(path)).toBe(5);
        clock.advance(24 * HOUR);
        const renewed = await post(r, path, root(), 'k-1', 'again');
        expect(renewed.status).toBe(r.status);
        expect(r.booking(renewed.body as never).id).not.toEqual(first.id);
        expect(await r.bookings(path)).toBe(6);
        // Within the new window the key answers the new booking.
        expect(r.booking((await post(r, path, root(), 'k-1', false)).body as never)).toEqual(
          r.booking(renewed.body as never),
        );
        expect(await r.bookings(path)).toBe(6);
      });

      it('a malformed key is a 422 naming the header, and books nothing', async () => {
        const path = await r.target();
        for (const key of ['x'.repeat(256), 'two words']) {
          const admin = await root();
          const bad = await refused(t, () => send(path, admin, r.body, key), 422, 'ValidationError');
          expect([bad.status, Object.keys(bad.body.details.fieldErrors)]).toEqual([422, ['idempotency-key']]);
        }
        expect(await r.bookings(path)).toBe(0);
      });
    });
  }

  it('the OpenAPI document describes the header on both routes', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json')).body;
    for (const [path, op] of [
      ['/admin/drivers/{driverId}/wallet/adjustments', 'post'],
      ['/admin/customers/{customerId}/credit/adjust', 'post'],
    ]) {
      const header = doc.paths[path][op].parameters.find((p: { in: string; name: string }) => p.in === 'header');
      expect(header).toMatchObject({
        name: 'idempotency-key',
        required: false,
        schema: { type: 'string', maxLength: 255 },
      });
    }
  });
});
