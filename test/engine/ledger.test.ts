import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ImportedAccount, type ImportedRow } from '../../src/bank/imported.js';
import { Ledger, type DayFacts, type PremiaDebits } from '../../src/bank/ledger.js';
import type { FailureReason } from '../../src/bank/types.js';
import { dayNumber } from '../../src/domain/period.js';

const D = dayNumber('2026-11-10');
const row = (offset: number, amount: number, description = 'X'): ImportedRow => ({ day: D + offset, amount, description });

/** premia's debits for each call, and the balances it was shown. */
function debitsOf(...perDay: number[][]): PremiaDebits & { seen: number[] } {
  let call = 0;
  const seen: number[] = [];
  return {
    seen,
    debitsFor(balance, _day, amounts) {
      seen.push(balance);
      const list = perDay[call++] ?? [];
      list.forEach((a, i) => (amounts[i] = a));
      return list.length;
    },
  };
}

const newFacts = (): DayFacts => ({ credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 });

function liveOneDay(rows: ImportedRow[], debits: number[], opening = 0) {
  const ledger = new Ledger(new ImportedAccount(rows), D - 1, opening);
  const outcomes: Array<FailureReason | null> = [];
  const premia = debitsOf(debits);
  const facts = ledger.live(premia, outcomes, newFacts());
  return { ledger, outcomes: outcomes.slice(0, facts.premiaDebits), balanceSeenByPremia: premia.seen[0], facts: { ...facts } };
}

describe('the account rules of a day', () => {
  it("credits post first, then premia's debits in order, then other debits in file order", () => {
    const r = liveOneDay([row(0, -300), row(0, 1000), row(0, -500)], [400, 700], 200);
    // 200 + 1000 credit = 1200 seen by premia; 400 ok (800), 700 ok (100); then -300 declined, -500 declined.
    expect(r.balanceSeenByPremia).toBe(1200);
    expect(r.outcomes).toEqual([null, null]);
    expect(r.ledger.balance).toBe(100);
    expect(r.facts).toEqual({ credits: 1000, postedDebits: 0, collected: 1100, premiaDebits: 2 });
  });

  it('a premia debit above the balance fails with INSUFFICIENT_FUNDS and takes nothing', () => {
    const r = liveOneDay([row(0, 500)], [600, 450]);
    expect(r.outcomes).toEqual(['INSUFFICIENT_FUNDS', null]);
    expect(r.ledger.balance).toBe(50);
  });

  it('other debits are declined (skipped) when they exceed the balance at that moment, and later smaller ones still post', () => {
    const r = liveOneDay([row(0, 1000), row(0, -800), row(0, -300), row(0, -200)], []);
    expect(r.ledger.balance).toBe(0);
    expect(r.facts.postedDebits).toBe(1000); // 800 + 200; the 300 was declined
  });

  it('events hold from their date on, with precedence closed > frozen > stopped', () => {
    const rows = [row(0, 10_000), row(2, 0, 'PAYMENT_STOPPED'), row(4, 0, 'ACCOUNT_FROZEN'), row(6, 0, 'ACCOUNT_CLOSED')];
    const ledger = new Ledger(new ImportedAccount(rows), D - 1, 0);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((k) => ledger.blockedOn(D + k))).toEqual([
      null,
      null,
      'PAYMENT_STOPPED',
      'PAYMENT_STOPPED',
      'ACCOUNT_FROZEN',
      'ACCOUNT_FROZEN',
      'ACCOUNT_CLOSED',
      'ACCOUNT_CLOSED',
    ]);
    const outcomes: Array<FailureReason | null> = [];
    const premia = debitsOf([100], [], [100]);
    ledger.live(premia, outcomes, newFacts()); // day 0
    expect(outcomes.slice(0, 1)).toEqual([null]);
    ledger.live(premia, outcomes, newFacts()); // day 1
    const f = ledger.live(premia, outcomes, newFacts()); // day 2: stopped, even with money there
    expect(outcomes.slice(0, f.premiaDebits)).toEqual(['PAYMENT_STOPPED']);
    expect(ledger.balance).toBe(9_900);
  });

  it('the balance is 0 before the first transaction', () => {
    const ledger = new Ledger(new ImportedAccount([row(3, 500)]), D - 1, 0);
    const outcomes: Array<FailureReason | null> = [];
    ledger.live(debitsOf([1]), outcomes, newFacts());
    expect(outcomes.slice(0, 1)).toEqual(['INSUFFICIENT_FUNDS']);
  });

  it('the balance never goes below zero, whatever the day brings (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ offset: fc.integer({ min: 0, max: 9 }), amount: fc.integer({ min: -50_000, max: 50_000 }) }), { maxLength: 60 }),
        fc.array(fc.array(fc.integer({ min: 1, max: 40_000 }), { maxLength: 3 }), { minLength: 10, maxLength: 10 }),
        (txns, premia) => {
          const rows = txns.filter((t) => t.amount !== 0).map((t) => row(t.offset, t.amount));
          const ledger = new Ledger(new ImportedAccount(rows), D - 1, 0);
          const outcomes: Array<FailureReason | null> = [];
          const supplier = debitsOf(...premia);
          for (let k = 0; k < 10; k++) {
            ledger.live(supplier, outcomes, newFacts());
            expect(ledger.balance).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
