import { describe, expect, it } from 'vitest';
import { PremiaError } from '../../src/domain/errors.js';
import {
  validateAdvanceRequest,
  validateExecuteRequest,
  validateMarkPaidRequest,
  validatePolicyListQuery,
  validateReportQuery,
  validateSeedRequest,
} from '../../src/domain/requests.js';

function problems(fn: () => unknown): Array<[string, string]> {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PremiaError);
    expect((e as PremiaError).code).toBe('VALIDATION_ERROR');
    return ((e as PremiaError).details as any[]).map((d) => [d.field, d.code]);
  }
  return [];
}

describe('request validators (shared by the CLI and the server)', () => {
  it('execute: period required, policy_ids trimmed, strategy optional', () => {
    expect(validateExecuteRequest({ period_month: '2026-11', policy_ids: [' POL-1 ', 'POL-2'] })).toEqual({ period_month: '2026-11', policy_ids: ['POL-1', 'POL-2'] });
    expect(validateExecuteRequest({ period_month: '2026-11', strategy: 'income_aware' })).toEqual({ period_month: '2026-11', strategy: 'income_aware' });
    expect(problems(() => validateExecuteRequest({ period_month: '2026-00', policy_ids: 'POL-1' }))).toEqual([
      ['period_month', 'INVALID_FORMAT'],
      ['policy_ids', 'INVALID_TYPE'],
    ]);
  });

  it('advance: exactly one of days, to, to_month_end', () => {
    expect(validateAdvanceRequest({ days: 0 })).toEqual({ days: 0 });
    expect(validateAdvanceRequest({ days: 3660 })).toEqual({ days: 3660 });
    expect(problems(() => validateAdvanceRequest({ days: -1 }))).toEqual([['days', 'INVALID_VALUE']]);
    expect(validateAdvanceRequest({ to: '2026-12-31' })).toEqual({ to: '2026-12-31' });
    expect(problems(() => validateAdvanceRequest({ days: 3661 }))).toEqual([['days', 'INVALID_VALUE']]);
    expect(problems(() => validateAdvanceRequest({ to: '2026-12-31', to_month_end: true }))).toEqual([['body', 'CONFLICTING_FIELDS']]);
  });

  it('mark-paid, seed, queries', () => {
    expect(validateMarkPaidRequest({})).toEqual({});
    expect(validateMarkPaidRequest({ reference: 'EFT-1/2' })).toEqual({ reference: 'EFT-1/2' });
    expect(problems(() => validateMarkPaidRequest({ reference: 'X'.repeat(36) }))).toEqual([['reference', 'TOO_LONG']]);
    expect(validateSeedRequest({ seed: 0 })).toEqual({ seed: 0 });
    expect(problems(() => validateSeedRequest({ seed: 1_000_000_000 }))).toEqual([['seed', 'INVALID_VALUE']]);
    expect(validatePolicyListQuery({ limit: '10000', status: 'active', after: 'P-1' })).toEqual({ limit: 10000, status: 'active', after: 'P-1' });
    expect(problems(() => validatePolicyListQuery({ limit: '10001' }))).toEqual([['limit', 'INVALID_VALUE']]);
    expect(validateReportQuery({ period_month: '2026-11' })).toEqual({ period_month: '2026-11', format: 'csv' });
  });
});
