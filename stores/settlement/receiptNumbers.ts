import { sql } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import './settlementTables.js';

/**
 * The receipt number: sequential per fiscal period and fixed per receipt id, so a cutoff that crashed
 * after numbering and runs again reuses the number. A state-stored counter (unique per period and per
 * receipt): two allocations racing for the next number retry on the unique violation.
 */
export const receiptNumberOf = async (db: Db, receiptId: string, fiscalPeriod: string): Promise<string> => {
  for (let attempt = 0; ; attempt++) {
    const known = await db
      .selectFrom('settlement_receipt_numbers')
      .select('seq')
      .where('receipt_id', '=', receiptId)
      .executeTakeFirst();
    if (known) return `${fiscalPeriod}-${String(known.seq).padStart(6, '0')}`;
    try {
      const { rows } = await sql<{
        seq: number;
      }>`INSERT INTO settlement_receipt_numbers (receipt_id, fiscal_period, seq)
        SELECT ${receiptId}, ${fiscalPeriod}, COALESCE(MAX(seq), 0) + 1 FROM settlement_receipt_numbers
        WHERE fiscal_period = ${fiscalPeriod}
        ON CONFLICT (receipt_id) DO NOTHING RETURNING seq`.execute(db);
      if (rows[0]) return `${fiscalPeriod}-${String(rows[0].seq).padStart(6, '0')}`;
    } catch (err) {
      if ((err as { code?: string }).code !== '23505' || attempt > 20) throw err;
    }
  }
};
