import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activePaymentForm, findPaymentForm } from '../../stores/paymentForms/paymentFormQueries.js';
import { signInAdmin, signInClient, signInDriver } from '../../tests/support/actors.js';
import { appendingNothing, startApiUnderTest, type ApiUnderTest } from '../../tests/support/apiSpecification.js';

const validForm = (over: Record<string, unknown> = {}) => ({
  name: 'Transferencia Mercantil',
  internalName: `transfer_${Math.random().toString(36).slice(2, 10)}`,
  category: 'bank_transfer',
  currency: 'VES',
  icon: 'bank',
  display: [
    { type: 'copy', index: 1, label: 'Cuenta', content: '0105-0000-00-0000000000' },
    { type: 'image', index: 2, label: 'QR', content: 'https://cdn.example/qr.png' },
  ],
  fields: [
    { index: 1, label: 'Banco de origen', required: true, hint: 'Ej. Banesco', inputType: 'bank' },
    { index: 2, label: 'Referencia', inputType: 'reference' },
  ],
  sortOrder: 50,
  ...over,
});

describe('payment forms', () => {
  let t: ApiUnderTest;
  const request = appendingNothing(() => t);
  let admin: string;
  let client: string;

  beforeAll(async () => {
    t = await startApiUnderTest();
    admin = (await signInAdmin(t)).token;
    client = (await signInClient(t)).token;
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('ships one active form per currency, with display and fields to fill', async () => {
    const r = await request('GET', '/api/v1/payment-forms', { token: client });
    expect(r.status).toBe(200);
    for (const item of r.body.forms)
      expect(Object.keys(item).sort()).toEqual(['category', 'currency', 'icon', 'id', 'internal_name', 'name']);
    expect(new Set(r.body.forms.map((f: { currency: string }) => f.currency))).toEqual(new Set(['VES', 'USD', 'USDT']));
    for (const item of r.body.forms) {
      const form = await activePaymentForm(t.service.ctx.db, item.id);
      expect(form?.fields.length).toBeGreaterThan(0);
      expect(form?.display.length).toBeGreaterThan(0);
    }
    const pagoMovil = r.body.forms.find((f: { currency: string }) => f.currency === 'VES');
    expect(pagoMovil).toMatchObject({ category: 'pago_movil', internal_name: 'pago_movil_bdv' });
  });

  it('lists active forms to any signed-in caller; 401 without a token', async () => {
    const driver = (await signInDriver(t, { approved: false })).token;
    for (const token of [driver, admin])
      expect((await request('GET', '/api/v1/payment-forms', { token })).status).toBe(200);
    expect((await request('GET', '/api/v1/payment-forms')).status).toBe(401);
  });

  it('lets an admin create a form, answered in full with defaults filled in', async () => {
    const body = validForm({ display: undefined, icon: undefined, sortOrder: undefined });
    const r = await request('POST', '/api/v1/admin/payment-forms', { token: admin, body });
    expect(r.status).toBe(201);
    expect(r.body.form).toEqual({
      id: expect.any(Number),
      name: 'Transferencia Mercantil',
      internal_name: body.internalName,
      category: 'bank_transfer',
      currency: 'VES',
      icon: null,
      display: [],
      fields: [
        { index: 1, label: 'Banco de origen', required: true, hint: 'Ej. Banesco', input_type: 'bank' },
        { index: 2, label: 'Referencia', required: true, hint: null, input_type: 'reference' },
      ],
      active: true,
      sort_order: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await findPaymentForm(t.service.ctx.db, r.body.form.id)).toMatchObject({
      internalName: body.internalName,
      active: true,
    });
  });

  it('orders the customer list by sort_order then name, without inactive forms', async () => {
    const make = async (name: string, sortOrder: number, active = true) =>
      (
        await request('POST', '/api/v1/admin/payment-forms', {
          token: admin,
          body: validForm({ name, sortOrder, active }),
        })
      ).body.form.id as number;
    const b = await make('B orden', 15);
    const a = await make('A orden', 15);
    const hidden = await make('Oculto', 15, false);
    const r = await request('GET', '/api/v1/payment-forms', { token: client });
    const ids = r.body.forms.map((f: { id: number }) => f.id);
    expect(ids).not.toContain(hidden);
    expect(ids.indexOf(a)).toBe(ids.indexOf(b) - 1);
    const sortOrders = await Promise.all(
      ids.map(async (id: number) => (await findPaymentForm(t.service.ctx.db, id))!.sortOrder),
    );
    expect(sortOrders).toEqual([...sortOrders].sort((x, y) => x - y));
    expect(await activePaymentForm(t.service.ctx.db, hidden)).toBeNull();
    expect(await findPaymentForm(t.service.ctx.db, hidden)).toMatchObject({ active: false });
  });

  it('lets an admin change a form: fields replaced whole, deactivation hides it', async () => {
    const id = (await request('POST', '/api/v1/admin/payment-forms', { token: admin, body: validForm() })).body.form.id;
    const r = await request('PATCH', `/api/v1/admin/payment-forms/${id}`, {
      token: admin,
      body: {
        name: 'Renombrado',
        currency: 'USD',
        fields: [{ index: 7, label: 'Correo', inputType: 'email', required: false }],
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.form).toMatchObject({
      id,
      name: 'Renombrado',
      currency: 'USD',
      fields: [{ index: 7, label: 'Correo', required: false, hint: null, input_type: 'email' }],
    });
    expect(r.body.form.display).toHaveLength(2);

    const off = await request('PATCH', `/api/v1/admin/payment-forms/${id}`, {
      token: admin,
      body: { active: false },
    });
    expect(off.body.form.active).toBe(false);
    const listed = await request('GET', '/api/v1/payment-forms', { token: client });
    expect(listed.body.forms.map((f: { id: number }) => f.id)).not.toContain(id);
    const adminList = await request('GET', '/api/v1/admin/payment-forms?limit=100', { token: admin });
    expect(adminList.body.items.find((f: { id: number }) => f.id === id)).toMatchObject({
      active: false,
      name: 'Renombrado',
    });
  });

  it('pages the admin list in the spec shape', async () => {
    const total = (await request('GET', '/api/v1/admin/payment-forms', { token: admin })).body.meta.total;
    const r = await request('GET', '/api/v1/admin/payment-forms?limit=2&page=2', { token: admin });
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(2);
    expect(r.body.meta).toEqual({ total, per_page: 2, current_page: 2, last_page: Math.ceil(total / 2) });
  });

  it('refuses a taken internalName with 422, also when two admins race for it', async () => {
    const taken = await request('POST', '/api/v1/admin/payment-forms', {
      token: admin,
      body: validForm({ internalName: 'zelle' }),
    });
    expect(taken.status).toBe(422);
    expect(taken.body.details.fieldErrors).toEqual({ internalName: [expect.any(String)] });

    const body = validForm({ internalName: 'raced_name' });
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => request('POST', '/api/v1/admin/payment-forms', { token: admin, body })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);

    const other = (await request('POST', '/api/v1/admin/payment-forms', { token: admin, body: validForm() })).body.form
      .id;
    const patch = await request('PATCH', `/api/v1/admin/payment-forms/${other}`, {
      token: admin,
      body: { internalName: 'raced_name' },
    });
    expect(patch.status).toBe(422);
    expect(Object.keys(patch.body.details.fieldErrors)).toEqual(['internalName']);
  });

  const badBodies: [string, Record<string, unknown>][] = [
    ['name', { name: '' }],
    ['name', { name: 'x'.repeat(101) }],
    ['internalName', { internalName: 'Has Spaces' }],
    ['internalName', { internalName: 'x' }],
    ['category', { category: 'crypto' }],
    ['currency', { currency: 'EUR' }],
    ['icon', { icon: 'x'.repeat(256) }],
    ['display', { display: 'text' }],
    ['display.0.type', { display: [{ type: 'video', index: 1, label: 'a', content: 'b' }] }],
    ['display.0.index', { display: [{ type: 'text', index: -1, label: 'a', content: 'b' }] }],
    ['display.0.label', { display: [{ type: 'text', index: 1, label: '', content: 'b' }] }],
    ['display.0.content', { display: [{ type: 'text', index: 1, label: 'a', content: '' }] }],
    ['display.0.content', { display: [{ type: 'link', index: 1, label: 'a', content: 'javascript:alert(1)' }] }],
    [
      'display.1.index',
      {
        display: [
          { type: 'text', index: 1, label: 'a', content: 'b' },
          { type: 'text', index: 1, label: 'c', content: 'd' },
        ],
      },
    ],
    ['fields', { fields: [] }],
    ['fields.0.index', { fields: [{ index: 1.5, label: 'a' }] }],
    ['fields.0.label', { fields: [{ index: 1 }] }],
    ['fields.0.required', { fields: [{ index: 1, label: 'a', required: 'yes' }] }],
    ['fields.0.hint', { fields: [{ index: 1, label: 'a', hint: 'x'.repeat(256) }] }],
    ['fields.0.inputType', { fields: [{ index: 1, label: 'a', inputType: 'file' }] }],
    [
      'fields.1.index',
      {
        fields: [
          { index: 3, label: 'a' },
          { index: 3, label: 'b' },
        ],
      },
    ],
    ['active', { active: 'true' }],
    ['sortOrder', { sortOrder: -1 }],
    ['sortOrder', { sortOrder: 1.5 }],
  ];

  it.each(badBodies)('refuses a bad %s on create and on change with 422 naming it', async (field, over) => {
    const created = await request('POST', '/api/v1/admin/payment-forms', { token: admin, body: validForm(over) });
    expect(created.status).toBe(422);
    expect(Object.keys(created.body.details.fieldErrors)).toEqual([field]);
    const patched = await request('PATCH', '/api/v1/admin/payment-forms/1', { token: admin, body: over });
    expect(patched.status).toBe(422);
    expect(Object.keys(patched.body.details.fieldErrors)).toEqual([field]);
  });

  it.each(['name', 'internalName', 'category', 'currency', 'fields'])('requires %s on create', async (field) => {
    const r = await request('POST', '/api/v1/admin/payment-forms', {
      token: admin,
      body: validForm({ [field]: undefined }),
    });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.details.fieldErrors)).toEqual([field]);
  });

  it('answers an unknown or malformed form id with 404 or 422, and leaves the seeded form untouched', async () => {
    const unknown = await request('PATCH', '/api/v1/admin/payment-forms/999999', {
      token: admin,
      body: { active: false },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('NotFound');
    for (const id of ['abc', '0', '99999999999999999999']) {
      const r = await request('PATCH', `/api/v1/admin/payment-forms/${id}`, {
        token: admin,
        body: { active: false },
      });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.details.fieldErrors)).toEqual(['id']);
    }
    expect(await activePaymentForm(t.service.ctx.db, 1)).toMatchObject({
      internalName: 'pago_movil_bdv',
      active: true,
    });
  });

  it('keeps management to admins', async () => {
    expect((await request('GET', '/api/v1/admin/payment-forms')).status).toBe(401);
    expect((await request('GET', '/api/v1/admin/payment-forms', { token: client })).status).toBe(403);
    expect((await request('POST', '/api/v1/admin/payment-forms', { token: client, body: validForm() })).status).toBe(
      403,
    );
    expect(
      (await request('PATCH', '/api/v1/admin/payment-forms/1', { token: client, body: { active: false } })).status,
    ).toBe(403);
    expect(await activePaymentForm(t.service.ctx.db, 1)).not.toBeNull();
  });
});
