/** Policy status rules (spec 3.1, completed by the foundation issue). */
import { conflict, validationError, type FieldError, type PremiaError } from './errors.js';
import { apiKeyProblem, checkIdentifier, checkProductCode, endpointNameProblem } from './identifiers.js';
import { premiumFromInput, type Cents } from './money.js';
import { fieldName, showValue } from './show.js';

export const POLICY_STATUSES = ['active', 'lapsed', 'cancelled'] as const;
export type PolicyStatus = (typeof POLICY_STATUSES)[number];

export function isPolicyStatus(s: unknown): s is PolicyStatus {
  return typeof s === 'string' && (POLICY_STATUSES as readonly string[]).includes(s);
}

const ALLOWED: Record<PolicyStatus, readonly PolicyStatus[]> = {
  active: ['lapsed', 'cancelled'],
  lapsed: ['active', 'cancelled'], // lapsed → active is a reinstatement
  cancelled: [], // final
};

export type TransitionOutcome = 'change' | 'noop';

/**
 * Decide a status move. Setting the current status again is a no-op; any move the table
 * above does not allow is a CONFLICT with code INVALID_TRANSITION.
 */
export function checkTransition(from: PolicyStatus, to: PolicyStatus, policyNumber: string): TransitionOutcome {
  if (from === to) return 'noop';
  if (ALLOWED[from].includes(to)) return 'change';
  throw invalidTransition(from, to, policyNumber);
}

function invalidTransition(from: PolicyStatus, to: PolicyStatus, policyNumber: string): PremiaError {
  const why =
    from === 'cancelled'
      ? 'a cancelled policy is final; create a new policy instead'
      : `allowed from '${from}': ${ALLOWED[from].join(', ')}`;
  return conflict('INVALID_TRANSITION', `Policy ${policyNumber} cannot move from '${from}' to '${to}': ${why}.`, [
    { field: 'status', from, to },
  ]);
}

// ---------------------------------------------------------------------------------------------
// Input validation, shared by the CLI (flags) and the server (JSON bodies), so both word every
// problem the same way.

export interface PolicyInput {
  policy_number: string;
  customer_id: string;
  external_customer_ref: string;
  product_code: string;
  collection_amount: Cents;
}

const IDENTIFIER_FIELDS = ['policy_number', 'customer_id', 'external_customer_ref'] as const;

/**
 * Validate a new policy (a JSON body: `from` 'json', or CLI flags: 'text', where the amount is a
 * string). Throws VALIDATION_ERROR listing every bad field.
 */
export function validatePolicyInput(raw: Record<string, unknown>, from: 'json' | 'text' = 'text'): PolicyInput {
  const errors: FieldError[] = [];
  const text = (field: string): string => {
    const v = raw[field];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') {
      errors.push({ field, code: 'INVALID_TYPE', message: `${field} must be a string` });
      return '\u0000';
    }
    return v.trim();
  };
  const out: Partial<PolicyInput> = {};
  for (const field of IDENTIFIER_FIELDS) {
    const v = text(field);
    if (v === '\u0000') continue;
    const problem = checkIdentifier(v, field) ?? apiKeyProblem(v, field) ?? (field === 'policy_number' ? endpointNameProblem(v) : null);
    if (problem) errors.push({ field, ...problem });
    else out[field] = v;
  }
  const product = text('product_code');
  if (product !== '\u0000') {
    const problem = checkProductCode(product);
    if (problem) errors.push({ field: 'product_code', ...problem });
    else out.product_code = product;
  }
  const amount = premiumFromInput(raw.collection_amount, from);
  if (typeof amount === 'number') out.collection_amount = amount;
  else errors.push({ field: 'collection_amount', code: amount.code, message: `collection_amount ${amount.message}` });

  for (const key of Object.keys(raw)) {
    if ((IDENTIFIER_FIELDS as readonly string[]).includes(key) || key === 'product_code' || key === 'collection_amount') continue;
    const problem = from === 'json' && SET_BY_THE_SERVICE.includes(key) ? setByTheService(key, raw[key]) : { code: 'UNKNOWN_FIELD' as const, message: `${fieldName(key)} is not a field of a policy` };
    if (problem !== null) errors.push({ field: fieldName(key), ...problem });
  }
  if (errors.length > 0) throw invalidRequest('The policy is not valid', errors);
  return out as PolicyInput;
}

/**
 * The fields of a policy (spec 2.1) that the service sets, not the creating request (4.1). A
 * client whose serialiser writes every field of its policy type sends them empty (null), and
 * status as the one a policy is created with: both say nothing, and are taken (as PATCH takes a
 * null field as one not given). Anything else in them is refused, naming what the service sets.
 */
const SET_BY_THE_SERVICE: readonly string[] = ['id', 'status', 'created_at', 'updated_at'];

function setByTheService(key: string, value: unknown): Pick<FieldError, 'code' | 'message'> | null {
  if (value === null) return null;
  if (key === 'status') {
    return value === 'active' ? null : { code: 'INVALID_VALUE', message: `status of a new policy is active (the service sets it); got ${showValue(value)}` };
  }
  return { code: 'INVALID_VALUE', message: `${key} is set by the service; leave it out (or null)` };
}

export interface PolicyPatchInput {
  collection_amount?: Cents;
  status?: PolicyStatus;
}

/** Validate a policy update (`from`: as validatePolicyInput). At least one of collection_amount and status is required. */
export function validatePolicyPatch(raw: Record<string, unknown>, from: 'json' | 'text' = 'text'): PolicyPatchInput {
  const errors: FieldError[] = [];
  const out: PolicyPatchInput = {};
  // Each field is optional (spec 4.3), and a JSON null is a field not given: many clients'
  // serialisers write every field of their type, with null for those not set.
  if (raw.collection_amount !== undefined && raw.collection_amount !== null) {
    const amount = premiumFromInput(raw.collection_amount, from);
    if (typeof amount === 'number') out.collection_amount = amount;
    else errors.push({ field: 'collection_amount', code: amount.code, message: `collection_amount ${amount.message}` });
  }
  if (raw.status !== undefined && raw.status !== null) {
    if (isPolicyStatus(raw.status)) out.status = raw.status;
    else {
      errors.push({
        field: 'status',
        code: 'INVALID_VALUE',
        message: `status must be one of ${POLICY_STATUSES.join(', ')}; got ${showValue(raw.status)}`,
      });
    }
  }
  for (const key of Object.keys(raw)) {
    if (key !== 'collection_amount' && key !== 'status') {
      errors.push({ field: fieldName(key), code: 'UNKNOWN_FIELD', message: `${fieldName(key)} cannot be updated; only collection_amount and status can` });
    }
  }
  if (errors.length === 0 && out.collection_amount === undefined && out.status === undefined) {
    errors.push({ field: 'body', code: 'REQUIRED', message: 'give collection_amount, status, or both' });
  }
  if (errors.length > 0) throw invalidRequest('The update is not valid', errors);
  return out;
}

/** One problem: the message says it. Several: the message names the fields, details say each. */
export function summarise(prefix: string, errors: FieldError[]): string {
  if (errors.length === 1) return `${prefix}: ${errors[0]!.message}.`;
  const fields = [...new Set(errors.map((e) => e.field))];
  const named = fields.length > FIELDS_NAMED ? `${fields.slice(0, FIELDS_NAMED).join(', ')} and ${fields.length - FIELDS_NAMED} more` : fields.join(', ');
  const omitted = errors.length > MAX_DETAILS ? ` (the first ${MAX_DETAILS}; ${errors.length - MAX_DETAILS} more left out)` : '';
  return `${prefix}: ${errors.length} problems (${named}); see details${omitted}.`;
}

/** Most fields a summary names, and most problems an error's details list (the message counts them all). */
const FIELDS_NAMED = 10;
export const MAX_DETAILS = 100;

/**
 * The VALIDATION_ERROR of a request's problems: every one counted in the message, at most
 * MAX_DETAILS listed, so a body of 80,000 unknown keys is answered in kilobytes, not megabytes.
 */
export function invalidRequest(prefix: string, errors: FieldError[]): PremiaError {
  return validationError(summarise(prefix, errors), errors.slice(0, MAX_DETAILS));
}
