import type { Router } from 'express';
import { announceReferenceChange } from '../../commands/referenceCache.js';
import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import type { ApiContext } from '../apiContext.js';
import {
  listPaymentMethods,
  setPaymentMethodActive,
  type PaymentMethod,
} from '../../stores/paymentMethods/paymentMethods.js';
import { authenticate, requireRole } from '../auth.js';
import { defineRoute } from '../route.js';

const MethodView = z
  .object({ code: z.string(), name: z.string(), kind: z.enum(['cash', 'online', 'form']), active: z.boolean() })
  .openapi('PaymentMethod');

const MethodParams = z.object({ code: z.string().min(1).max(40) });
const MethodPatch = z.object({ active: z.boolean() });

const toView = (m: PaymentMethod): z.infer<typeof MethodView> => ({
  code: m.code,
  name: m.name,
  kind: m.kind,
  active: m.active,
});

export const paymentMethodRoutes = (ctx: ApiContext, router: Router): void => {
  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/payment-methods',
      summary: 'The payment-method catalogue, inactive methods included (active false)',
      tags: ['payment-methods'],
      guards: [authenticate(ctx.auth)],
      responses: { 200: { description: 'Catalogue', schema: z.object({ methods: z.array(MethodView) }) } },
    },
    async () => ({ methods: (await listPaymentMethods(ctx.db)).map(toView) }),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'patch',
      path: '/admin/payment-methods/:code',
      summary: 'Switch a payment method on or off (super admin)',
      tags: ['payment-methods'],
      guards: requireRole(ctx.auth, 'SUPER_ADMIN'),
      params: MethodParams,
      body: MethodPatch,
      responses: { 200: { description: 'Updated', schema: z.object({ method: MethodView }) } },
      errors: { 403: { ids: ['Forbidden'], description: 'Forbidden: super admins only' }, 404: ['NotFound'] },
    },
    async ({ params, body }) => {
      const method = await setPaymentMethodActive(ctx.db, params.code, body.active);
      if (!method) throw notFound('NotFound', 'No payment method has this code.');
      await announceReferenceChange(ctx, { kind: 'paymentMethods' });
      return { method: toView(method) };
    },
  );
};
