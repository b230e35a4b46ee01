import { sql, type Generated, type Kysely, type Migration } from 'kysely';
import type { Db } from '../../infra/db/database.js';

/**
 * Manual payment forms (state-stored): what a customer sees to pay by hand (display) and what they must
 * report back (fields). Admins maintain them; payments read them through paymentFormQueries.ts.
 */
export const FORM_CATEGORIES = ['pago_movil', 'exchange', 'bank_transfer', 'usd_transfer', 'other'] as const;
export const FORM_CURRENCIES = ['USD', 'VES', 'USDT'] as const;
/** text: information; copy: a value to copy (phone, account); image and link: an https URL (QR code, page). */
export const DISPLAY_TYPES = ['text', 'copy', 'image', 'link'] as const;
/** How a reported value is checked: see paymentFormValues.ts. */
export const INPUT_TYPES = ['text', 'phone', 'bank', 'reference', 'date', 'email', 'amount'] as const;

export type FormCategory = (typeof FORM_CATEGORIES)[number];
export type FormCurrency = (typeof FORM_CURRENCIES)[number];
export type DisplayType = (typeof DISPLAY_TYPES)[number];
export type InputType = (typeof INPUT_TYPES)[number];

export interface FormDisplayItem {
  type: DisplayType;
  index: number;
  label: string;
  content: string;
}

export interface FormField {
  index: number;
  label: string;
  required: boolean;
  hint: string | null;
  input_type: InputType;
}

export interface PaymentForm {
  id: number;
  name: string;
  /** Stable slug; payments record it as internal_type. */
  internalName: string;
  category: FormCategory;
  currency: FormCurrency;
  icon: string | null;
  /** Ordered by index. */
  display: FormDisplayItem[];
  /** Ordered by index; indexes are unique within a form. */
  fields: FormField[];
  active: boolean;
  sortOrder: number;
  createdAt: Date;
  updatedAt: Date;
}

declare module '../../infra/db/database.js' {
  interface Database {
    payment_forms: {
      id: Generated<number>;
      name: string;
      internal_name: string;
      category: string;
      currency: string;
      icon: string | null;
      display: unknown;
      fields: unknown;
      active: boolean;
      sort_order: number;
      created_at: Date;
      updated_at: Date;
    };
  }
}

const json = (v: unknown) => JSON.stringify(v);

const pagoMovil = {
  display: [
    { type: 'copy', index: 1, label: 'Banco', content: '0102 - Banco de Venezuela' },
    { type: 'copy', index: 2, label: 'Teléfono', content: '04141234567' },
    { type: 'copy', index: 3, label: 'RIF', content: 'J-401234567' },
    {
      type: 'text',
      index: 4,
      label: 'Instrucciones',
      content: 'Envía el monto exacto en bolívares y reporta el pago con su número de referencia.',
    },
  ],
  fields: [
    { index: 1, label: 'Banco de origen', required: true, hint: 'Ej. 0105 - Mercantil', input_type: 'bank' },
    { index: 2, label: 'Teléfono de origen', required: true, hint: 'Ej. 04141234567', input_type: 'phone' },
    {
      index: 3,
      label: 'Número de referencia',
      required: true,
      hint: 'Los dígitos de la referencia bancaria',
      input_type: 'reference',
    },
    { index: 4, label: 'Fecha del pago', required: true, hint: 'AAAA-MM-DD', input_type: 'date' },
  ],
};

const zelle = {
  display: [
    { type: 'copy', index: 1, label: 'Correo Zelle', content: 'pagos@agua.example' },
    { type: 'copy', index: 2, label: 'Titular', content: 'Agua Express LLC' },
    {
      type: 'text',
      index: 3,
      label: 'Instrucciones',
      content: 'Envía el monto exacto en USD y reporta el código de confirmación de Zelle.',
    },
  ],
  fields: [
    {
      index: 1,
      label: 'Titular de la cuenta de origen',
      required: true,
      hint: 'Nombre como aparece en Zelle',
      input_type: 'text',
    },
    { index: 2, label: 'Correo de origen', required: true, hint: 'El correo registrado en Zelle', input_type: 'email' },
    {
      index: 3,
      label: 'Código de confirmación',
      required: true,
      hint: 'Aparece en el comprobante de Zelle',
      input_type: 'reference',
    },
    { index: 4, label: 'Fecha del pago', required: false, hint: 'AAAA-MM-DD', input_type: 'date' },
  ],
};

const binance = {
  display: [
    { type: 'copy', index: 1, label: 'Binance Pay ID', content: '123456789' },
    { type: 'copy', index: 2, label: 'Red', content: 'Binance Pay (USDT, sin comisión)' },
    {
      type: 'text',
      index: 3,
      label: 'Instrucciones',
      content: 'Envía el monto exacto en USDT por Binance Pay y reporta el ID de la orden.',
    },
  ],
  fields: [
    {
      index: 1,
      label: 'Usuario o Pay ID de origen',
      required: true,
      hint: 'Tu usuario de Binance',
      input_type: 'text',
    },
    {
      index: 2,
      label: 'ID de la orden de Binance Pay',
      required: true,
      hint: 'Aparece en el historial de Binance Pay',
      input_type: 'reference',
    },
  ],
};

export const paymentFormMigrations: Record<string, Migration> = {
  '0220_payment_forms': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE payment_forms (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name text NOT NULL,
        internal_name text NOT NULL UNIQUE,
        category text NOT NULL,
        currency text NOT NULL,
        icon text,
        display jsonb NOT NULL,
        fields jsonb NOT NULL,
        active boolean NOT NULL,
        sort_order integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
      await sql`CREATE INDEX payment_forms_listed ON payment_forms (sort_order, name, id) WHERE active`.execute(db);
      // A fresh install can take a manual payment in each currency.
      await sql`INSERT INTO payment_forms (name, internal_name, category, currency, icon, display, fields, active,
        sort_order) VALUES
        ('Pago Móvil', 'pago_movil_bdv', 'pago_movil', 'VES', 'pago-movil', ${json(pagoMovil.display)}::jsonb,
          ${json(pagoMovil.fields)}::jsonb, true, 10),
        ('Zelle', 'zelle', 'usd_transfer', 'USD', 'zelle', ${json(zelle.display)}::jsonb, ${json(zelle.fields)}::jsonb,
          true, 20),
        ('Binance Pay (USDT)', 'binance_pay_usdt', 'exchange', 'USDT', 'binance', ${json(binance.display)}::jsonb,
          ${json(binance.fields)}::jsonb, true, 30)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE payment_forms`.execute(db);
    },
  },
};

type Row = {
  id: number;
  name: string;
  internal_name: string;
  category: string;
  currency: string;
  icon: string | null;
  display: unknown;
  fields: unknown;
  active: boolean;
  sort_order: number;
  created_at: Date | string;
  updated_at: Date | string;
};

const byIndex = <T extends { index: number }>(xs: T[]): T[] => [...xs].sort((a, b) => a.index - b.index);
const parsed = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

export const formFromRow = (r: Row): PaymentForm => ({
  id: Number(r.id),
  name: r.name,
  internalName: r.internal_name,
  category: r.category as FormCategory,
  currency: r.currency as FormCurrency,
  icon: r.icon,
  display: byIndex(parsed<FormDisplayItem[]>(r.display)),
  fields: byIndex(parsed<FormField[]>(r.fields)),
  active: r.active,
  sortOrder: r.sort_order,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

export interface PaymentFormInput {
  name: string;
  internalName: string;
  category: FormCategory;
  currency: FormCurrency;
  icon: string | null;
  display: FormDisplayItem[];
  fields: FormField[];
  active: boolean;
  sortOrder: number;
}

/** internal_name is unique: a taken one (even by a concurrent create) comes back as 'taken'. */
const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';

/** The columns a patch changes; fields it leaves out keep their value. */
const columnsOf = (p: Partial<PaymentFormInput>) => ({
  ...(p.name !== undefined && { name: p.name }),
  ...(p.internalName !== undefined && { internal_name: p.internalName }),
  ...(p.category !== undefined && { category: p.category }),
  ...(p.currency !== undefined && { currency: p.currency }),
  ...(p.icon !== undefined && { icon: p.icon }),
  ...(p.display !== undefined && { display: json(p.display) }),
  ...(p.fields !== undefined && { fields: json(p.fields) }),
  ...(p.active !== undefined && { active: p.active }),
  ...(p.sortOrder !== undefined && { sort_order: p.sortOrder }),
});

export const createPaymentForm = async (db: Db, input: PaymentFormInput, at: Date): Promise<PaymentForm | 'taken'> => {
  try {
    const row = await db
      .insertInto('payment_forms')
      .values({
        name: input.name,
        internal_name: input.internalName,
        category: input.category,
        currency: input.currency,
        icon: input.icon,
        display: json(input.display),
        fields: json(input.fields),
        active: input.active,
        sort_order: input.sortOrder,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return formFromRow(row);
  } catch (err) {
    if (isUniqueViolation(err)) return 'taken';
    throw err;
  }
};

/** null when no form has this id. */
export const updatePaymentForm = async (
  db: Db,
  id: number,
  patch: Partial<PaymentFormInput>,
  at: Date,
): Promise<PaymentForm | null | 'taken'> => {
  try {
    const row = await db
      .updateTable('payment_forms')
      .set({ ...columnsOf(patch), updated_at: at })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row ? formFromRow(row) : null;
  } catch (err) {
    if (isUniqueViolation(err)) return 'taken';
    throw err;
  }
};

/** Active forms in the order customers see them: sort_order, then name. */
export const listActivePaymentForms = async (db: Db): Promise<PaymentForm[]> =>
  (
    await db
      .selectFrom('payment_forms')
      .selectAll()
      .where('active', '=', true)
      .orderBy('sort_order')
      .orderBy('name')
      .orderBy('id')
      .execute()
  ).map(formFromRow);

/** Every form, active or not, one page at a time in the customers' order. */
export const listPaymentForms = async (
  db: Db,
  page: { limit: number; page: number },
): Promise<{ items: PaymentForm[]; total: number }> => {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('payment_forms')
      .selectAll()
      .orderBy('sort_order')
      .orderBy('name')
      .orderBy('id')
      .limit(page.limit)
      .offset((page.page - 1) * page.limit)
      .execute(),
    db
      .selectFrom('payment_forms')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(formFromRow), total: Number(count.n) };
};
