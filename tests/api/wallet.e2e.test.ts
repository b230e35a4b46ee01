import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reactToDelivery } from '../../commands/wallet/walletReactions.js';
import { walletStream } from '../../domain/wallet/events.js';
import { ManualClock } from '../../infra/clock.js';
import type { RecordedEvent } from '../../infra/eventStore/port.js';
import { signInAdmin, signInClient, signInDriver, type SignedInAdmin, type SignedInDriver } from '../support/actors.js';
import { call, CARACAS, confirmedOrder, deliverOrder, onlineDriver, orderBody } from '../support/orderFlows.js';
import { startTestService, type TestResponse, type TestService } from '../support/testService.js';

/**
 * The wallet over HTTP. A delivery records its wallet entries inline; the scheduler does not run by itself
 * here: `tick()` runs the wallet's catch-up when a test says so, so redeliveries and races are the test's own.
 * CASH_DEBT_CAP_USD is 1000: a cash order of 10 000 USD (commission 1 000) reaches it in one delivery.
 */
describe('wallet', () => {
  let t: TestService;
  let api: ReturnType<typeof call>;
  let root: SignedInAdmin;
  beforeAll(async () => {
    t = await startTestService({
      clock: new ManualClock(),
      env: { OFFICIAL_RATE_VES: '36.5', CASH_DEBT_CAP_USD: '1000' },
      roles: ['api', 'projector', 'gateway'],
    });
    api = call(t);
    root = await signInAdmin(t);
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });

  const tick = () => t.service.ctx.scheduler.tick();
  const must = (what: string, r: TestResponse, status: number) => {
    if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };

  /** A cash order (the default method) of `basePrice` USD delivered by `driver`; returns the order id. */
  const deliverCash = async (driver: SignedInDriver, basePrice = 25): Promise<number> => {
    const f = await confirmedOrder(t, { driver, body: { basePrice } });
    await deliverOrder(t, f, 2000);
    return f.orderId;
  };

  /** An order paid by immediate bank debit, then delivered. */
  const deliverOnline = async (driver: SignedInDriver, basePrice = 25): Promise<number> => {
    const client = await signInClient(t);
    const orderId: number = must(
      'POST /orders',
      await api.post('/orders', client.token, orderBody({ paymentMethod: 'PAYPROV_DI', basePrice })),
      201,
    ).order.id;
    const offer = must('bid', await api.post(`/orders/${orderId}/accept`, driver.token, {}), 201).offer;
    must('accept', await api.post(`/orders/offers/${offer.id}/accept`, client.token), 200);
    const payer = { bank_code: '0102', id_number: 'V12345678', phone: '04141234567', name: 'Ana Pérez' };
    must('prepare', await api.post(`/orders/${orderId}/payment/prepare`, client.token, payer), 200);
    must('report', await api.post(`/orders/${orderId}/payment/report`, client.token, { ...payer, otp: '123456' }), 200);
    const order = must('GET order', await api.get(`/orders/${orderId}`, client.token), 200).order;
    const f = { client, driver, orderId, offerId: offer.id, pin: order.delivery_pin };
    await deliverOrder(t, f, 2000);
    return orderId;
  };

  const ledger = async (driver: SignedInDriver, query = '') =>
    must('ledger', await api.get(`/wallet/me/transactions${query}`, driver.token), 200);
  const balance = async (driver: SignedInDriver) => must('wallet', await api.get('/wallet/me', driver.token), 200);
  const adjust = (driverId: number, body: Record<string, unknown>, token = root.token) =>
    api.post(`/admin/drivers/${driverId}/wallet/adjustments`, token, body);
  const deliveredEvents = async (orderIds: number[]): Promise<RecordedEvent[]> =>
    (await Promise.all(orderIds.map((id) => t.service.ctx.store.readStream(`order-${id}`)))).map((events) =>
      events.find((e) => e.type === 'OrderDelivered')!,
    );

  describe('GET /wallet/me', () => {
    it('creates a driver’s wallet on first access and answers the balance summary', async () => {
      const driver = await onlineDriver(t);
      expect(await t.service.ctx.store.readStream(walletStream(driver.driverId))).toEqual([]);
      expect(await balance(driver)).toEqual({
        balanceUSD: 0,
        pendingPayoutUSD: 0,
        withdrawableUSD: 0,
        cashDebtUSD: 0,
        cashDebtCapUSD: 1000,
        canGoOnline: true,
      });
      await balance(driver);
      expect((await t.service.ctx.store.readStream(walletStream(driver.driverId))).map((e) => e.type)).toEqual([
        'WalletOpened',
      ]);
    });

    it(
      'a client has no wallet: zeros, cannot go online, an ' + 'empty ledger, no payout account; 401 without a token',
      async () => {
        const client = await signInClient(t);
        expect(await balance(client as SignedInDriver)).toEqual({
          balanceUSD: 0,
          pendingPayoutUSD: 0,
          withdrawableUSD: 0,
          cashDebtUSD: 0,
          cashDebtCapUSD: 1000,
          canGoOnline: false,
        });
        expect(await ledger(client as SignedInDriver)).toEqual({ items: [], next_cursor: null, has_more: false });
        expect(must('config', await api.get('/wallet/me/payout-config', client.token), 200)).toEqual({ config: null });
        const set = await api.post('/wallet/me/payout-config', client.token, {
          method: 'BANK_TRANSFER',
          accountNumber: '0102',
        });
        expect([set.status, set.body.error]).toEqual([400, 'NoDriverProfile']);
        expect((await api.get('/driver/wallet/transactions', client.token)).status).toBe(403);
        expect(
          (await api.put('/driver/payout-method', client.token, { method: 'BANK_TRANSFER', accountNumber: '0102' }))
            .status,
        ).toBe(403);
        for (const path of ['/wallet/me', '/wallet/me/transactions', '/wallet/me/payout-config'])
          expect((await api.get(path)).status).toBe(401);
      },
    );

    it('a driver who is not ACTIVE cannot go online', async () => {
      const pending = await signInDriver(t, { approved: false });
      expect((await balance(pending)).canGoOnline).toBe(false);
    });
  });

  describe('deliveries', () => {
    it(
      'a cash delivery leaves the commission as debt, at the ' +
        'order’s rate snapshot, once however often it is redelivered',
      async () => {
        const driver = await onlineDriver(t);
        const orderId = await deliverCash(driver, 25);
        // The delivery's response already reflects the wallet: no job has run yet.
        expect((await ledger(driver)).items.map((e: { type: string }) => e.type)).toEqual(['CASH_COMMISSION_DEBT']);
        await tick();
        const [cause] = await deliveredEvents([orderId]);
        for (let i = 0; i < 20; i++) await reactToDelivery(t.service.ctx, cause);
        await Promise.all([tick(), tick()]);
        const page = await ledger(driver);
        expect(page.items).toEqual([
          {
            id: expect.any(Number),
            wallet_id: driver.driverId,
            order_id: orderId,
            receipt_id: null,
            type: 'CASH_COMMISSION_DEBT',
            direction: 'DEBIT',
            amount_cents: 250,
            balance_after_cents: -250,
            amount_usd: 2.5,
            balance_after_usd: -2.5,
            exchange_rate_amount: '36.50',
            description: expect.stringContaining(`#${orderId}`),
            created_at: '2026-01-01T12:00:00.000Z',
          },
        ]);
        expect(await balance(driver)).toMatchObject({
          balanceUSD: -2.5,
          cashDebtUSD: 2.5,
          withdrawableUSD: 0,
          canGoOnline: true,
        });
        // The alias answers the same page.
        expect(must('alias', await api.get('/driver/wallet/transactions', driver.token), 200)).toEqual(page);
      },
    );

    it('an order paid online earns driver_receives as ORDER_EARNING', async () => {
      const driver = await onlineDriver(t);
      const orderId = await deliverOnline(driver, 25);
      await tick();
      const { items } = await ledger(driver);
      // W = 2500: driver_gross 2250, driver_solidary 1 % = 23 (rounded half away), driver_receives 2227.
      expect(items).toEqual([
        expect.objectContaining({
          order_id: orderId,
          type: 'ORDER_EARNING',
          direction: 'CREDIT',
          amount_cents: 2227,
          balance_after_cents: 2227,
          exchange_rate_amount: '36.50',
        }),
      ]);
      expect(await balance(driver)).toMatchObject({ balanceUSD: 22.27, withdrawableUSD: 22.27, cashDebtUSD: 0 });
    });

    it(
      'a surplus reservation paid online earns SURPLUS_EARNING; ' + 'a cash one leaves the commission as debt',
      async () => {
        const payer = { bank_code: '0102', id_number: 'V12345678', phone: '04141234567', name: 'Ana Pérez' };
        const reserveAndDeliver = async (paymentMethod: string) => {
          const driver = await onlineDriver(t);
          // 20.01 USD of driver gross for the whole listing
          // (api/surplus/surplus.api.int.test.ts's figures): driver_receives 2001 − 1 % = 1981.
          const listing = must(
            'publish',
            await api.post('/surplus', driver.token, {
              availableLiters: 1500,
              totalAmount: 20.01,
              description: 'Agua sobrante',
              ...CARACAS,
              address: 'Av. Libertador, Caracas',
            }),
            201,
          ).listing;
          const client = await signInClient(t);
          const order = must(
            'reserve',
            await api.post(`/surplus/${listing.id}/reserve`, client.token, {
              ...CARACAS,
              address: 'Av. Urdaneta, Edificio Sur, Caracas',
              paymentMethod,
            }),
            200,
          ).order;
          if (paymentMethod !== 'CASH_USD') {
            must('prepare', await api.post(`/orders/${order.id}/payment/prepare`, client.token, payer), 200);
            must(
              'report',
              await api.post(`/orders/${order.id}/payment/report`, client.token, { ...payer, otp: '123456' }),
              200,
            );
          }
          const pin = must('GET order', await api.get(`/orders/${order.id}`, client.token), 200).order.delivery_pin;
          await deliverOrder(t, { client, driver, orderId: order.id, offerId: 0, pin }, 1500);
          await tick();
          return { driver, orderId: order.id as number };
        };
        const online = await reserveAndDeliver('PAYPROV_DI');
        expect((await ledger(online.driver)).items).toEqual([
          expect.objectContaining({
            order_id: online.orderId,
            type: 'SURPLUS_EARNING',
            direction: 'CREDIT',
            amount_cents: 1981,
          }),
        ]);
        const cash = await reserveAndDeliver('CASH_USD');
        expect((await ledger(cash.driver)).items).toEqual([
          expect.objectContaining({ order_id: cash.orderId, type: 'CASH_COMMISSION_DEBT', direction: 'DEBIT' }),
        ]);
      },
    );

    it(
      'a DRIVER promotion campaign grants PROMO_BONUS into ' + 'the wallet once, whatever the catch-up replays',
      async () => {
        const campaign = must(
          'campaign',
          await api.post('/admin/promotions', root.token, {
            name: 'Bono conductores',
            audience: 'DRIVER',
            milestone_orders: 2,
            amount_usd: 7.5,
          }),
          201,
        ).promotion;
        const driver = await onlineDriver(t);
        await deliverOnline(driver, 25);
        await tick();
        expect((await ledger(driver, '?type=PROMO_BONUS')).items).toEqual([]);
        await deliverOnline(driver, 25);
        await Promise.all([tick(), tick()]);
        await tick();
        expect((await ledger(driver, '?type=PROMO_BONUS')).items).toEqual([
          expect.objectContaining({
            type: 'PROMO_BONUS',
            direction: 'CREDIT',
            amount_cents: 750,
            order_id: null,
            exchange_rate_amount: null,
            description: `Bono de la promoción #${campaign.id}`,
          }),
        ]);
        expect(await balance(driver)).toMatchObject({ balanceUSD: 2 * 22.27 + 7.5 });
        must('stop', await api.patch(`/admin/promotions/${campaign.id}`, root.token, { active: false }), 200);
      },
    );

    it(
      'a cash order paid partly with promotional credit ' + 'reimburses the credited part as PROMO_REIMBURSEMENT',
      async () => {
        const driver = await onlineDriver(t);
        const client = await signInClient(t);
        must(
          'credit',
          await api.post(`/admin/customers/${client.user.id}/credit/adjust`, root.token, {
            type: 'credit',
            scope: 'ORDERS',
            amount: 5,
            reason: 'Compensación por un pedido tardío',
          }),
          200,
        );
        const f = await confirmedOrder(t, { client, driver, body: { basePrice: 25 } });
        await deliverOrder(t, f, 2000);
        await tick();
        const { items } = await ledger(driver);
        expect(
          items.map((e: { type: string; direction: string; amount_cents: number; order_id: number }) => [
            e.type,
            e.direction,
            e.amount_cents,
            e.order_id,
          ]),
        ).toEqual([
          ['PROMO_REIMBURSEMENT', 'CREDIT', 500, f.orderId],
          ['CASH_COMMISSION_DEBT', 'DEBIT', 250, f.orderId],
        ]);
        expect(await balance(driver)).toMatchObject({ balanceUSD: 2.5 });
      },
    );
  });

  describe('ledger query', () => {
    it('pages newest first with an opaque cursor, filters by type and by date range', async () => {
      const driver = await onlineDriver(t);
      for (const amount of [1, 2, 3])
        must(
          'adjust',
          await adjust(driver.driverId, { direction: 'CREDIT', amount, reason: `Bono de prueba número ${amount}` }),
          201,
        );
      must(
        'debit',
        await adjust(driver.driverId, { direction: 'DEBIT', amount: 0.5, reason: 'Descuento de prueba uno' }),
        201,
      );
      const first = await ledger(driver, '?limit=2');
      expect(first.items.map((e: { amount_cents: number }) => e.amount_cents)).toEqual([50, 300]);
      expect(first.has_more).toBe(true);
      const second = await ledger(driver, `?limit=2&cursor=${first.next_cursor}`);
      expect(second.items.map((e: { amount_cents: number }) => e.amount_cents)).toEqual([200, 100]);
      expect([second.has_more, second.next_cursor]).toEqual([false, null]);
      expect(first.items[0]).toMatchObject({
        type: 'MANUAL_ADJUSTMENT',
        direction: 'DEBIT',
        balance_after_cents: 550,
        order_id: null,
        exchange_rate_amount: null,
        description: 'Descuento de prueba uno',
      });
      expect((await ledger(driver, '?type=MANUAL_ADJUSTMENT')).items).toHaveLength(4);
      expect((await ledger(driver, '?type=ORDER_EARNING')).items).toEqual([]);
      expect((await ledger(driver, '?date_from=2026-01-01&date_to=2026-01-01')).items).toHaveLength(4);
      expect((await ledger(driver, '?date_from=2026-01-02')).items).toEqual([]);
      expect((await ledger(driver, '?date_to=2025-12-31')).items).toEqual([]);
    });

    it('bad query values are 422 ValidationError naming the field, on every ledger route', async () => {
      const driver = await onlineDriver(t);
      const bad: [string, string][] = [
        ['type=SALARY', 'type'],
        ['date_from=2026-13-01', 'date_from'],
        ['date_to=yesterday', 'date_to'],
        ['date_from=2026-01-05&date_to=2026-01-04', 'date_to'],
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=abc', 'limit'],
        ['cursor=not-a-cursor', 'cursor'],
      ];
      for (const path of [
        '/wallet/me/transactions',
        '/driver/wallet/transactions',
        `/admin/drivers/${driver.driverId}/wallet/transactions`,
      ]) {
        const token = path.startsWith('/admin') ? root.token : driver.token;
        for (const [query, field] of bad) {
          const r = await api.get(`${path}?${query}`, token);
          expect([path, query, r.status, r.body.error], JSON.stringify(r.body)).toEqual([
            path,
            query,
            422,
            'ValidationError',
          ]);
          expect(Object.keys(r.body.details.fieldErrors)).toContain(field);
        }
      }
    });
  });

  describe('payout config', () => {
    const pagoMovil = { method: 'PAGO_MOVIL', bankCode: '0102', idNumber: 'V12345678', phone: '04141234567' };

    it('creates, reads and updates the account; the driver alias does the same', async () => {
      const driver = await onlineDriver(t);
      expect(must('none', await api.get('/wallet/me/payout-config', driver.token), 200)).toEqual({ config: null });
      const created = must('create', await api.post('/wallet/me/payout-config', driver.token, pagoMovil), 200);
      expect(created).toEqual({
        config: {
          id: driver.driverId,
          user_id: driver.user.id,
          method: 'PAGO_MOVIL',
          bank_code: '0102',
          id_number: 'V12345678',
          phone: '04141234567',
          account_number: null,
          account_type: null,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      });
      expect(must('get', await api.get('/wallet/me/payout-config', driver.token), 200)).toEqual(created);
      const changed = must(
        'alias',
        await api.put('/driver/payout-method', driver.token, {
          method: 'BANK_TRANSFER',
          accountNumber: '01020000000000000001',
          accountType: 'corriente',
        }),
        200,
      );
      expect(changed.config).toMatchObject({
        method: 'BANK_TRANSFER',
        account_number: '01020000000000000001',
        account_type: 'corriente',
        bank_code: null,
      });
      expect(must('get', await api.get('/wallet/me/payout-config', driver.token), 200)).toEqual(changed);
    });

    it('is 400 when PAGO_MOVIL lacks bankCode, idNumber or phone, or BANK_TRANSFER lacks accountNumber', async () => {
      const driver = await onlineDriver(t);
      for (const missing of ['bankCode', 'idNumber', 'phone']) {
        const { [missing as keyof typeof pagoMovil]: _gone, ...body } = pagoMovil;
        const r = await api.post('/wallet/me/payout-config', driver.token, body);
        expect([r.status, r.body.error]).toEqual([400, 'InvalidPayoutConfig']);
        expect(r.body.message).toContain(missing);
      }
      const r = await api.put('/driver/payout-method', driver.token, { method: 'BANK_TRANSFER', bankCode: '0102' });
      expect([r.status, r.body.error]).toEqual([400, 'InvalidPayoutConfig']);
      expect(must('none', await api.get('/wallet/me/payout-config', driver.token), 200)).toEqual({ config: null });
    });

    it('bad body values are 422 naming the field', async () => {
      const driver = await onlineDriver(t);
      const bad: [Record<string, unknown>, string][] = [
        [{ ...pagoMovil, method: 'CASH' }, 'method'],
        [{ bankCode: '0102' }, 'method'],
        [{ ...pagoMovil, bankCode: '01234567890' }, 'bankCode'],
        [{ ...pagoMovil, idNumber: 'V'.repeat(21) }, 'idNumber'],
        [{ ...pagoMovil, phone: '0'.repeat(21) }, 'phone'],
        [{ method: 'BANK_TRANSFER', accountNumber: '1'.repeat(31) }, 'accountNumber'],
        [{ ...pagoMovil, accountType: 'savings' }, 'accountType'],
        [{ ...pagoMovil, otp: '12345' }, 'otp'],
        [{ ...pagoMovil, otp: 123456 }, 'otp'],
      ];
      for (const [body, field] of bad) {
        const r = await api.post('/wallet/me/payout-config', driver.token, body);
        expect([r.status, r.body.error], JSON.stringify(body)).toEqual([422, 'ValidationError']);
        expect(Object.keys(r.body.details.fieldErrors)).toContain(field);
      }
    });

    it(
      'checks an optional code against POST /auth/otp/request’s ' +
        'code for the driver’s phone: 401 InvalidOtp when wrong',
      async () => {
        const driver = await onlineDriver(t);
        const code: string = must(
          'otp',
          await api.post('/auth/otp/request', undefined, { phone: driver.user.phone }),
          200,
        ).code;
        const wrong = code === '000000' ? '111111' : '000000';
        const refused = await api.post('/wallet/me/payout-config', driver.token, { ...pagoMovil, otp: wrong });
        expect([refused.status, refused.body.error]).toEqual([401, 'InvalidOtp']);
        expect(must('none', await api.get('/wallet/me/payout-config', driver.token), 200)).toEqual({ config: null });
        must('with code', await api.post('/wallet/me/payout-config', driver.token, { ...pagoMovil, otp: code }), 200);
        // A code is consumed once.
        const again = await api.post('/wallet/me/payout-config', driver.token, {
          ...pagoMovil,
          phone: '04140000000',
          otp: code,
        });
        expect([again.status, again.body.error]).toEqual([401, 'InvalidOtp']);
      },
    );
  });

  describe('admin', () => {
    it(
      'a super admin’s adjustment answers 201 {entry}; a plain ' +
        'admin may read but not adjust; unknown drivers are 404',
      async () => {
        const driver = await onlineDriver(t);
        const r = await adjust(driver.driverId, {
          direction: 'DEBIT',
          amount: 12.34,
          reason: 'Cobro de un bidón dañado',
        });
        expect(r.status).toBe(201);
        expect(r.body.entry).toMatchObject({
          wallet_id: driver.driverId,
          type: 'MANUAL_ADJUSTMENT',
          direction: 'DEBIT',
          amount_cents: 1234,
          balance_after_cents: -1234,
          amount_usd: 12.34,
          balance_after_usd: -12.34,
          description: 'Cobro de un bidón dañado',
        });
        expect((await ledger(driver)).items).toEqual([r.body.entry]);
        // Another driver sees only their own (empty) wallet: the driver routes take no driver id.
        const stranger = await onlineDriver(t);
        expect((await ledger(stranger)).items).toEqual([]);
        expect((await balance(stranger)).balanceUSD).toBe(0);

        const plain = await signInAdmin(t, { superAdmin: false, cityIds: [1] });
        expect(
          (
            await adjust(
              driver.driverId,
              { direction: 'CREDIT', amount: 1, reason: 'Intento sin permiso' },
              plain.token,
            )
          ).status,
        ).toBe(403);
        expect(
          (
            await adjust(
              driver.driverId,
              { direction: 'CREDIT', amount: 1, reason: 'Intento de un conductor' },
              driver.token,
            )
          ).status,
        ).toBe(403);
        expect(
          must('admin wallet', await api.get(`/admin/drivers/${driver.driverId}/wallet`, plain.token), 200).wallet,
        ).toMatchObject({ balanceUSD: -12.34, cashDebtUSD: 12.34 });
        expect(
          must('admin ledger', await api.get(`/admin/drivers/${driver.driverId}/wallet/transactions`, plain.token), 200)
            .items,
        ).toEqual([r.body.entry]);
        const other = await signInAdmin(t, { superAdmin: false, cityIds: [2] });
        expect((await api.get(`/admin/drivers/${driver.driverId}/wallet`, other.token)).status).toBe(404);

        expect(
          (await adjust(999_999, { direction: 'CREDIT', amount: 1, reason: 'Conductor inexistente' })).status,
        ).toBe(404);
        expect((await api.get('/admin/drivers/999999/wallet', root.token)).body.error).toBe('DriverNotFound');
        expect((await api.get('/admin/drivers/999999/wallet/transactions', root.token)).status).toBe(404);
      },
    );

    it('bad adjustment bodies and as_of values are 422 naming the field', async () => {
      const driver = await onlineDriver(t);
      const ok = { direction: 'CREDIT', amount: 1, reason: 'Una razón suficientemente larga' };
      const bad: [Record<string, unknown>, string][] = [
        [{ ...ok, direction: 'UP' }, 'direction'],
        [{ ...ok, amount: 0 }, 'amount'],
        [{ ...ok, amount: -1 }, 'amount'],
        [{ ...ok, amount: 0.001 }, 'amount'],
        [{ ...ok, amount: '5' }, 'amount'],
        [{ ...ok, reason: 'corta' }, 'reason'],
        [{ ...ok, reason: 'x'.repeat(501) }, 'reason'],
        [{ direction: 'CREDIT', amount: 1 }, 'reason'],
      ];
      for (const [body, field] of bad) {
        const r = await adjust(driver.driverId, body);
        expect([r.status, r.body.error], JSON.stringify(body)).toEqual([422, 'ValidationError']);
        expect(Object.keys(r.body.details.fieldErrors)).toContain(field);
      }
      const asOf = await api.get(`/admin/drivers/${driver.driverId}/wallet?as_of=last-tuesday`, root.token);
      expect([asOf.status, Object.keys(asOf.body.details.fieldErrors)]).toEqual([422, ['as_of']]);
      const id = await api.get('/admin/drivers/abc/wallet', root.token);
      expect([id.status, Object.keys(id.body.details.fieldErrors)]).toEqual([422, ['driverId']]);
      expect((await ledger(driver)).items).toEqual([]);
    });

    it('answers the balance as it stood at an instant, folded from the wallet stream', async () => {
      const driver = await onlineDriver(t);
      const beforeAny = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 5));
      must(
        'first',
        await adjust(driver.driverId, { direction: 'CREDIT', amount: 10, reason: 'Bono de bienvenida al servicio' }),
        201,
      );
      const between = new Date(Date.now() + 2).toISOString();
      await new Promise((r) => setTimeout(r, 10));
      must(
        'second',
        await adjust(driver.driverId, { direction: 'DEBIT', amount: 4, reason: 'Cobro de deuda en efectivo' }),
        201,
      );
      const at = async (asOf: string) =>
        must(
          'as of',
          await api.get(`/admin/drivers/${driver.driverId}/wallet?as_of=${encodeURIComponent(asOf)}`, root.token),
          200,
        );
      expect(await at(beforeAny)).toEqual({ wallet: expect.objectContaining({ balanceUSD: 0 }), as_of: beforeAny });
      expect((await at(between)).wallet).toMatchObject({ balanceUSD: 10, withdrawableUSD: 10, canGoOnline: true });
      expect((await at(new Date(Date.now() + 1000).toISOString())).wallet).toMatchObject({ balanceUSD: 6 });
      expect(must('now', await api.get(`/admin/drivers/${driver.driverId}/wallet`, root.token), 200)).toEqual({
        wallet: expect.objectContaining({ balanceUSD: 6 }),
        as_of: '2026-01-01T12:00:00.000Z',
      });
    });
  });

  describe('cash-debt cap', () => {
    it(
      'a delivery that brings the debt to the cap takes the driver ' +
        'offline; an admin credit under the cap lets them back',
      async () => {
        const driver = await onlineDriver(t);
        await deliverCash(driver, 10_000);
        await tick();
        expect(await balance(driver)).toMatchObject({ balanceUSD: -1000, cashDebtUSD: 1000, canGoOnline: false });
        expect(must('me', await api.get('/me', driver.token), 200).user.driver).toMatchObject({ isOnline: false });
        const refused = await api.post('/driver/online', driver.token, { online: true });
        expect([refused.status, refused.body.error]).toEqual([409, 'NotAllowed']);

        must(
          'credit',
          await adjust(driver.driverId, {
            direction: 'CREDIT',
            amount: 0.01,
            reason: 'Pago parcial de la deuda en efectivo',
          }),
          201,
        );
        expect(await balance(driver)).toMatchObject({ balanceUSD: -999.99, canGoOnline: true });
        must('online', await api.post('/driver/online', driver.token, { online: true }), 200);
      },
    );
  });
});
