import type { Router } from 'express';
import { z } from 'zod';
import { page } from '../orders/schemas.js';
import { notFound, validationError } from '../../domain/errors.js';
import type { ApiContext } from '../apiContext.js';
import {
  createPaymentForm,
  DISPLAY_TYPES,
  FORM_CATEGORIES,
  FORM_CURRENCIES,
  INPUT_TYPES,
  listActivePaymentForms,
  listPaymentForms,
  updatePaymentForm,
  type PaymentForm,
  type PaymentFormInput,
} from '../../stores/paymentForms/paymentForms.js';
import { authenticate, requireRole } from '../auth.js';
import { defineRoute } from '../route.js';
import { queryInteger } from '../schemas.js';

const uniqueIndexes = (items: { index: number }[], ctx: z.RefinementCtx) => {
  const seen = new Set<number>();
  items.forEach((item, i) => {
    if (seen.has(item.index))
      ctx.addIssue({ code: 'custom', path: [i, 'index'], message: 'is already used by another entry' });
    seen.add(item.index);
  });
};

const Index = z.number().int().min(0).max(999);

const DisplayItem = z
  .object({
    type: z.enum(DISPLAY_TYPES),
    index: Index,
    label: z.string().trim().min(1).max(100),
    content: z.string().trim().min(1).max(1000),
  })
  .superRefine((d, ctx) => {
    if ((d.type === 'image' || d.type === 'link') && !/^https:\/\/[^\s]+$/.test(d.content))
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'must be an https URL for image and link items' });
  });

const Field = z.object({
  index: Index,
  label: z.string().trim().min(1).max(100),
  required: z.boolean().default(true),
  hint: z.string().trim().max(255).nullable().default(null),
  inputType: z.enum(INPUT_TYPES).default('text'),
});

const shape = {
  name: z.string().trim().min(1).max(100),
  internalName: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_]{1,59}$/, 'must be 2 to 60 lowercase letters, digits or underscores'),
  category: z.enum(FORM_CATEGORIES),
  currency: z.enum(FORM_CURRENCIES),
  icon: z.string().trim().min(1).max(255).nullable(),
  display: z.array(DisplayItem).max(30).superRefine(uniqueIndexes),
  fields: z.array(Field).min(1, 'a form needs at least one field').max(20).superRefine(uniqueIndexes),
  active: z.boolean(),
  sortOrder: z.number().int().min(0).max(100_000),
};

const CreateForm = z.object({
  ...shape,
  icon: shape.icon.default(null),
  display: shape.display.default([]),
  active: shape.active.default(true),
  sortOrder: shape.sortOrder.default(0),
});
const PatchForm = z.object(shape).partial();

const FormParams = z.object({ id: queryInteger(1, Number.MAX_SAFE_INTEGER) });
const FormPage = z.object({
  limit: queryInteger(1, 100).default(25),
  page,
});

const ListItem = z
  .object({
    id: z.number().int(),
    name: z.string(),
    internal_name: z.string(),
    category: z.enum(FORM_CATEGORIES),
    currency: z.enum(FORM_CURRENCIES),
    icon: z.string().nullable(),
  })
  .openapi('PaymentFormListItem');
const AdminView = ListItem.extend({
  display: z.array(
    z.object({ type: z.enum(DISPLAY_TYPES), index: z.number().int(), label: z.string(), content: z.string() }),
  ),
  fields: z.array(
    z.object({
      index: z.number().int(),
      label: z.string(),
      required: z.boolean(),
      hint: z.string().nullable(),
      input_type: z.enum(INPUT_TYPES),
    }),
  ),
  active: z.boolean(),
  sort_order: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
}).openapi('PaymentFormAdmin');
const PageMeta = z.object({
  total: z.number().int(),
  per_page: z.number().int(),
  current_page: z.number().int(),
  last_page: z.number().int(),
});

const toListItem = (f: PaymentForm): z.infer<typeof ListItem> => ({
  id: f.id,
  name: f.name,
  internal_name: f.internalName,
  category: f.category,
  currency: f.currency,
  icon: f.icon,
});

const toAdminView = (f: PaymentForm): z.infer<typeof AdminView> => ({
  ...toListItem(f),
  display: f.display,
  fields: f.fields,
  active: f.active,
  sort_order: f.sortOrder,
  created_at: f.createdAt.toISOString(),
  updated_at: f.updatedAt.toISOString(),
});

type FieldBody = z.infer<typeof Field>;
const toStoredFields = (fields: FieldBody[]) =>
  fields.map((f) => ({
    index: f.index,
    label: f.label,
    required: f.required,
    hint: f.hint || null,
    input_type: f.inputType,
  }));

const taken = () => validationError({ internalName: ['is already used by another form'] });

export const paymentFormRoutes = (ctx: ApiContext, router: Router): void => {
  const admin = requireRole(ctx.auth, 'ADMIN');
  // A form holds the bank details customers pay into: changing it redirects money, so only super admins may.
  const superAdmin = requireRole(ctx.auth, 'SUPER_ADMIN');

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/payment-forms',
      summary: 'Active manual payment forms, ordered by sort_order then name',
      tags: ['payment-forms'],
      guards: [authenticate(ctx.auth)],
      responses: { 200: { description: 'Forms', schema: z.object({ forms: z.array(ListItem) }) } },
    },
    async () => ({ forms: (await listActivePaymentForms(ctx.db)).map(toListItem) }),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/admin/payment-forms',
      summary: 'Every payment form, active or not, with display and fields',
      tags: ['payment-forms'],
      guards: admin,
      query: FormPage,
      responses: { 200: { description: 'One page', schema: z.object({ items: z.array(AdminView), meta: PageMeta }) } },
      errors: { 403: ['Forbidden'] },
    },
    async ({ query }) => {
      const { items, total } = await listPaymentForms(ctx.db, query);
      return {
        items: items.map(toAdminView),
        meta: {
          total,
          per_page: query.limit,
          current_page: query.page,
          last_page: Math.max(1, Math.ceil(total / query.limit)),
        },
      };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'post',
      path: '/admin/payment-forms',
      summary: 'Create a manual payment form (super admin)',
      tags: ['payment-forms'],
      guards: superAdmin,
      body: CreateForm,
      responses: { 201: { description: 'Created', schema: z.object({ form: AdminView }) } },
      errors: { 403: { ids: ['Forbidden'], description: 'Forbidden: super admins only' } },
    },
    async ({ body, res }) => {
      const input: PaymentFormInput = { ...body, fields: toStoredFields(body.fields) };
      const form = await createPaymentForm(ctx.db, input, ctx.clock.now());
      if (form === 'taken') throw taken();
      res.status(201);
      return { form: toAdminView(form) };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'patch',
      path: '/admin/payment-forms/:id',
      summary: 'Change a payment form; display and fields are replaced whole when given (super admin)',
      tags: ['payment-forms'],
      guards: superAdmin,
      params: FormParams,
      body: PatchForm,
      responses: { 200: { description: 'Updated', schema: z.object({ form: AdminView }) } },
      errors: {
        403: { ids: ['Forbidden'], description: 'Forbidden: super admins only' },
        404: ['NotFound'],
        409: ['Conflict'],
      },
    },
    async ({ params, body }) => {
      const patch: Partial<PaymentFormInput> = { ...body, fields: body.fields && toStoredFields(body.fields) };
      const form = await updatePaymentForm(ctx.db, params.id, patch, ctx.clock.now());
      if (form === 'taken') throw taken();
      if (!form) throw notFound('NotFound', 'No payment form has this id.');
      return { form: toAdminView(form) };
    },
  );
};
