import { sql, type Kysely, type Migration } from 'kysely';
import type { Db } from '../../infra/db/database.js';

/**
 * The catalogue of payment methods a customer may choose (state-stored). The codes are fixed by the
 * spec; admins only switch a method on or off.
 */
export type PaymentMethodCode = 'CASH_USD' | 'EXCHANGE_PAY' | 'PAYPROV_DI' | 'PAYMENT_FORM' | 'PAGO_MOVIL';
/** cash: collected by the driver; online: confirmed by a provider; form: reported by hand, approved by an admin. */
export type PaymentMethodKind = 'cash' | 'online' | 'form';

export interface PaymentMethod {
  code: PaymentMethodCode;
  name: string;
  kind: PaymentMethodKind;
  active: boolean;
}

declare module '../../infra/db/database.js' {
  interface Database {
    payment_methods: { code: string; name: string; kind: string; active: boolean; sort_order: number };
  }
}

export const paymentMethodMigrations: Record<string, Migration> = {
  '0210_payment_methods': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE payment_methods (
        code text PRIMARY KEY,
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('cash', 'online', 'form')),
        active boolean NOT NULL,
        sort_order integer NOT NULL
      )`.execute(db);
      // PAGO_MOVIL is a provider-confirmed method with no provider yet: it ships inactive, and manual Pago
      // Móvil payments use the PAYMENT_FORM forms of category pago_movil (docs/decisions/0012-reference-data.md).
      await sql`INSERT INTO payment_methods (code, name, kind, active, sort_order) VALUES
        ('CASH_USD', 'Efectivo (USD)', 'cash', true, 10),
        ('EXCHANGE_PAY', 'Billetera de exchange', 'online', true, 20),
        ('PAYPROV_DI', 'Débito inmediato', 'online', true, 30),
        ('PAYMENT_FORM', 'Pago manual (formulario)', 'form', true, 40),
        ('PAGO_MOVIL', 'Pago Móvil', 'online', false, 50)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`DROP TABLE payment_methods`.execute(db);
    },
  },
};

export const toMethod = (r: { code: string; name: string; kind: string; active: boolean }): PaymentMethod => ({
  code: r.code as PaymentMethodCode,
  name: r.name,
  kind: r.kind as PaymentMethodKind,
  active: r.active,
});

export const listPaymentMethods = async (db: Db): Promise<PaymentMethod[]> =>
  (
    await db.selectFrom('payment_methods').select(['code', 'name', 'kind', 'active']).orderBy('sort_order').execute()
  ).map(toMethod);

/** Switches a method on or off; null when the code is unknown. */
export const setPaymentMethodActive = async (db: Db, code: string, active: boolean): Promise<PaymentMethod | null> => {
  const row = await db
    .updateTable('payment_methods')
    .set({ active })
    .where('code', '=', code)
    .returning(['code', 'name', 'kind', 'active'])
    .executeTakeFirst();
  return row ? toMethod(row) : null;
};
