import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEDGER_TYPES, type LedgerEntryRecordedData, type WalletEvent } from './events.js';
import { decide, evolve, initialState, type WalletCommand, type WalletState } from './wallet.js';

const now = new Date('2026-03-01T12:00:00Z');

/** Causes come from a small pool, so the same cause and type arrive many times (redeliveries). */
const entryCommand = fc.record({
  cause: fc.integer({ min: 1, max: 12 }),
  ledgerType: fc.constantFrom(...LEDGER_TYPES),
  direction: fc.constantFrom('CREDIT' as const, 'DEBIT' as const),
  amountCents: fc.integer({ min: 1, max: 500_000 }),
});

describe('wallet invariants (property)', () => {
  it(
    'Σ credits − debits = balance, every running balance follows ' +
      'the previous one, a cause never has two entries of one type',
    () => {
      fc.assert(
        fc.property(fc.array(entryCommand, { maxLength: 120 }), (cmds) => {
          let s: WalletState = initialState;
          const log: WalletEvent[] = [];
          cmds.forEach((c, i) => {
            const cmd: WalletCommand = {
              type: 'RecordEntry',
              driverId: 3,
              entryId: `entry-${i}`,
              ledgerType: c.ledgerType,
              direction: c.direction,
              amountCents: c.amountCents,
              orderId: null,
              receiptId: null,
              exchangeRateAmount: null,
              description: 'x',
              causeId: `cause-${c.cause}`,
              now,
            };
            const events = decide(cmd, s);
            log.push(...events);
            s = events.reduce(evolve, s);
          });
          const entries = log
            .filter((e) => e.type === 'LedgerEntryRecorded')
            .map((e) => e.data as LedgerEntryRecordedData);
          let running = 0;
          for (const e of entries) {
            running += e.direction === 'CREDIT' ? e.amountCents : -e.amountCents;
            expect(e.balanceAfterCents).toBe(running);
          }
          expect(s.balanceCents).toBe(running);
          const keys = entries.map((e) => `${e.causeId}/${e.type}`);
          expect(new Set(keys).size).toBe(keys.length);
          expect(new Set(keys)).toEqual(new Set(cmds.map((c) => `cause-${c.cause}/${c.ledgerType}`)));
          expect(log.filter((e) => e.type === 'WalletOpened')).toHaveLength(cmds.length ? 1 : 0);
        }),
        { numRuns: 300, seed: 20261123 },
      );
    },
  );
});
