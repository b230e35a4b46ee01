import { expect } from 'vitest';
import { signInAdmin, signInDriver, type SignedInDriver } from '../support/actors.js';
import { call } from '../support/orderFlows.js';
import type { TestResponse, TestService } from '../support/testService.js';

/** Settlement test steps over HTTP: drivers with a payout account and a balance, runs, webhook deliveries. */
export const must = (what: string, r: TestResponse, status = 200) => {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

export const settlementSteps = (t: TestService) => {
  const api = call(t);
  const root = () => signInAdmin(t);
  /** A driver whose payout account's id number ends in `idDigit` (the simulator's answer) with `usd` credited. */
  const driverWithBalance = async (
    idDigit: string,
    usd: number,
    name = `Conductor ${idDigit}`,
  ): Promise<SignedInDriver> => {
    const driver = await signInDriver(t, { name });
    must(
      'payout config',
      await api.post('/wallet/me/payout-config', driver.token, {
        method: 'PAGO_MOVIL',
        bankCode: '0102',
        idNumber: `V1234567${idDigit}`,
        phone: '04141234567',
      }),
    );
    if (usd > 0) await credit(driver.driverId, usd);
    return driver;
  };
  const credit = async (driverId: number, usd: number) =>
    must(
      'adjustment',
      await api.post(`/admin/drivers/${driverId}/wallet/adjustments`, (await root()).token, {
        direction: 'CREDIT',
        amount: usd,
        reason: 'Saldo de prueba para liquidación',
      }),
      201,
    );
  const run = async (process: 'cutoff' | 'payout' | 'reconcile') =>
    must(`run ${process}`, await api.post('/admin/settlements/run', (await root()).token, { process })) as {
      receipts: { id: string; driver_id: number; status: string; receipt_number: string }[];
    };
  const receipt = async (id: string, asOf?: string) =>
    must(
      'receipt',
      await api.get(
        `/admin/settlements/receipts/${id}${asOf ? `?as_of=${encodeURIComponent(asOf)}` : ''}`,
        (await root()).token,
      ),
    ).receipt;
  const webhook = (body: Record<string, unknown>, token = t.service.ctx.config.PAYOUT_WEBHOOK_TOKEN) =>
    t.request('POST', `/api/v1/settlements/webhook/payprov?token=${encodeURIComponent(token)}`, { body });
  const wallet = async (driver: SignedInDriver) => must('wallet', await api.get('/wallet/me', driver.token));
  const payoutsSent = async (driver: SignedInDriver) => {
    const r = must('ledger', await api.get('/wallet/me/transactions?type=PAYOUT_SENT&limit=100', driver.token));
    return r.items as { amount_cents: number }[];
  };
  const byDriver = <R extends { driver_id: number }>(receipts: R[], d: SignedInDriver): R => {
    const found = receipts.filter((r) => r.driver_id === d.driverId);
    expect(found).toHaveLength(1);
    return found[0];
  };
  /** The back office's receipts: the list (with a query), the tray, an action on one receipt. */
  const receipts = (token: string, query = '') => api.get(`/admin/settlements/receipts${query}`, token);
  const totalOf = async (token: string, query: string): Promise<number> =>
    must(`receipts${query}`, await receipts(token, query)).meta.total;
  const tray = (token: string, query = '') => api.get(`/admin/settlements/tray${query}`, token);
  const act = (token: string, id: string, action: 'retry' | 'annul' | 'mark-external', body?: unknown) =>
    api.post(`/admin/settlements/receipts/${id}/${action}`, token, body);
  /** A driver's own receipts (with a query). */
  const mine = (driver: SignedInDriver, query = '') => api.get(`/wallet/me/settlements${query}`, driver.token);
  return {
    api,
    root,
    driverWithBalance,
    credit,
    run,
    receipt,
    webhook,
    wallet,
    payoutsSent,
    byDriver,
    receipts,
    totalOf,
    tray,
    act,
    mine,
  };
};
