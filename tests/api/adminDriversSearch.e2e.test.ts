import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAdmin, signInDriver, type SignedInAdmin, type SignedInDriver } from '../support/actors.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * GET /admin/drivers?q= (issue 31): an operator finds a driver by any part of the name, phone, id number
 * (cédula) or plate, however they type accents, case, dashes, dots and the phone's leading zero.
 */
describe('admin drivers search', () => {
  let t: TestService;
  let root: SignedInAdmin;
  let pena: SignedInDriver;
  let other: SignedInDriver;

  const found = async (q: string) => {
    const r = await t.request('GET', `/api/v1/admin/drivers?q=${encodeURIComponent(q)}&limit=100`, {
      token: root.token,
    });
    expect(r.status, q).toBe(200);
    return (r.body.items as { id: number }[]).map((d) => d.id);
  };

  beforeAll(async () => {
    t = await startTestService();
    root = await signInAdmin(t);
    pena = await signInDriver(t, { name: 'José Peña Álvarez' });
    other = await signInDriver(t, { name: 'Mariana Rodríguez' });
    const payout = await t.request('POST', '/api/v1/wallet/me/payout-config', {
      token: pena.token,
      body: { method: 'PAGO_MOVIL', bankCode: '0102', idNumber: 'V12345673', phone: '04141234567' },
    });
    expect(payout.status).toBe(200);
  }, 60_000);

  afterAll(() => t?.stop());

  it('finds by name ignoring accents and case, by phone as dialled, by cédula and plate without punctuation', async () => {
    // The words in any order, with others between them: 'jose alvarez' is José Peña Álvarez.
    for (const q of ['jose pena', 'PEÑA', 'álvarez', 'Jose Peña Alvarez', 'jose alvarez', 'alvarez jose'])
      expect(await found(q), q).toEqual([pena.driverId]);
    const national = `0${pena.user.phone.replace(/^\+58/, '')}`;
    expect(await found(national)).toEqual([pena.driverId]);
    expect(await found(pena.user.phone.slice(-6))).toEqual([pena.driverId]);
    const plate = `AB${String(pena.driverId).padStart(5, '0')}`;
    expect(await found(`${plate.slice(0, 2).toLowerCase()}-${plate.slice(2)}`)).toEqual([pena.driverId]);
    // The id number comes from the payout account, through the reports' driver rows (their projection).
    await expect.poll(() => found('V-12.345.673'), { timeout: 10_000 }).toEqual([pena.driverId]);
    expect(await found('rodriguez')).toEqual([other.driverId]);
    // A search with letters is no phone: a plate-shaped one finds no driver whose phone holds its digits.
    expect(await found(`zz-${other.user.phone.slice(-6)}`)).toEqual([]);
    expect(await found('nadie se llama así')).toEqual([]);
    // LIKE's own characters are searched as text, not as patterns.
    expect(await found('%')).toEqual([]);
  });

  it('answers 422 for a search longer than 80 characters, and keeps an admin to their cities', async () => {
    const long = await t.request('GET', `/api/v1/admin/drivers?q=${'a'.repeat(81)}`, { token: root.token });
    expect([long.status, long.body.error]).toEqual([422, 'ValidationError']);
    const elsewhere = await signInAdmin(t, { superAdmin: false, cityIds: [2] });
    const r = await t.request('GET', '/api/v1/admin/drivers?q=pena', { token: elsewhere.token });
    expect(r.body.items).toEqual([]);
  });
});
