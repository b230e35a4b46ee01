import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../infra/clock.js';
import {
  signInAdmin,
  signInClient,
  type SignedInAdmin,
  type SignedInDriver,
  type SignedInUser,
} from '../support/actors.js';
import { call, confirmedOrder, deliverOrder, onlineDriver } from '../support/orderFlows.js';
import { startTestService, type TestService } from '../support/testService.js';

describe('promotion milestone grants', () => {
  let t: TestService;
  let api: ReturnType<typeof call>;
  let root: SignedInAdmin;
  beforeAll(async () => {
    t = await startTestService({ clock: new ManualClock(), env: { OFFICIAL_RATE_VES: '36.5' } });
    api = call(t);
    root = await signInAdmin(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** Runs every scheduled job once, the grants' catch-up among them. */
  const tick = () => t.service.ctx.scheduler.tick();

  const deliver = async (
    client: SignedInUser,
    driver: SignedInDriver,
    { liters = 1000, basePrice = 25 }: { liters?: number; basePrice?: number } = {},
  ): Promise<number> => {
    const f = await confirmedOrder(t, { client, driver, body: { litersRequested: 1000, basePrice } });
    await deliverOrder(t, f, liters);
    return f.orderId;
  };

  const create = async (body: Record<string, unknown>) => {
    const r = await api.post('/admin/promotions', root.token, {
      name: 'Hito',
      audience: 'CLIENT',
      credit_scope: 'ORDERS',
      amount_usd: 5,
      ...body,
    });
    expect(r.status).toBe(201);
    return r.body.promotion as { id: number };
  };
  const promotion = async (id: number) => (await api.get(`/admin/promotions/${id}`, root.token)).body.promotion;
  const grants = async (id: number, query = '') =>
    (await api.get(`/admin/promotions/${id}/grants${query}`, root.token)).body;

  it(
    'grants the amount once when a client’s deliveries ' + 'reach the milestone, even when the process runs again',
    async () => {
      const p = await create({ milestone_orders: 2 });
      const client = await signInClient(t, undefined, 'Cliente Hito');
      const driver = await onlineDriver(t);

      await deliver(client, driver);
      await tick();
      expect((await api.get('/credit/me', client.token)).body).toMatchObject({ ordersUSD: 0, earnedUSD: 0 });
      expect((await grants(p.id)).items).toEqual([]);

      // Another driver: one client–driver pair counts once a day (docs/decisions/0046-money-risk-limits.md).
      const second = await deliver(client, await onlineDriver(t));
      await Promise.all([tick(), tick()]);
      expect((await api.get('/credit/me', client.token)).body).toMatchObject({
        ordersUSD: 5,
        usableOnOrdersUSD: 5,
        earnedUSD: 5,
      });
      const page = await grants(p.id);
      expect(page).toEqual({
        items: [
          {
            id: expect.any(Number),
            user: { id: client.user.id, name: 'Cliente Hito', phone: client.user.phone },
            order_id: second,
            audience: 'CLIENT',
            credit_scope: 'ORDERS',
            amount_usd: 5,
            created_at: expect.any(String),
          },
        ],
        next_cursor: null,
        has_more: false,
      });
      expect(await promotion(p.id)).toMatchObject({ grants_count: 1, granted_amount_usd: 5 });
      const history = (await api.get(`/admin/customers/${client.user.id}/credit/transactions`, root.token)).body.items;
      expect(history).toMatchObject([
        {
          type: 'PROMO_GRANT',
          scope: 'ORDERS',
          direction: 'CREDIT',
          amount_usd: 5,
          order_id: second,
          promotion_id: p.id,
        },
      ]);

      // The process manager replays the whole log (as after a lost checkpoint): nothing is granted again.
      await t.service.ctx.db
        .deleteFrom('process_manager_checkpoints')
        .where('name', '=', 'promotion-milestone-grants')
        .execute();
      await tick();
      // A third delivery is past the milestone of a campaign already granted to this client.
      await deliver(client, await onlineDriver(t));
      await tick();
      expect((await api.get('/credit/me', client.token)).body).toMatchObject({ earnedUSD: 5 });
      expect((await grants(p.id)).items).toHaveLength(1);
      expect(await promotion(p.id)).toMatchObject({ grants_count: 1, granted_amount_usd: 5 });
      expect(
        (await api.get(`/admin/customers/${client.user.id}/credit/transactions?type=PROMO_GRANT`, root.token)).body
          .items,
      ).toHaveLength(1);

      // After the first grant the terms are frozen and the campaign cannot be deleted.
      const frozen = await api.patch(`/admin/promotions/${p.id}`, root.token, {
        name: 'Otro nombre',
        amount_usd: 50,
        milestone_basis: 'CAMPAIGN',
      });
      expect(frozen.status).toBe(409);
      expect(frozen.body).toMatchObject({
        error: 'PromotionAlreadyGranted',
        fields: ['milestone_basis', 'amount_usd'],
      });
      expect((await promotion(p.id)).name).toBe('Hito');
      const deleted = await api.del(`/admin/promotions/${p.id}`, root.token);
      expect(deleted.status).toBe(409);
      expect(deleted.body.error).toBe('PromotionHasGrants');
      const off = await api.patch(`/admin/promotions/${p.id}`, root.token, { active: false, name: 'Hito cerrado' });
      expect(off.status).toBe(200);
      expect(off.body.promotion).toMatchObject({
        active: false,
        is_running: false,
        name: 'Hito cerrado',
        grants_count: 1,
      });
    },
  );

  it('counts towards a milestone only real deliveries (500 L, 5 USD paid) and one per client–driver pair a day', async () => {
    const bonus = await create({ milestone_orders: 3, audience: 'DRIVER', credit_scope: null, amount_usd: 25 });
    const driver = await onlineDriver(t);
    const accomplice = await signInClient(t);
    for (let i = 0; i < 3; i++) await deliver(accomplice, driver);
    await deliver(await signInClient(t), driver, { liters: 499 });
    await deliver(await signInClient(t), driver, { basePrice: 1 });
    await tick();
    expect((await grants(bonus.id)).items).toEqual([]);

    await deliver(await signInClient(t), driver, { liters: 500 });
    const third = await deliver(await signInClient(t), driver);
    await tick();
    expect((await grants(bonus.id)).items).toEqual([
      expect.objectContaining({ user: expect.objectContaining({ id: driver.user.id }), order_id: third }),
    ]);
    const off = await api.patch(`/admin/promotions/${bonus.id}`, root.token, { active: false });
    expect(off.status).toBe(200);
  });

  it(
    'stops at max_grants, pages grants newest first, ignores inactive and ' +
      'other-city campaigns, and grants a driver campaign to the driver only',
    async () => {
      const capped = await create({ milestone_orders: 1, max_grants: 2, amount_usd: 1, credit_scope: 'ANY' });
      const inactive = await create({ milestone_orders: 1, active: false });
      const elsewhere = await create({ milestone_orders: 1, city_id: 2 });
      const drivers = await create({ milestone_orders: 1, audience: 'DRIVER', credit_scope: null });
      const driver = await onlineDriver(t);
      const clients = [await signInClient(t), await signInClient(t), await signInClient(t)];
      for (const c of clients) await deliver(c, driver);
      await tick();

      const first = await grants(capped.id, '?limit=1');
      expect(first.items).toHaveLength(1);
      expect(first.has_more).toBe(true);
      expect(first.items[0].user.id).toBe(clients[1].user.id);
      const rest = await grants(capped.id, `?limit=1&cursor=${first.next_cursor}`);
      expect(rest).toMatchObject({ has_more: false, next_cursor: null });
      expect(rest.items[0].user.id).toBe(clients[0].user.id);
      expect(await promotion(capped.id)).toMatchObject({ grants_count: 2, granted_amount_usd: 2, is_running: false });
      expect((await api.get('/credit/me', clients[0].token)).body).toMatchObject({ anyUSD: 1, earnedUSD: 1 });
      expect((await api.get('/credit/me', clients[2].token)).body).toMatchObject({ earnedUSD: 0 });
      for (const p of [inactive, elsewhere]) expect(await promotion(p.id)).toMatchObject({ grants_count: 0 });
      // The driver's first delivery reached the driver campaign's milestone: one grant, to the driver (#10).
      expect((await grants(drivers.id)).items.map((g: { user: { id: number } }) => g.user.id)).toEqual([
        driver.user.id,
      ]);
    },
  );

  it('grants from a campaign created after a delivery read the campaigns (kept in memory until one changes)', async () => {
    const driver = await onlineDriver(t);
    await deliver(await signInClient(t), driver);
    // The grants' catch-up reads the campaigns switched on (none for this delivery) and keeps them.
    await tick();
    const welcome = await create({ milestone_orders: 1 });
    const client = await signInClient(t);
    const order = await deliver(client, driver);
    await tick();
    expect((await grants(welcome.id)).items).toEqual([
      expect.objectContaining({ user: expect.objectContaining({ id: client.user.id }), order_id: order }),
    ]);
    expect((await api.patch(`/admin/promotions/${welcome.id}`, root.token, { active: false })).status).toBe(200);
  });
});
