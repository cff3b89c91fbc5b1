/** The settlement statement rules of domain/settlement.ts, without a store. */
import { describe, expect, it } from 'vitest';
import { PremiaError } from '../../src/domain/errors.js';
import { hashString32 } from '../../src/domain/hash.js';
import { validateDisputeRequest, validateMarkPaidRequest } from '../../src/domain/requests.js';
import {
  amountDue,
  checkDispute,
  checkMarkPaid,
  checkPeriodClosed,
  disputeReasonProblem,
  lastDisputeDate,
  noCollections,
  paymentDate,
  paymentDateOf,
  paymentReference,
  settlementExists,
  settlementNumber,
  type StatementState,
} from '../../src/domain/settlement.js';
import { asCents } from '../../src/domain/money.js';

/** The error a rule throws (fails the test when it throws none). */
function thrown(fn: () => void): PremiaError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PremiaError);
    return e as PremiaError;
  }
  throw new Error('expected the rule to refuse');
}

const pending: StatementState = {
  settlement_number: 'SETTLE-2026-11-001',
  period_month: '2026-11',
  status: 'pending',
  payment_date: '2026-12-03',
  created_at: '2026-11-30T16:02:11.000Z',
  superseded_by: null,
};

describe('numbers and dates', () => {
  it('numbers statements SETTLE-YYYY-MM-NNN', () => {
    expect(settlementNumber('2026-11', 1)).toBe('SETTLE-2026-11-001');
    expect(settlementNumber('2027-01', 12)).toBe('SETTLE-2027-01-012');
  });

  it('a first statement is due on the 3rd of the next month', () => {
    expect(paymentDate('2026-11')).toBe('2026-12-03');
    expect(paymentDate('2026-12')).toBe('2027-01-03');
    expect(paymentDateOf('2026-11', 1, '2027-05-20')).toBe('2026-12-03');
  });

  it('a regenerated statement is due on the first 3rd after the day it is made, never before the period\'s own date', () => {
    expect(paymentDate('2026-11', '2026-12-01')).toBe('2026-12-03');
    expect(paymentDate('2026-11', '2026-12-02')).toBe('2026-12-03');
    expect(paymentDate('2026-11', '2026-12-03')).toBe('2027-01-03');
    expect(paymentDate('2026-11', '2027-02-15')).toBe('2027-03-03');
    expect(paymentDateOf('2026-11', 2, '2027-02-15')).toBe('2027-03-03');
  });

  it('the dispute window runs 30 days from the payment date', () => {
    expect(lastDisputeDate('2026-12-03')).toBe('2027-01-02');
    expect(lastDisputeDate('2027-02-03')).toBe('2027-03-05');
  });

  it('the EFT reference: PRM, YYMM, NNN and a check code; the same inputs give the same reference', () => {
    const salt = hashString32('premia-ids:1'); // the id salt of a store made with --seed 1
    // The references `premia settlements create` gives the local client with --seed 1 (test/cli/settlements.test.ts).
    expect(paymentReference(salt, 1, 'SETTLE-2026-11-001', '2026-11', 1)).toBe('PRM2611001-28KTXAGP');
    expect(paymentReference(salt, 1, 'SETTLE-2026-11-002', '2026-11', 2)).toBe('PRM2611002-FEPF9Z3H');
    const again = paymentReference(salt, 1, 'SETTLE-2026-11-001', '2026-11', 1, 1);
    expect(again).toMatch(/^PRM2611001-[0-9A-HJKMNP-TV-Z]{8}$/);
    expect(again).not.toBe('PRM2611001-28KTXAGP');
  });

  it('the amount due nets out what was paid before, and may be negative', () => {
    expect(amountDue(asCents(82994), asCents(0))).toBe(82994);
    expect(amountDue(asCents(80000), asCents(82994))).toBe(-2994);
  });
});

describe('when a statement may be made', () => {
  it('once the period\'s last day has run', () => {
    expect(() => checkPeriodClosed('2026-11', '2026-11-30')).not.toThrow();
    const e = thrown(() => checkPeriodClosed('2026-11', '2026-11-29'));
    expect([e.code, e.status, e.exitCode]).toEqual(['PERIOD_OPEN', 409, 6]);
    expect(e.message).toBe(
      'Period 2026-11 is still open: its last day 2026-11-30 has not run (the clock is at 2026-11-29). Create the settlement once the clock has reached 2026-11-30.',
    );
    // A month not begun, or with no run queued, is not called "still open" alone.
    expect(thrown(() => checkPeriodClosed('2026-12', '2026-11-29')).message).toBe(
      'Period 2026-12 has not begun (the clock is at 2026-11-29). Create the settlement once the clock has reached 2026-12-31.',
    );
    expect(thrown(() => checkPeriodClosed('2027-01', '2026-11-29', false)).message).toBe(
      'Period 2027-01 has not begun (the clock is at 2026-11-29), and no collections run has been queued for it yet. Create the settlement once the clock has reached 2027-01-31.',
    );
    expect(thrown(() => checkPeriodClosed('2026-11', '2026-11-29', false)).message).toBe(
      'Period 2026-11 is still open: its last day 2026-11-30 has not run (the clock is at 2026-11-29), and no collections run has been queued for it yet. Create the settlement once the clock has reached 2026-11-30.',
    );
  });

  it('one live statement per period; a period never executed has none to make', () => {
    const e = settlementExists({ id: 'abc', settlement_number: 'SETTLE-2026-11-001', status: 'paid', period_month: '2026-11' });
    expect(e.code).toBe('SETTLEMENT_EXISTS');
    expect(e.message).toContain('Period 2026-11 already has settlement SETTLE-2026-11-001 (id abc, paid).');
    expect(e.details).toEqual([{ id: 'abc', settlement_number: 'SETTLE-2026-11-001', status: 'paid', period_month: '2026-11' }]);
    expect(noCollections('2026-07').message).toBe("Period 2026-07 has no collections: it was never executed, so there is nothing to settle (a period's collections can only be queued before its last day, 2026-07-31, has run).");
  });
});

describe('status moves', () => {
  it('pending → paid; paid and disputed cannot be paid', () => {
    expect(() => checkMarkPaid(pending)).not.toThrow();
    const paid = thrown(() => checkMarkPaid({ ...pending, status: 'paid' }));
    expect([paid.code, paid.exitCode]).toEqual(['INVALID_TRANSITION', 6]);
    expect(paid.message).toBe('Settlement SETTLE-2026-11-001 is paid and cannot become paid; from paid it can become disputed.');
    expect(thrown(() => checkMarkPaid({ ...pending, status: 'disputed' })).message).toBe(
      'Settlement SETTLE-2026-11-001 is disputed and cannot become paid; from disputed it can become nothing (a disputed statement is final; create a new one for the period).',
    );
  });

  it('pending and paid → disputed up to the last day of the window, not after', () => {
    expect(() => checkDispute(pending, '2027-01-02')).not.toThrow();
    expect(() => checkDispute({ ...pending, status: 'paid' }, '2026-12-20')).not.toThrow();
    const late = thrown(() => checkDispute({ ...pending, status: 'paid' }, '2027-01-03'));
    expect([late.code, late.exitCode]).toEqual(['DISPUTE_WINDOW_CLOSED', 6]);
    expect(late.message).toBe(
      'The dispute window of SETTLE-2026-11-001 closed on 2027-01-02 (30 days after its payment date 2026-12-03); the clock is at 2027-01-03. Raise the matter with the operator.',
    );
    // Made after its payment date (the period settled late): the window runs from the day it was made.
    const madeLate = { ...pending, status: 'paid' as const, created_at: '2027-02-01T09:00:00.000Z' };
    expect(lastDisputeDate('2026-12-03', '2027-02-01')).toBe('2027-03-03');
    expect(lastDisputeDate('2026-12-03', '2026-11-30')).toBe('2027-01-02');
    expect(() => checkDispute(madeLate, '2027-02-10')).not.toThrow();
    expect(() => checkDispute(madeLate, '2027-03-03')).not.toThrow();
    expect(thrown(() => checkDispute(madeLate, '2027-03-04')).message).toBe(
      'The dispute window of SETTLE-2026-11-001 closed on 2027-03-03 (30 days after the day it was made, 2027-02-01, after its payment date 2026-12-03); the clock is at 2027-03-04. Raise the matter with the operator.',
    );
    const twice = thrown(() => checkDispute({ ...pending, status: 'disputed' }, '2026-12-20'));
    expect(twice.code).toBe('INVALID_TRANSITION');
    expect(twice.message).toContain('from disputed it can become nothing');
  });

  it('a superseded statement names the one that replaced it', () => {
    const superseded = { ...pending, status: 'disputed' as const, superseded_by: 'SETTLE-2026-11-002' };
    const pay = thrown(() => checkMarkPaid(superseded));
    expect(pay.message).toBe(
      'Settlement SETTLE-2026-11-001 is disputed and cannot become paid: it was superseded by SETTLE-2026-11-002, which nets out what was already paid for 2026-11. Pay or record that one instead.',
    );
    expect(pay.details).toEqual([{ field: 'status', from: 'disputed', to: 'paid', settlement_number: 'SETTLE-2026-11-001', superseded_by: 'SETTLE-2026-11-002' }]);
    expect(thrown(() => checkDispute(superseded, '2026-12-20')).message).toContain('Dispute that one instead.');
  });
});

describe('inputs of the moves (one definition for the CLI, the server and the local backend)', () => {
  it('a dispute reason: trimmed, 1–500 characters, on one line', () => {
    expect(validateDisputeRequest({ reason: '  Net short by 0.01 ' })).toEqual({ reason: 'Net short by 0.01' });
    expect(disputeReasonProblem('one line')).toBeNull();
    const e = thrown(() => validateDisputeRequest({ reason: 'two\nlines' }));
    expect(e.message).toBe('The dispute reason has a control character (such as a line break); write it on one line.');
    expect(e.details).toEqual([{ field: 'reason', code: 'INVALID_VALUE', message: 'has a control character (such as a line break); write it on one line' }]);
    expect(thrown(() => validateDisputeRequest({ reason: 'x'.repeat(501) })).details).toEqual([
      { field: 'reason', code: 'TOO_LONG', message: 'reason is 501 characters long; at most 500 are allowed' },
    ]);
  });

  it('a payment reference: 1–35 of A-Z 0-9 - /', () => {
    expect(validateMarkPaidRequest({ reference: 'EFT-2026/12-0001' })).toEqual({ reference: 'EFT-2026/12-0001' });
    expect(validateMarkPaidRequest({})).toEqual({});
    expect(thrown(() => validateMarkPaidRequest({ reference: 'eft ref' })).details).toEqual([
      { field: 'reference', code: 'INVALID_FORMAT', message: 'reference "eft ref" is not valid; a payment reference is 1–35 of A-Z, 0-9, - and /' },
    ]);
    expect(thrown(() => validateMarkPaidRequest({ reference: 'A'.repeat(36) })).details?.[0]).toMatchObject({ code: 'TOO_LONG' });
  });
});
