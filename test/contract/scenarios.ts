/**
 * THE list of contract scenarios. Each scenario is a sequence of premia commands, run once in
 * local mode on a temporary store and once in remote mode against an in-process `premia serve`;
 * contract.test.ts demands the same exit code, byte-identical stdout (JSON and CSV alike), the
 * same error body (request_id aside) and byte-identical --output files from both.
 *
 * Both stores start alike (the same clients made in the same order, the same seed and clock),
 * so ids, plans and outcomes match too. Commands act for the client "Acme Life" unless a step
 * says `as: 'other'` ("Other Insure"): in remote mode that is the client's API key, in local
 * mode `--as-client`.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/cli.js';

export type Memory = Record<string, string>;

export interface Step {
  name: string;
  args: string[] | ((m: Memory) => string[]);
  as?: 'acme' | 'other';
  stdin?: string;
  /** The exit code both modes must give. */
  code: number;
  /** The error code both must report (the step runs with --json, so stderr is the error body). */
  error?: string;
  /**
   * The CLI refuses the input before anything is sent, with the validator the service uses (so
   * the error has no request_id in either mode); otherwise the service answers it (remote
   * errors then carry its request_id).
   */
  beforeSending?: true;
  /** A file the command writes (relative to its working directory), compared byte for byte. */
  file?: string;
  /** Remember values for later steps (from this side's own output). */
  remember?: (r: CliResult, m: Memory) => void;
  /** What the output must be (checked on the local side; the remote side equals it). */
  check?: (r: CliResult, m: Memory) => void;
}

export interface Scenario {
  name: string;
  steps: Step[];
}

const POLICIES = join(FIXTURES, 'policies.csv');
const INVALID = join(FIXTURES, 'policies-invalid.csv');
const BANK = join(FIXTURES, 'bank-transactions.csv');
const PERIOD = '2026-11';

const create = (n: string, amount = '149.50', extra: string[] = []) => [
  'policies', 'create', '--policy-number', n, '--customer-id', `C-${n}`, '--external-ref', `EXT-${n}`,
  '--product-code', 'LIFE_BASIC', '--amount', amount, '--json', ...extra,
];
const json = (r: CliResult) => r.json();
const STDIN_CSV = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC-S1,E-S1,POL-S1,LIFE,1.00\n';

/** Two policies, November queued and lived through (a closed period with collections). */
const smallMonth: Step[] = [
  { name: 'set the clock to the day before November', args: ['clock', 'set', '2026-10-31', '--json'], code: 0 },
  { name: 'create POL-A', args: create('POL-A'), code: 0, remember: (r, m) => (m.polA = json(r).id) },
  { name: 'create POL-B', args: create('POL-B', '20.00'), code: 0 },
  { name: 'queue November', args: ['collections', 'execute', '--period', PERIOD, '--json'], code: 0, remember: (r, m) => (m.execution = json(r).execution_id) },
  { name: 'live through November', args: ['clock', 'advance', '--to-month-end', '--json'], code: 0 },
];

export const SCENARIOS: Scenario[] = [
  {
    name: 'the monthly cycle',
    steps: [
      { name: 'seed the simulated bank', args: ['bank', 'seed', '42', '--json'], code: 0, check: (r) => expect(json(r)).toEqual({ date: '2026-11-21', locked: false, seed: 42 }) },
      { name: 'set the clock to the day before the month', args: ['clock', 'set', '2026-10-31', '--json'], code: 0 },
      { name: 'day 1: import the policies', args: ['policies', 'import', POLICIES, '--json'], code: 0, check: (r) => expect(json(r)).toEqual({ imported: 520, failed: 0, errors: [] }) },
      { name: "import the customers' bank transactions", args: ['bank', 'import', BANK, '--json'], code: 0 },
      { name: 'read the clock', args: ['clock', '--json'], code: 0 },
      { name: 'list the first policies', args: ['policies', 'list', '--limit', '3', '--json'], code: 0, check: (r) => expect(json(r).data).toHaveLength(3) },
      { name: 'get a policy by number', args: ['policies', 'get', 'POL-2026001', '--json'], code: 0, remember: (r, m) => (m.policy = json(r).id) },
      { name: 'get the same policy by id (human output)', args: (m) => ['policies', 'get', m.policy!], code: 0 },
      { name: 'raise a premium from next month', args: ['policies', 'update', 'POL-2026002', '--amount', '999.99', '--json'], code: 0 },
      { name: 'show a bank account', args: ['bank', 'show', 'C100001', '--json'], code: 0 },
      {
        name: 'trigger the collections run',
        args: ['collections', 'execute', '--period', PERIOD, '--json'],
        code: 0,
        remember: (r, m) => (m.execution = json(r).execution_id),
        check: (r) => expect(json(r)).toMatchObject({ status: 'processing', policies_queued: 520 }),
      },
      { name: 'live through the first ten days', args: ['clock', 'advance', '--days', '10', '--json'], code: 0 },
      { name: 'the run is still processing', args: (m) => ['collections', 'execution', m.execution!, '--json'], code: 0, check: (r) => expect(json(r).status).toBe('processing') },
      {
        name: 'the open month: its JSON report says it is open',
        args: ['reports', 'collections', '--period', PERIOD, '--format', 'json'],
        code: 0,
        check: (r) => expect(json(r).period_state).toMatchObject({ state: 'open', as_of: '2026-11-10', closes_on: '2026-11-30' }),
      },
      // The refusal is the CLI's, from the period's state beside the report: no request_id of its own.
      { name: 'the open month: a cron report that requires it closed is refused', args: ['reports', 'collections', '--period', PERIOD, '--require-closed', '--json'], code: 6, beforeSending: true, error: 'PERIOD_OPEN' },
      { name: 'live through the rest of November', args: ['clock', 'advance', '--to-month-end', '--json'], code: 0 },
      { name: 'the run has completed', args: (m) => ['collections', 'execution', m.execution!, '--json'], code: 0, check: (r) => expect(json(r).status).toBe('completed') },
      {
        name: 'list the unpaid collections',
        args: ['collections', 'list', '--period', PERIOD, '--status', 'PAID_PARTIAL', '--limit', '5', '--json'],
        code: 0,
        remember: (r, m) => (m.collection = json(r).data[0].id),
      },
      { name: 'get one collection', args: (m) => ['collections', 'get', m.collection!, '--json'], code: 0 },
      { name: 'explain it', args: (m) => ['collections', 'explain', m.collection!, '--json'], code: 0 },
      { name: 'explain it for a human', args: (m) => ['collections', 'explain', m.collection!], code: 0 },
      { name: 'every debit attempt (CSV)', args: ['collections', 'attempts', '--period', PERIOD], code: 0 },
      { name: 'day 1 of next month: the report (CSV)', args: ['reports', 'collections', '--period', PERIOD], code: 0, check: (r) => expect(r.stdout.split('\n')).toHaveLength(522) },
      { name: 'the report (JSON)', args: ['reports', 'collections', '--period', PERIOD, '--format', 'json'], code: 0, check: (r) => expect(json(r).results).toHaveLength(520) },
      { name: 'the closed month: the cron report requiring it closed', args: ['reports', 'collections', '--period', PERIOD, '--require-closed'], code: 0, check: (r) => expect(r.stdout.split('\n')).toHaveLength(522) },
      { name: 'the report written to a file', args: ['reports', 'collections', '--period', PERIOD, '--output', 'report.csv'], code: 0, file: 'report.csv' },
      {
        name: 'day 2: the settlement',
        args: ['settlements', 'create', '--period', PERIOD, '--json'],
        code: 0,
        remember: (r, m) => {
          m.settlement = json(r).id;
          m.number = json(r).settlement_number;
        },
        check: (r) => expect(json(r)).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', status: 'pending' }),
      },
      { name: 'get it by number', args: (m) => ['settlements', 'get', m.number!, '--json'], code: 0 },
      { name: 'get it for a human', args: (m) => ['settlements', 'get', m.settlement!], code: 0 },
      { name: 'day 3: export it', args: (m) => ['settlements', 'export', m.settlement!], code: 0, check: (r) => expect(r.stdout.split('\n')[0]).toBe('settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference') },
      { name: 'export it to a directory, under its own name', args: (m) => ['settlements', 'export', m.settlement!, '--output', '.'], code: 0, file: 'SETTLE-2026-11-001.csv' },
      { name: 'export its lines', args: (m) => ['settlements', 'export', m.number!, '--lines'], code: 0 },
      { name: 'list the settlements', args: ['settlements', 'list', '--json'], code: 0 },
      { name: 'record the payment', args: (m) => ['settlements', 'mark-paid', m.settlement!, '--json'], code: 0, check: (r) => expect(json(r).status).toBe('paid') },
    ],
  },

  {
    // README "A month by hand", command for command (human output; `> file` becomes --output).
    name: "the README's month by hand",
    steps: [
      { name: 'premia clock set 2026-10-31', args: ['clock', 'set', '2026-10-31'], code: 0 },
      { name: 'premia policies import fixtures/policies.csv', args: ['policies', 'import', POLICIES], code: 0, check: (r) => expect(r.stdout).toBe('Imported 520 policies; 0 rows failed.\n') },
      { name: 'premia bank import fixtures/bank-transactions.csv', args: ['bank', 'import', BANK], code: 0 },
      { name: 'premia collections execute --period 2026-11', args: ['collections', 'execute', '--period', PERIOD], code: 0 },
      { name: 'premia clock advance --to 2026-11-30', args: ['clock', 'advance', '--to', '2026-11-30'], code: 0 },
      { name: 'premia clock advance --days 1', args: ['clock', 'advance', '--days', '1'], code: 0 },
      { name: 'premia reports collections --period 2026-11 > collections-2026-11.csv', args: ['reports', 'collections', '--period', PERIOD, '--output', 'collections-2026-11.csv'], code: 0, file: 'collections-2026-11.csv' },
      { name: 'premia clock advance --days 1 (day 2)', args: ['clock', 'advance', '--days', '1'], code: 0 },
      { name: 'premia settlements create --period 2026-11', args: ['settlements', 'create', '--period', PERIOD], code: 0, check: (r) => expect(r.stdout).toMatch(/^settlement_number +SETTLE-2026-11-001\n/) },
      { name: 'premia clock advance --days 1 (day 3)', args: ['clock', 'advance', '--days', '1'], code: 0 },
      { name: 'premia settlements export SETTLE-2026-11-001 --output settlement.csv', args: ['settlements', 'export', 'SETTLE-2026-11-001', '--output', 'settlement.csv'], code: 0, file: 'settlement.csv' },
    ],
  },

  {
    name: 'validation errors',
    steps: [
      { name: 'an amount with three decimals', args: create('POL-V', '12.345'), code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'a product code in lower case', args: [...create('POL-V').map((a) => (a === 'LIFE_BASIC' ? 'life' : a))], code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'a file with bad rows: the good ones are imported', args: ['policies', 'import', INVALID, '--json'], code: 3 },
      { name: 'a file that is not a policy CSV', args: ['policies', 'import', '-', '--json'], stdin: 'name,amount\nx,1\n', code: 2, error: 'INVALID_FILE' },
      { name: 'a premium of zero', args: ['policies', 'update', 'POL-9000001', '--amount', '0', '--json'], code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'a period that is no month', args: ['collections', 'execute', '--period', '2026-13', '--json'], code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'an unknown policy in the run', args: ['collections', 'execute', '--period', '2026-12', '--policy', 'NOPE', '--json'], code: 2, error: 'VALIDATION_ERROR' },
      { name: 'a clock date that does not exist', args: ['clock', 'set', '2026-02-30', '--json'], code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'an advance to a date that does not exist', args: ['clock', 'advance', '--to', '2026-13-01', '--json'], code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'a report period that is no month', args: ['reports', 'collections', '--period', '26-11', '--json'], code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'a collections page of 0', args: ['collections', 'list', '--period', PERIOD, '--limit', '0', '--json'], code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'a payment reference in lower case', args: ['settlements', 'mark-paid', 'SETTLE-2026-11-001', '--reference', 'eft ref', '--json'], code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'a dispute without a reason', args: ['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', '', '--json'], code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'an advance of more than ten years', args: ['clock', 'advance', '--days', '3661', '--json'], code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'a seed that is no number', args: ['bank', 'seed', 'abc', '--json'], code: 2, beforeSending: true, error: 'VALIDATION_ERROR' },
      { name: 'a bank file with bad rows', args: ['bank', 'import', '-', '--json'], stdin: 'customer_id,date,amount,description\nC1,2026-13-01,1.00,X\nC2,2026-10-01,2.00,SALARY\n', code: 3 },
    ],
  },

  {
    name: 'not found',
    steps: [
      { name: 'a policy number', args: ['policies', 'get', 'POL-NOPE', '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'a policy id', args: ['policies', 'update', '00000000-0000-8000-8000-000000000000', '--status', 'cancelled', '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'a collection', args: ['collections', 'get', '00000000-0000-8000-8000-000000000000', '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'an explanation', args: ['collections', 'explain', 'nope', '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'an execution', args: ['collections', 'execution', 'nope', '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'a settlement number', args: ['settlements', 'get', 'SETTLE-2026-11-999', '--json'], code: 5, error: 'NOT_FOUND' },
      // No --json: the export is CSV only, and --json on it is a usage error (docs/cli.md); the code is read from the text.
      { name: 'a settlement export', args: ['settlements', 'export', 'SETTLE-2026-11-999'], code: 5, check: (r) => expect(r.stderr).toContain('(code NOT_FOUND') },
      { name: 'a settlement to pay', args: ['settlements', 'mark-paid', 'SETTLE-2026-11-999', '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'the collections of an unknown policy', args: ['collections', 'list', '--period', PERIOD, '--policy', 'POL-NOPE', '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'the bank account of a customer premia has never heard of', args: ['bank', 'show', 'NOPE', '--json'], code: 5, error: 'NOT_FOUND' },
    ],
  },

  {
    name: 'conflicts',
    steps: [
      { name: 'too early to settle: no closed period', args: ['settlements', 'create', '--period', PERIOD, '--json'], code: 6, error: 'PERIOD_OPEN' },
      ...smallMonth,
      { name: 'the same policy number again', args: create('POL-A'), code: 6, error: 'DUPLICATE_POLICY' },
      { name: 'a closed period cannot be queued', args: ['collections', 'execute', '--period', PERIOD, '--json'], code: 6, error: 'PERIOD_CLOSED' },
      { name: 'the clock cannot be set once a run exists', args: ['clock', 'set', '2026-12-01', '--json'], code: 6, error: 'CLOCK_LOCKED' },
      { name: 'the clock does not go back', args: ['clock', 'advance', '--to', '2026-11-15', '--json'], code: 6, error: 'CLOCK_BACKWARDS' },
      { name: 'the seed is locked once a run exists', args: ['bank', 'seed', '7', '--json'], code: 6, error: 'SEED_LOCKED' },
      { name: 'a closed period that was never run', args: ['settlements', 'create', '--period', '2026-10', '--json'], code: 6, error: 'NO_COLLECTIONS' },
      { name: 'settle November', args: ['settlements', 'create', '--period', PERIOD, '--json'], code: 0, remember: (r, m) => (m.settlement = r.json().id) },
      { name: 'settle November again', args: ['settlements', 'create', '--period', PERIOD, '--json'], code: 6, error: 'SETTLEMENT_EXISTS' },
      { name: 'pay it', args: (m) => ['settlements', 'mark-paid', m.settlement!, '--json'], code: 0 },
      { name: 'pay it again', args: (m) => ['settlements', 'mark-paid', m.settlement!, '--json'], code: 6, error: 'INVALID_TRANSITION' },
      { name: 'cancel POL-B', args: ['policies', 'update', 'POL-B', '--status', 'cancelled', '--json'], code: 0 },
      { name: 'a cancelled policy is final', args: ['policies', 'update', 'POL-B', '--status', 'active', '--json'], code: 6, error: 'INVALID_TRANSITION' },
      { name: 'nor does its premium change', args: ['policies', 'update', 'POL-B', '--amount', '99.00', '--json'], code: 6, error: 'INVALID_TRANSITION' },
      { name: 'closing December unrun needs --yes', args: ['clock', 'advance', '--to', '2027-01-10', '--json'], code: 2, beforeSending: true, error: 'USAGE_ERROR' },
      { name: 'live past the dispute window', args: ['clock', 'advance', '--to', '2027-01-10', '--yes', '--json'], code: 0 },
      { name: 'too late to dispute', args: (m) => ['settlements', 'dispute', m.settlement!, '--reason', 'wrong fees', '--json'], code: 6, error: 'DISPUTE_WINDOW_CLOSED' },
    ],
  },

  {
    name: 'a paid statement disputed and regenerated',
    steps: [
      ...smallMonth,
      { name: 'settle November', args: ['settlements', 'create', '--period', PERIOD, '--json'], code: 0, remember: (r, m) => (m.paid = String(r.json().net_amount)) },
      { name: 'pay it', args: ['settlements', 'mark-paid', 'SETTLE-2026-11-001', '--json'], code: 0 },
      { name: 'dispute it', args: ['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'Totals differ', '--json'], code: 0 },
      {
        name: 'regenerate: what was paid is netted out',
        args: ['settlements', 'create', '--period', PERIOD, '--json'],
        code: 0,
        check: (r, m) => expect(r.json()).toMatchObject({ settlement_number: 'SETTLE-2026-11-002', previously_paid: Number(m.paid), net_amount: 0, supersedes: 'SETTLE-2026-11-001' }),
      },
      { name: 'the list shows both', args: ['settlements', 'list', '--json'], code: 0, check: (r) => expect(r.json().data.map((x: { superseded_by: string | null }) => x.superseded_by)).toEqual([null, 'SETTLE-2026-11-002']) },
      { name: 'the superseded statement cannot be paid', args: ['settlements', 'mark-paid', 'SETTLE-2026-11-001', '--json'], code: 6, error: 'INVALID_TRANSITION' },
      { name: 'the list for people', args: ['settlements', 'list'], code: 0 },
      { name: 'the new statement for people', args: ['settlements', 'get', 'SETTLE-2026-11-002'], code: 0 },
    ],
  },

  {
    name: 'idempotent retries',
    steps: [
      { name: 'create with a key', args: create('POL-K', '149.50', ['--idempotency-key', 'cron-create-1']), code: 0, remember: (r, m) => (m.first = r.stdout) },
      { name: 'the rerun answers the same and creates nothing', args: create('POL-K', '149.50', ['--idempotency-key', 'cron-create-1']), code: 0, check: (r, m) => expect(r.stdout).toBe(m.first) },
      { name: 'one policy exists', args: ['policies', 'list', '--json'], code: 0, check: (r) => expect(r.json().data.map((p: { policy_number: string }) => p.policy_number)).toEqual(['POL-K']) },
      { name: 'the key with another request is refused', args: create('POL-L', '149.50', ['--idempotency-key', 'cron-create-1']), code: 6, error: 'IDEMPOTENCY_KEY_REUSED' },
      { name: 'a refusal is not stored', args: create('POL-K', '149.50', ['--idempotency-key', 'cron-create-2']), code: 6, error: 'DUPLICATE_POLICY' },
      { name: 'the rerun is judged afresh (and refused again)', args: create('POL-K', '149.50', ['--idempotency-key', 'cron-create-2']), code: 6, error: 'DUPLICATE_POLICY' },
      { name: 'import with a key', args: ['policies', 'import', INVALID, '--json', '--idempotency-key', 'cron-import'], code: 3, remember: (r, m) => (m.imported = r.stdout) },
      { name: 'the import rerun imports nothing more', args: ['policies', 'import', INVALID, '--json', '--idempotency-key', 'cron-import'], code: 3, check: (r, m) => expect(r.stdout).toBe(m.imported) },
      { name: 'import from stdin with a key', args: ['policies', 'import', '-', '--json', '--idempotency-key', 'cron-stdin'], stdin: STDIN_CSV, code: 0, check: (r) => expect(r.json()).toEqual({ imported: 1, failed: 0, errors: [] }) },
      { name: 'the stdin rerun is replayed', args: ['policies', 'import', '-', '--json', '--idempotency-key', 'cron-stdin'], stdin: STDIN_CSV, code: 0, check: (r) => expect(r.json()).toEqual({ imported: 1, failed: 0, errors: [] }) },
      { name: 'other bytes under that key are another request', args: ['policies', 'import', '-', '--json', '--idempotency-key', 'cron-stdin'], stdin: `${STDIN_CSV}C-S2,E-S2,POL-S2,LIFE,2.00\n`, code: 6, error: 'IDEMPOTENCY_KEY_REUSED' },
      { name: 'set the clock', args: ['clock', 'set', '2026-10-31', '--json'], code: 0 },
      { name: 'queue November with a key', args: ['collections', 'execute', '--period', PERIOD, '--idempotency-key', 'cron-run', '--json'], code: 0, remember: (r, m) => (m.run = r.stdout) },
      { name: 'the rerun is the same run', args: ['collections', 'execute', '--period', PERIOD, '--idempotency-key', 'cron-run', '--json'], code: 0, check: (r, m) => expect(r.stdout).toBe(m.run) },
      { name: 'advance with a key', args: ['clock', 'advance', '--to-month-end', '--idempotency-key', 'cron-advance', '--json'], code: 0, remember: (r, m) => (m.advanced = r.stdout) },
      { name: 'the rerun does not advance again', args: ['clock', 'advance', '--to-month-end', '--idempotency-key', 'cron-advance', '--json'], code: 0, check: (r, m) => expect(r.stdout).toBe(m.advanced) },
      { name: 'the clock moved once', args: ['clock', '--json'], code: 0, check: (r) => expect(r.json().date).toBe('2026-11-30') },
      { name: 'settle with a key', args: ['settlements', 'create', '--period', PERIOD, '--idempotency-key', 'cron-settle', '--json'], code: 0, remember: (r, m) => (m.settled = r.stdout) },
      { name: 'the rerun is the same statement', args: ['settlements', 'create', '--period', PERIOD, '--idempotency-key', 'cron-settle', '--json'], code: 0, check: (r, m) => expect(r.stdout).toBe(m.settled) },
      { name: 'one statement exists', args: ['settlements', 'list', '--json'], code: 0, check: (r) => expect(r.json().data).toHaveLength(1) },
    ],
  },

  {
    name: 'client isolation',
    steps: [
      ...smallMonth,
      { name: 'the other client does not see POL-A by number', as: 'other', args: ['policies', 'get', 'POL-A', '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'nor by id', as: 'other', args: (m) => ['policies', 'get', m.polA!, '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'nor can it change it', as: 'other', args: (m) => ['policies', 'update', m.polA!, '--status', 'cancelled', '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'its list is empty', as: 'other', args: ['policies', 'list', '--json'], code: 0, check: (r) => expect(r.json()).toEqual({ data: [], next_after: null }) },
      { name: 'nor the run', as: 'other', args: (m) => ['collections', 'execution', m.execution!, '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'its report of November is empty', as: 'other', args: ['reports', 'collections', '--period', PERIOD], code: 0, check: (r) => expect(r.stdout.trim().split('\n')).toHaveLength(1) },
      { name: 'it may use the same policy number', as: 'other', args: create('POL-A', '10.00'), code: 0 },
      { name: 'it has nothing to settle for November', as: 'other', args: ['settlements', 'create', '--period', PERIOD, '--json'], code: 6, error: 'NO_COLLECTIONS' },
      { name: 'Acme settles November', args: ['settlements', 'create', '--period', PERIOD, '--json'], code: 0, remember: (r, m) => (m.settlement = r.json().id) },
      { name: "the other client cannot read Acme's statement", as: 'other', args: (m) => ['settlements', 'get', m.settlement!, '--json'], code: 5, error: 'NOT_FOUND' },
      { name: 'nor by its number', as: 'other', args: ['settlements', 'export', 'SETTLE-2026-11-001'], code: 5, check: (r) => expect(r.stderr).toContain('(code NOT_FOUND') },
      { name: 'its settlement list is empty', as: 'other', args: ['settlements', 'list', '--json'], code: 0, check: (r) => expect(r.json().data).toEqual([]) },
    ],
  },
];
