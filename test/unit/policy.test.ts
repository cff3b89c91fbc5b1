import { describe, expect, it } from 'vitest';
import { PremiaError } from '../../src/domain/errors.js';
import {
  checkTransition,
  isPolicyStatus,
  POLICY_STATUSES,
  validatePolicyInput,
  validatePolicyPatch,
  type PolicyStatus,
} from '../../src/domain/policy.js';

/** Run fn and return the PremiaError it throws (failing the test when it does not throw one). */
function thrown(fn: () => unknown): PremiaError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PremiaError);
    return e as PremiaError;
  }
  throw new Error('expected a PremiaError, nothing was thrown');
}

describe('policy status transitions', () => {
  // The whole table: every (from, to) pair of the three statuses.
  const table: Array<[PolicyStatus, PolicyStatus, 'change' | 'noop' | 'INVALID']> = [
    ['active', 'active', 'noop'],
    ['active', 'lapsed', 'change'],
    ['active', 'cancelled', 'change'],
    ['lapsed', 'active', 'change'], // reinstatement
    ['lapsed', 'lapsed', 'noop'],
    ['lapsed', 'cancelled', 'change'],
    ['cancelled', 'active', 'INVALID'],
    ['cancelled', 'lapsed', 'INVALID'],
    ['cancelled', 'cancelled', 'noop'],
  ];

  it('covers every pair of statuses', () => {
    expect(table.length).toBe(POLICY_STATUSES.length ** 2);
  });

  it.each(table)('%s → %s: %s', (from, to, outcome) => {
    if (outcome === 'INVALID') {
      const e = thrown(() => checkTransition(from, to, 'POL-1'));
      expect(e.code).toBe('INVALID_TRANSITION');
      expect(e.status).toBe(409);
      expect(e.exitCode).toBe(6);
      expect(e.details).toEqual([{ field: 'status', from, to }]);
    } else {
      expect(checkTransition(from, to, 'POL-1')).toBe(outcome);
    }
  });

  it('says why a cancelled policy cannot move', () => {
    const e = thrown(() => checkTransition('cancelled', 'active', 'POL-7'));
    expect(e.message).toBe(
      "Policy POL-7 cannot move from 'cancelled' to 'active': a cancelled policy is final; create a new policy instead.",
    );
    expect(e.toBody('req_1')).toEqual({
      error: {
        code: 'INVALID_TRANSITION',
        message: e.message,
        request_id: 'req_1',
        details: [{ field: 'status', from: 'cancelled', to: 'active' }],
      },
    });
  });

  it('isPolicyStatus', () => {
    expect(POLICY_STATUSES).toEqual(['active', 'lapsed', 'cancelled']);
    expect(['active', 'lapsed', 'cancelled'].every(isPolicyStatus)).toBe(true);
    expect(['ACTIVE', 'canceled', '', null, 1].some(isPolicyStatus)).toBe(false);
  });
});

describe('validatePolicyInput', () => {
  const valid = {
    policy_number: 'POL-1',
    customer_id: 'C1',
    external_customer_ref: 'ACME-1',
    product_code: 'FUNERAL',
    collection_amount: '149.5',
  };

  it('returns the trimmed fields with the amount in cents', () => {
    expect(validatePolicyInput({ ...valid, customer_id: '  C1 ', collection_amount: 149.5 })).toEqual({
      policy_number: 'POL-1',
      customer_id: 'C1',
      external_customer_ref: 'ACME-1',
      product_code: 'FUNERAL',
      collection_amount: 14950,
    });
  });

  it('an empty body lists every required field', () => {
    const e = thrown(() => validatePolicyInput({}));
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.status).toBe(400);
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(
      'The policy is not valid: 5 problems (policy_number, customer_id, external_customer_ref, product_code, collection_amount); see details.',
    );
    expect(e.details).toEqual([
      { field: 'policy_number', code: 'REQUIRED', message: 'policy_number is required' },
      { field: 'customer_id', code: 'REQUIRED', message: 'customer_id is required' },
      { field: 'external_customer_ref', code: 'REQUIRED', message: 'external_customer_ref is required' },
      { field: 'product_code', code: 'REQUIRED', message: 'product_code is required' },
      { field: 'collection_amount', code: 'REQUIRED', message: 'collection_amount is required; give a premium like 149.50' },
    ]);
  });

  it('reports wrong types, bad formats, bad amounts and unknown fields together', () => {
    const e = thrown(() =>
      validatePolicyInput({
        policy_number: 42,
        customer_id: 'C 1',
        external_customer_ref: '=cmd',
        product_code: 'funeral',
        collection_amount: '1.005',
        colour: 'blue',
      }),
    );
    expect(e.details).toEqual([
      { field: 'policy_number', code: 'INVALID_TYPE', message: 'policy_number must be a string' },
      {
        field: 'customer_id',
        code: 'INVALID_FORMAT',
        message: "customer_id 'C 1' has a space at position 2; only letters, digits and - _ . / are allowed",
      },
      {
        field: 'external_customer_ref',
        code: 'INVALID_FORMAT',
        message: "external_customer_ref '=cmd' has '=' at position 1; only letters, digits and - _ . / are allowed",
      },
      { field: 'product_code', code: 'INVALID_FORMAT', message: "product_code 'funeral' must be upper case (A-Z 0-9 _ -)" },
      { field: 'collection_amount', code: 'INVALID_AMOUNT', message: "collection_amount '1.005' has more than two decimals" },
      { field: 'colour', code: 'UNKNOWN_FIELD', message: 'colour is not a field of a policy' },
    ]);
  });

  it('one problem: the message is that problem', () => {
    const e = thrown(() => validatePolicyInput({ ...valid, collection_amount: 0 }));
    expect(e.message).toBe("The policy is not valid: collection_amount '0' must be greater than 0.00.");
    expect(e.details).toEqual([
      { field: 'collection_amount', code: 'AMOUNT_OUT_OF_RANGE', message: "collection_amount '0' must be greater than 0.00" },
    ]);
  });
});

describe('validatePolicyPatch', () => {
  it.each([
    [{ collection_amount: '210' }, { collection_amount: 21000 }],
    [{ collection_amount: 149.5 }, { collection_amount: 14950 }],
    [{ status: 'lapsed' }, { status: 'lapsed' }],
    [{ collection_amount: '1.00', status: 'cancelled' }, { collection_amount: 100, status: 'cancelled' }],
  ])('accepts %j', (raw, patch) => {
    expect(validatePolicyPatch(raw)).toEqual(patch);
  });

  it.each([
    [{}, 'The update is not valid: give collection_amount, status, or both.', [{ field: 'body', code: 'REQUIRED', message: 'give collection_amount, status, or both' }]],
    [
      { status: 'closed' },
      'The update is not valid: status must be one of active, lapsed, cancelled; got "closed".',
      [{ field: 'status', code: 'INVALID_VALUE', message: 'status must be one of active, lapsed, cancelled; got "closed"' }],
    ],
    [
      { collection_amount: '-5' },
      "The update is not valid: collection_amount '-5' is negative; it must be greater than 0.00.",
      [{ field: 'collection_amount', code: 'AMOUNT_OUT_OF_RANGE', message: "collection_amount '-5' is negative; it must be greater than 0.00" }],
    ],
    [
      { collection_amount: '1.001', policy_number: 'X' },
      'The update is not valid: 2 problems (collection_amount, policy_number); see details.',
      [
        { field: 'collection_amount', code: 'INVALID_AMOUNT', message: "collection_amount '1.001' has more than two decimals" },
        { field: 'policy_number', code: 'UNKNOWN_FIELD', message: 'policy_number cannot be updated; only collection_amount and status can' },
      ],
    ],
  ])('rejects %j', (raw, message, details) => {
    const e = thrown(() => validatePolicyPatch(raw));
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(message);
    expect(e.details).toEqual(details);
  });
});
