/**
 * settlements create on another server's statement: what premia points out before anyone pays
 * it (statementWarnings): no id to read it again by, figures off the spec's fee rule by more than
 * a cent. premia's own statements (the worked example of docs/settlements.md) warrant neither.
 */
import { describe, expect, it } from 'vitest';
import type { Settlement } from '../../src/backend/types.js';
import { statementWarnings } from '../../src/cli/commands/settlements/create.js';
import type { Cents } from '../../src/domain/money.js';

const c = (n: number) => n as Cents;

/** The worked example: total 1234.57 → fees 308.64 + 43.21 = 351.85, VAT 52.78, net 829.94. */
const STATEMENT = {
  id: 'b1c2d3e4-0000-4000-8000-000000000001',
  settlement_number: 'SETTLE-2026-11-001',
  period_month: '2026-11',
  total_collections: c(123457),
  distribution_fee: c(30864),
  collections_fee: c(4321),
  total_fees: c(35185),
  vat: c(5278),
  net_amount: c(82994),
  payment_date: '2026-12-03',
  status: 'pending',
} as unknown as Settlement;

describe('statementWarnings', () => {
  it('none for a statement that follows the rule, nor for a cent of rounding either way', () => {
    expect(statementWarnings(STATEMENT)).toEqual([]);
    expect(statementWarnings({ ...STATEMENT, vat: c(5277), net_amount: c(82995) })).toEqual([]);
  });

  it('names each figure that is off, with what the rule gives', () => {
    expect(statementWarnings({ ...STATEMENT, net_amount: c(99999) })).toEqual([
      "the statement's figures do not follow the fee rule (25 % + 3.5 % of 1,234.57, 15 % VAT on the fees): net_amount 999.99 (the rule gives 829.94). Check them with the service before paying.",
    ]);
  });

  it('says when the figures do not add up, though each is within a cent of the rule (spec rules 3 and 5 round nothing)', () => {
    // VAT a cent down with the net unchanged: 351.85 + 52.77 + 829.94 = 1234.56, a cent short.
    expect(statementWarnings({ ...STATEMENT, vat: c(5277) })).toEqual([
      'the statement does not add up: net_amount 829.94 is not total_collections − total_fees − vat (829.95). Check it with the service before paying.',
    ]);
    // Total fees a cent above the two fees, and the net following it.
    expect(statementWarnings({ ...STATEMENT, total_fees: c(35186), net_amount: c(82993) })).toEqual([
      'the statement does not add up: total_fees 351.86 is not distribution_fee + collections_fee (351.85). Check it with the service before paying.',
    ]);
    expect(statementWarnings({ ...STATEMENT, previously_paid: c(80000), net_amount: c(2995) })).toEqual([
      'the statement does not add up: net_amount 29.95 is not total_collections − total_fees − vat − previously_paid (29.94). Check it with the service before paying.',
    ]);
  });

  it('a regenerated statement nets out what was paid before', () => {
    expect(statementWarnings({ ...STATEMENT, previously_paid: c(80000), net_amount: c(2994) })).toEqual([]);
  });

  it('says when the service gave no id', () => {
    expect(statementWarnings({ ...STATEMENT, id: undefined as unknown as string })).toEqual([
      "the service gave no id for SETTLE-2026-11-001: 'settlements get' and 'export' take its id on a server that implements only the spec; ask the service's operator for it.",
    ]);
  });
});
