/**
 * Validation of request bodies and query parameters other than policies (see policy.ts), shared
 * by the CLI and the server so that a problem reads the same in local and remote mode. Each
 * validator takes what arrived (a parsed JSON body, or query parameters as strings) and returns
 * the typed input, or throws VALIDATION_ERROR listing every problem in `details`.
 */
import { validationError, type DetailCode, type FieldError } from './errors.js';
import { dateFormatHint, isIsoDate, isPeriod, periodFormatHint, whyNotADate, whyNotAPeriod, type IsoDate, type Period } from './period.js';
import { COLLECTION_STATUSES, type CollectionStatus } from './collection.js';
import { invalidRequest, isPolicyStatus, POLICY_STATUSES, type PolicyStatus } from './policy.js';
import { holdsApiKey } from './identifiers.js';
import { fieldName, showValue } from './show.js';
import { DISPUTE_REASON_MAX, disputeReasonProblem, PAID_REFERENCE_MAX, PAID_REFERENCE_RE, SETTLEMENT_STATUSES, type SettlementStatus } from './settlement.js';

/** Lists: a page holds DEFAULT_PAGE_LIMIT items unless asked for up to MAX_PAGE_LIMIT. */
export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 10_000;
export const STRATEGY_RE = /^[a-z][a-z0-9_-]{0,31}$/;
/** `days` of a clock advance: 0 (nothing to live) up to ten years, as the engine allows. */
export const MIN_ADVANCE_DAYS = 0;
export const MAX_ADVANCE_DAYS = 3660;
export const MAX_SEED = 999_999_999;
/** Longest id or number accepted in a list of policy references. */
const MAX_REF_LENGTH = 64;

type Raw = Record<string, unknown>;

class Checker {
  readonly errors: FieldError[] = [];

  constructor(
    private readonly raw: Raw,
    allowed: readonly string[],
    what: string,
  ) {
    for (const key of Object.keys(raw)) {
      if (!allowed.includes(key)) {
        const known = allowed.length > 0 ? `; known: ${allowed.join(', ')}` : '';
        this.add(fieldName(key), 'UNKNOWN_FIELD', `${fieldName(key)} is not a field of ${what}${known}`);
      }
    }
  }

  add(field: string, code: DetailCode, message: string): void {
    this.errors.push({ field, code, message });
  }

  has(field: string): boolean {
    return this.raw[field] !== undefined;
  }

  period(field: string, required: boolean): Period | undefined {
    const v = this.raw[field];
    if (v === undefined || v === null || v === '') {
      if (required) this.add(field, 'REQUIRED', `${field} is required; give a month like 2026-11`);
      return undefined;
    }
    if (!isPeriod(v)) {
      const why = typeof v === 'string' ? whyNotAPeriod(v) : null;
      // A real month outside the years premia takes (3000-01): the value is named, not the format.
      if (why?.wellFormed === true) this.add(field, 'INVALID_VALUE', `${field} ${v as string} ${why.phrase}`);
      // Shaped YYYY-MM with no such month (2026-13): the month is named, not the format it already has.
      else if (why !== null) this.add(field, 'INVALID_FORMAT', `${field} ${v as string} ${why.phrase}`);
      else {
        const hint = typeof v === 'string' ? periodFormatHint(v) : null;
        this.add(field, 'INVALID_FORMAT', `${field} must be a month written YYYY-MM, like 2026-11; got ${show(v)}${hint === null ? '' : ` (${hint})`}`);
      }
      return undefined;
    }
    return v;
  }

  date(field: string, required: boolean): IsoDate | undefined {
    const v = this.raw[field];
    if (v === undefined || v === null || v === '') {
      if (required) this.add(field, 'REQUIRED', `${field} is required; give a date like 2026-11-30`);
      return undefined;
    }
    if (!isIsoDate(v)) {
      // Written right but no date premia takes (2026-11-31, 3000-01-01): said so, not "write YYYY-MM-DD".
      const why = typeof v === 'string' ? whyNotADate(v) : null;
      if (why?.wellFormed === true) this.add(field, 'INVALID_VALUE', `${field} ${v as string} ${why.phrase}`);
      // Shaped YYYY-MM-DD with no such month (2026-13-01): the month is named, not the format it already has.
      else if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) this.add(field, 'INVALID_FORMAT', `${field} ${v} ${why!.phrase}`);
      // Written as other tools write dates (31/10/2026, 2026/10/31): said how, as `--to` says it.
      else this.add(field, 'INVALID_FORMAT', `${field} must be a date written YYYY-MM-DD, like 2026-11-30; got ${show(v)}${typeof v === 'string' ? dateFormatHint(v) : ''}`);
      return undefined;
    }
    return v;
  }

  /** An integer; query parameters arrive as text and are read as decimal digits. */
  integer(field: string, min: number, max: number, required: boolean): number | undefined {
    const v = this.raw[field];
    if (v === undefined || v === null || v === '') {
      if (required) this.add(field, 'REQUIRED', `${field} is required; give a whole number from ${min} to ${max}`);
      return undefined;
    }
    const n = wholeNumberOf(v);
    if (n === null || n < min || n > max) {
      this.add(field, 'INVALID_VALUE', `${field} must be a whole number from ${min} to ${max}; got ${show(v)}`);
      return undefined;
    }
    return n;
  }

  oneOf<T extends string>(field: string, values: readonly T[], required: boolean): T | undefined {
    const v = this.raw[field];
    if (v === undefined || v === null || v === '') {
      if (required) this.add(field, 'REQUIRED', `${field} is required; one of ${values.join(', ')}`);
      return undefined;
    }
    if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
      this.add(field, 'INVALID_VALUE', `${field} must be one of ${values.join(', ')}; got ${show(v)}`);
      return undefined;
    }
    return v as T;
  }

  text(field: string, min: number, max: number, required: boolean, pattern?: RegExp, patternText?: string): string | undefined {
    const v = this.raw[field];
    if (v === undefined || v === null) {
      if (required) this.add(field, 'REQUIRED', `${field} is required`);
      return undefined;
    }
    if (typeof v !== 'string') {
      this.add(field, 'INVALID_TYPE', `${field} must be a string`);
      return undefined;
    }
    const s = v.trim();
    if (s.length < min) {
      this.add(field, 'REQUIRED', `${field} must not be empty`);
      return undefined;
    }
    if (s.length > max) {
      this.add(field, 'TOO_LONG', `${field} is ${s.length} characters long; at most ${max} are allowed`);
      return undefined;
    }
    if (pattern && !pattern.test(s)) {
      this.add(field, 'INVALID_FORMAT', `${field} ${show(s)} is not valid; ${patternText ?? 'see the documentation'}`);
      return undefined;
    }
    return s;
  }

  boolean(field: string): boolean | undefined {
    const v = this.raw[field];
    if (v === undefined || v === null || v === '') return undefined;
    if (v === true || v === 'true') return true;
    if (v === false || v === 'false') return false;
    this.add(field, 'INVALID_VALUE', `${field} must be true or false; got ${show(v)}`);
    return undefined;
  }

  done<T>(prefix: string, value: T): T {
    if (this.errors.length > 0) throw invalidRequest(prefix, this.errors);
    return value;
  }
}

/** An integer given as a JSON number or as decimal digits (a query parameter, a flag); else null. */
function wholeNumberOf(v: unknown): number | null {
  const n = typeof v === 'string' && /^-?\d{1,16}$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) ? n : null;
}

/** A value made safe and short for an error message. */
const show = showValue;

// ---------------------------------------------------------------------------------------------
// Bodies

export interface ExecuteRequest {
  period_month: Period;
  policy_ids?: string[];
  strategy?: string;
}

/** POST /collections/execute: {period_month, policy_ids?, strategy?}. */
export function validateExecuteRequest(raw: Raw): ExecuteRequest {
  const c = new Checker(raw, ['period_month', 'policy_ids', 'strategy'], 'a collections run');
  const period = c.period('period_month', true);
  const out: ExecuteRequest = { period_month: period ?? '' };
  const ids = raw.policy_ids;
  if (ids !== undefined && ids !== null) {
    if (!Array.isArray(ids)) c.add('policy_ids', 'INVALID_TYPE', 'policy_ids must be a list of policy ids or policy numbers');
    else if (ids.length === 0) c.add('policy_ids', 'REQUIRED', 'policy_ids must not be empty; leave it out to collect every active policy');
    else {
      const bad = ids.findIndex((v) => typeof v !== 'string' || v.trim() === '' || v.length > MAX_REF_LENGTH);
      if (bad !== -1) {
        c.add(
          `policy_ids[${bad}]`,
          'INVALID_VALUE',
          `policy_ids[${bad}] must be a policy id or policy number (1–${MAX_REF_LENGTH} characters); got ${show(ids[bad])}`,
        );
      } else out.policy_ids = ids.map((v: string) => v.trim());
    }
  }
  const strategy = c.text('strategy', 1, 32, false, STRATEGY_RE, 'a strategy name is lower case letters, digits, _ and -');
  if (strategy !== undefined) out.strategy = strategy;
  return c.done('The collections run is not valid', out);
}

export interface SettlementRequest {
  period_month: Period;
}

/** POST /settlements: {period_month}. */
export function validateSettlementRequest(raw: Raw): SettlementRequest {
  const c = new Checker(raw, ['period_month'], 'a settlement request');
  const period = c.period('period_month', true);
  return c.done('The settlement request is not valid', { period_month: period ?? '' });
}

/** POST /settlements/{id}/mark-paid: {reference?}. */
export function validateMarkPaidRequest(raw: Raw): { reference?: string } {
  const c = new Checker(raw, ['reference'], 'a payment confirmation');
  const reference = c.text('reference', 1, PAID_REFERENCE_MAX, false, PAID_REFERENCE_RE, `a payment reference is 1–${PAID_REFERENCE_MAX} of A-Z, 0-9, - and /`);
  return c.done('The payment confirmation is not valid', reference === undefined ? {} : { reference });
}

/** POST /settlements/{id}/dispute: {reason}, 1–500 characters once trimmed, on one line. */
export function validateDisputeRequest(raw: Raw): { reason: string } {
  const c = new Checker(raw, ['reason'], 'a dispute');
  const reason = c.text('reason', 1, DISPUTE_REASON_MAX, true);
  const out = c.done('The dispute is not valid', { reason: reason ?? '' });
  const problem = disputeReasonProblem(out.reason);
  if (problem !== null) throw validationError(`The dispute reason ${problem}.`, [{ field: 'reason', code: 'INVALID_VALUE', message: problem }]);
  return out;
}

/** PUT /clock: {date}. */
export function validateClockSetRequest(raw: Raw): { date: IsoDate } {
  const c = new Checker(raw, ['date'], 'a clock setting');
  const date = c.date('date', true);
  return c.done('The clock setting is not valid', { date: date ?? '' });
}

export interface AdvanceRequest {
  days?: number;
  to?: IsoDate;
  to_month_end?: boolean;
  /**
   * Refuse, with nothing done, an advance that would close more than one period, or one that a
   * client with an active policy has no collections queued for (once a run exists), as judged
   * once this advance's turn has come: what an unattended `clock advance` asks for.
   */
  safe_close?: boolean;
}

/** POST /clock/advance: exactly one of {days}, {to}, {to_month_end: true}; optionally safe_close. */
export function validateAdvanceRequest(raw: Raw): AdvanceRequest {
  const c = new Checker(raw, ['days', 'to', 'to_month_end', 'safe_close'], 'a clock advance');
  const out: AdvanceRequest = {};
  const days = c.integer('days', MIN_ADVANCE_DAYS, MAX_ADVANCE_DAYS, false);
  if (days !== undefined) out.days = days;
  const to = c.date('to', false);
  if (to !== undefined) out.to = to;
  if (raw.to_month_end !== undefined) {
    if (raw.to_month_end === true) out.to_month_end = true;
    else c.add('to_month_end', 'INVALID_VALUE', 'to_month_end must be true (or left out)');
  }
  if (raw.safe_close !== undefined) {
    if (typeof raw.safe_close === 'boolean') out.safe_close = raw.safe_close;
    else c.add('safe_close', 'INVALID_TYPE', 'safe_close must be true or false');
  }
  const given = ['days', 'to', 'to_month_end'].filter((f) => raw[f] !== undefined);
  if (c.errors.length === 0 && given.length !== 1) {
    c.add('body', given.length === 0 ? 'REQUIRED' : 'CONFLICTING_FIELDS', `give exactly one of days, to, to_month_end${given.length > 1 ? `; got ${given.join(', ')}` : ''}`);
  }
  return c.done('The clock advance is not valid', out);
}

/** POST /bank/seed: {seed}. */
export function validateSeedRequest(raw: Raw): { seed: number } {
  const c = new Checker(raw, ['seed'], 'a bank seed');
  const seed = typeof raw.seed === 'string' ? undefined : c.integer('seed', 0, MAX_SEED, true);
  if (typeof raw.seed === 'string') c.add('seed', 'INVALID_TYPE', 'seed must be a number, not a string');
  return c.done('The bank seed is not valid', { seed: seed ?? 0 });
}

// ---------------------------------------------------------------------------------------------
// Query parameters (values arrive as strings; a repeated parameter arrives as a list)

function singleValued(raw: Raw, c: Checker): void {
  for (const [key, value] of Object.entries(raw)) {
    if (Array.isArray(value)) c.add(key, 'REPEATED', `${key} was given ${value.length} times; give it once`);
  }
}

function queryChecker(raw: Raw, allowed: readonly string[], what: string): Checker {
  const c = new Checker(raw, allowed, what);
  singleValued(raw, c);
  return c;
}

export interface PolicyListParams {
  status?: PolicyStatus;
  limit?: number;
  after?: string;
}

export function validatePolicyListQuery(raw: Raw): PolicyListParams {
  const c = queryChecker(raw, ['status', 'limit', 'after'], 'a policy list');
  const out: PolicyListParams = {};
  if (!Array.isArray(raw.status)) {
    const status = c.oneOf('status', POLICY_STATUSES, false);
    if (status !== undefined && isPolicyStatus(status)) out.status = status;
  }
  if (!Array.isArray(raw.limit)) {
    const limit = c.integer('limit', 1, MAX_PAGE_LIMIT, false);
    if (limit !== undefined) out.limit = limit;
  }
  if (typeof raw.after === 'string' && raw.after !== '') out.after = raw.after;
  return c.done('The query is not valid', out);
}

export interface CollectionListParams {
  period_month: Period;
  status?: CollectionStatus;
  policy?: string;
  limit?: number;
  after?: string;
}

export function validateCollectionListQuery(raw: Raw): CollectionListParams {
  const c = queryChecker(raw, ['period_month', 'status', 'policy', 'limit', 'after'], 'a collection list');
  const out: CollectionListParams = { period_month: '' };
  if (!Array.isArray(raw.period_month)) out.period_month = c.period('period_month', true) ?? '';
  if (!Array.isArray(raw.status)) {
    const status = c.oneOf('status', COLLECTION_STATUSES, false);
    if (status !== undefined) out.status = status;
  }
  if (typeof raw.policy === 'string' && raw.policy !== '') out.policy = raw.policy;
  if (!Array.isArray(raw.limit)) {
    const limit = c.integer('limit', 1, MAX_PAGE_LIMIT, false);
    if (limit !== undefined) out.limit = limit;
  }
  if (typeof raw.after === 'string' && raw.after !== '') out.after = raw.after;
  return c.done('The query is not valid', out);
}

export interface SettlementListParams {
  status?: SettlementStatus;
  period_month?: Period;
}

export function validateSettlementListQuery(raw: Raw): SettlementListParams {
  const c = queryChecker(raw, ['status', 'period_month'], 'a settlement list');
  const out: SettlementListParams = {};
  if (!Array.isArray(raw.status)) {
    const status = c.oneOf('status', SETTLEMENT_STATUSES, false);
    if (status !== undefined) out.status = status;
  }
  if (!Array.isArray(raw.period_month)) {
    const period = c.period('period_month', false);
    if (period !== undefined) out.period_month = period;
  }
  return c.done('The query is not valid', out);
}

export interface ReportParams {
  period_month: Period;
  format: 'csv' | 'json';
}

/** GET /reports/collections and /reports/attempts: period_month (required), format (csv default). */
export function validateReportQuery(raw: Raw): ReportParams {
  const c = queryChecker(raw, ['period_month', 'format'], 'a report');
  const out: ReportParams = { period_month: '', format: 'csv' };
  if (!Array.isArray(raw.period_month)) out.period_month = c.period('period_month', true) ?? '';
  if (!Array.isArray(raw.format)) out.format = c.oneOf('format', ['csv', 'json'] as const, false) ?? 'csv';
  return c.done('The report request is not valid', out);
}

/** GET /settlements/{id}/export: lines=true adds the settlement's collection lines. */
export function validateExportQuery(raw: Raw): { lines: boolean } {
  const c = queryChecker(raw, ['lines'], 'a settlement export');
  const lines = Array.isArray(raw.lines) ? undefined : c.boolean('lines');
  return c.done('The export request is not valid', { lines: lines ?? false });
}

/** GET /clock/preview: the advance of POST /clock/advance as query parameters (days, to, to_month_end=true). */
export function validateAdvanceQuery(raw: Raw): AdvanceRequest {
  const c = queryChecker(raw, ['days', 'to', 'to_month_end'], 'a clock advance preview');
  c.done('The query is not valid', undefined);
  const body: Raw = {};
  if (raw.days !== undefined) body.days = typeof raw.days === 'string' && /^\d{1,16}$/.test(raw.days) ? Number(raw.days) : raw.days;
  if (raw.to !== undefined) body.to = raw.to;
  if (raw.to_month_end !== undefined) body.to_month_end = raw.to_month_end === 'true' ? true : raw.to_month_end;
  return validateAdvanceRequest(body);
}

/** GET /settlements/preview: period_month (required). */
export function validateSettlementPreviewQuery(raw: Raw): { period_month: Period } {
  const c = queryChecker(raw, ['period_month'], 'a settlement preview');
  const period = Array.isArray(raw.period_month) ? undefined : c.period('period_month', true);
  return c.done('The query is not valid', { period_month: period ?? '' });
}

/**
 * GET /idempotency-keys: key (required), as the Idempotency-Key header takes it (1–255 printable
 * ASCII; one holding an API key is refused there, so it can be on no record, and a URL is no
 * place for a secret); operation (optional), one of `operations` (the operationIds that take an
 * Idempotency-Key where this server serves them).
 */
export function validateIdempotencyKeyQuery<O extends string>(raw: Raw, operations: readonly O[]): { key: string; operation?: O } {
  const c = queryChecker(raw, ['key', 'operation'], 'an idempotency key lookup');
  const operation = Array.isArray(raw.operation) ? undefined : c.oneOf('operation', operations, false);
  const v = raw.key;
  if (!Array.isArray(v)) {
    if (v === undefined || v === null || v === '') c.add('key', 'REQUIRED', 'key is required: the Idempotency-Key to look up');
    else if (typeof v !== 'string' || !/^[\x20-\x7e]{1,255}$/.test(v)) c.add('key', 'INVALID_FORMAT', 'key must be 1–255 printable ASCII characters, as an Idempotency-Key');
    else if (holdsApiKey(v)) c.add('key', 'INVALID_FORMAT', 'key holds an API key (pmk_ and 40 letters and digits), a secret never stored as data');
  }
  return c.done('The query is not valid', { key: typeof v === 'string' ? v : '', ...(operation === undefined ? {} : { operation }) });
}

/** For endpoints that take no query parameters. */
export function validateNoQuery(raw: Raw): void {
  const c = queryChecker(raw, [], 'this request (it takes no query parameters)');
  c.done('The query is not valid', undefined);
}

// ---------------------------------------------------------------------------------------------
// Command-line options the CLI checks before anything is sent (the same rules as the fields they
// fill; the words a command line has always had)

/** `--period`: a month written YYYY-MM. */
export function checkPeriodOption(value: unknown, option = '--period'): Period {
  if (isPeriod(value)) return value;
  const text = String(value);
  // Written YYYY-MM with no such month (2026-13), or out of range: the month is named, not the format it already has.
  const why = typeof value === 'string' ? whyNotAPeriod(value) : null;
  if (why !== null) throw validationError(`${option} ${text} ${why.phrase}.`);
  const hint = periodFormatHint(text);
  if (hint !== null) throw validationError(`${option} '${text}' is not a period written YYYY-MM (${hint}).`);
  throw validationError(`${option} '${text.slice(0, 40)}' is not a period; write it as YYYY-MM, e.g. 2026-11.`);
}

/** A date option (`--to`): written YYYY-MM-DD, a day of the calendar in the years premia accepts; worded as every date premia reads. */
export function checkDateOption(value: string, option: string): IsoDate {
  const given: unknown = value;
  if (isIsoDate(given)) return given;
  throw validationError(`${option} '${value.slice(0, 40)}' ${whyNotADate(value).phrase}.`);
}

/** A whole-number option from `min` to `max` (`--days`), saying what was given. */
export function checkWholeNumberOption(value: string, option: string, min: number, max: number, note = ''): number {
  const n = /^\d{1,9}$/.test(value) ? Number(value) : null;
  if (n === null || n < min || n > max) throw validationError(`${option} must be a whole number from ${min} to ${max}${note}; got '${value.slice(0, 40)}'.`);
  return n;
}

/** `--limit`: a page size from 1 to MAX_PAGE_LIMIT; undefined when not given. */
export function checkPageLimitOption(value: unknown, option = '--limit'): number | undefined {
  if (value === undefined) return undefined;
  const n = wholeNumberOf(value);
  if (n === null || n < 1 || n > MAX_PAGE_LIMIT) throw validationError(`${option} must be a whole number from 1 to ${MAX_PAGE_LIMIT}; got '${(typeof value === 'string' ? value : JSON.stringify(value) ?? '').slice(0, 40)}'.`);
  return n;
}
