/**
 * The policies commands (and the clock and global flags they rely on), run in-process against
 * a store file in a temporary directory. Every run uses the same wall clock unless a test says
 * otherwise, so a new store's clock starts at 2026-11-21 and timestamps are exact.
 */
import Database from 'better-sqlite3';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashString32 } from '../../src/domain/hash.js';
import { encodeId, IdKind } from '../../src/domain/ids.js';
import { FIXTURES, runCli, tempDir, type CliOptions, type CliResult } from '../helpers/cli.js';

const HEADER = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount';
const NOW = '2026-11-21T09:30:00.000Z';
const at = (iso: string) => () => new Date(iso);
/** The public id of the n-th policy row of a store created with --seed 1. */
const policyId = (rowid: number) => encodeId(IdKind.policy, hashString32('premia-ids:1'), rowid);
const ESC = '\u001b[';

let dir: string;
let cleanup: () => void;
let db: string;

beforeEach(() => {
  ({ dir, cleanup } = tempDir('premia-cli-'));
  db = join(dir, 'premia.db');
});
afterEach(() => cleanup());

function premia(args: string[], options: Partial<CliOptions> = {}): Promise<CliResult> {
  // --seed 1 (the default seed, given explicitly): a store made without --seed has a random id key.
  return runCli(['--db', db, '--seed', '1', ...args], { cwd: dir, ...options });
}

const CREATE_P1 = ['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'ACME-1', '--product-code', 'FUNERAL', '--amount', '149.5'];

/** The error body a --json run writes on stderr. */
function errorBody(r: CliResult): { code: string; message: string; request_id: null; details?: Array<Record<string, unknown>> } {
  expect(r.stdout).toBe('');
  expect(r.stderr.endsWith('\n')).toBe(true);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  const body = JSON.parse(r.stderr);
  expect(Object.keys(body)).toEqual(['error']);
  return body.error;
}

function csvFile(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function policyNumbers(): Promise<string[]> {
  // A new store that a refused command made, with nothing written to it, is removed: no policies.
  if (!existsSync(db)) return [];
  const r = await premia(['policies', 'list', '--limit', '10000', '--json']);
  expect(r.code).toBe(0);
  return r.json().data.map((p: { policy_number: string }) => p.policy_number);
}

describe('policies create', () => {
  it('prints the policy as a key/value block, and a status line on stderr', async () => {
    const r = await premia(CREATE_P1);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Created policy P1.\n');
    expect(r.stdout).toBe(
      [
        `id                     ${policyId(1)}`,
        'policy_number          P1',
        'customer_id            C1',
        'external_customer_ref  ACME-1',
        'product_code           FUNERAL',
        'collection_amount      149.50',
        'status                 active',
        `created_at             ${NOW}`,
        `updated_at             ${NOW}`,
        '',
      ].join('\n'),
    );
  });

  it('--json prints exactly the API body, money with two decimals', async () => {
    const r = await premia([...CREATE_P1, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(policyId(1)).toBe('e0790a7d-3306-81b0-b9e1-7be41bfb43d7'); // ids are stable for a seed
    expect(r.stdout).toBe(
      '{"id":"e0790a7d-3306-81b0-b9e1-7be41bfb43d7","policy_number":"P1","customer_id":"C1","external_customer_ref":"ACME-1",' +
        '"product_code":"FUNERAL","collection_amount":149.50,"collection_amount_effective_period":null,"status":"active",' +
        `"created_at":"${NOW}","updated_at":"${NOW}"}\n`,
    );
  });

  it('a duplicate policy number is a conflict (exit 6, DUPLICATE_POLICY) naming the existing id', async () => {
    expect((await premia(CREATE_P1)).code).toBe(0);
    const r = await premia([...CREATE_P1, '--json']);
    expect(r.code).toBe(6);
    expect(errorBody(r)).toEqual({
      code: 'DUPLICATE_POLICY',
      message: `Policy number P1 already exists (id ${policyId(1)}). Policy numbers are unique; update that policy instead.`,
      request_id: null,
      details: [{ field: 'policy_number', policy_number: 'P1', id: policyId(1) }],
    });
    const human = await premia(CREATE_P1);
    expect(human.code).toBe(6);
    expect(human.stderr).toBe(
      `error: Policy number P1 already exists (id ${policyId(1)}). Policy numbers are unique; update that policy instead.\n  (code DUPLICATE_POLICY)\n`,
    );
  });

  it('invalid values: exit 2 with every bad field in the details, nothing stored', async () => {
    const r = await premia([
      'policies', 'create', '--policy-number', '-P1', '--customer-id', 'C 1', '--external-ref', '=ACME',
      '--product-code', 'funeral', '--amount', '1,000.00', '--json',
    ]);
    expect(r.code).toBe(2);
    const error = errorBody(r);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe(
      'The options have 5 problems (--policy-number, --customer-id, --external-ref, --product-code, --amount); see details.',
    );
    expect(error.details).toEqual([
      { field: 'policy_number', code: 'INVALID_FORMAT', message: "--policy-number '-P1' must not start with '-'" },
      { field: 'customer_id', code: 'INVALID_FORMAT', message: "--customer-id 'C 1' has a space at position 2; only letters, digits and - _ . / are allowed" },
      { field: 'external_customer_ref', code: 'INVALID_FORMAT', message: "--external-ref '=ACME' has '=' at position 1; only letters, digits and - _ . / are allowed" },
      { field: 'product_code', code: 'INVALID_FORMAT', message: "--product-code 'funeral' must be upper case (A-Z 0-9 _ -)" },
      { field: 'collection_amount', code: 'INVALID_AMOUNT', message: "--amount '1,000.00' has a thousands separator; write it without one, like 1000.00" },
    ]);
    expect(existsSync(db)).toBe(false); // refused before a store was even made
  });

  it('invalid values in human output: the summary, then one line per problem', async () => {
    const r = await premia(['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E 1', '--product-code', 'X', '--amount', '0']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error: The options have 2 problems (--external-ref, --amount); see details.\n' +
        "  - --external-ref 'E 1' has a space at position 2; only letters, digits and - _ . / are allowed\n" +
        "  - --amount '0' must be greater than 0.00\n" +
        '  (code VALIDATION_ERROR)\n',
    );
  });

  it('missing flags: exit 2 naming each of them', async () => {
    const r = await premia(['policies', 'create', '--policy-number', 'P1', '--amount', '10', '--json']);
    expect(r.code).toBe(2);
    expect(errorBody(r)).toEqual({
      code: 'USAGE_ERROR',
      message:
        'Missing --customer-id, --external-ref, --product-code: a policy needs all five of --policy-number, --customer-id, --external-ref, --product-code, --amount.',
      request_id: null,
    });
  });
});

describe('policies get', () => {
  it('finds a policy by id and by policy number, in upper-case id too', async () => {
    await premia(CREATE_P1);
    const byNumber = await premia(['policies', 'get', 'P1', '--json']);
    const byId = await premia(['policies', 'get', policyId(1), '--json']);
    const byUpperId = await premia(['policies', 'get', policyId(1).toUpperCase(), '--json']);
    expect(byNumber.code).toBe(0);
    expect(byNumber.stdout).toBe(
      `{"id":"${policyId(1)}","policy_number":"P1","customer_id":"C1","external_customer_ref":"ACME-1","product_code":"FUNERAL",` +
        `"collection_amount":149.50,"collection_amount_effective_period":null,"status":"active","created_at":"${NOW}","updated_at":"${NOW}",` +
        '"amount_history":[],"status_history":[]}\n',
    );
    expect(byId.stdout).toBe(byNumber.stdout);
    expect(byUpperId.stdout).toBe(byNumber.stdout);
  });

  // `policies get pol-2026001` said only "not found. Check the id or number", though the book
  // holds POL-2026001: policy numbers are case-sensitive, which nothing said.
  it('a number that differs only in case: NOT_FOUND naming the policy meant (get, update, collections list)', async () => {
    await premia(['policies', 'create', '--policy-number', 'POL-1', '--customer-id', 'C1', '--external-ref', 'ACME-1', '--product-code', 'FUNERAL', '--amount', '149.5']);
    const message = "Policy 'pol-1' was not found: policy numbers are case-sensitive, and there is a policy POL-1.";
    for (const args of [
      ['policies', 'get', 'pol-1'],
      ['policies', 'update', 'pol-1', '--amount', '150'],
      ['collections', 'list', '--period', '2026-11', '--policy', 'pol-1'],
    ]) {
      const r = await premia(args);
      expect([r.code, r.stdout, r.stderr]).toEqual([5, '', `error: ${message}\n  (code NOT_FOUND)\n`]);
    }
    const other = await premia(['policies', 'get', 'pol-2']);
    expect(other.stderr).toBe("error: Policy 'pol-2' was not found. Check the id or number and try again.\n  (code NOT_FOUND)\n");
    expect((await premia(['policies', 'get', 'POL-1', '--json'])).json().collection_amount).toBe(149.5);
  });

  it('an unknown policy is exit 5 NOT_FOUND (by number and by a well-formed id)', async () => {
    await premia(CREATE_P1);
    const r = await premia(['policies', 'get', 'NOPE', '--json']);
    expect(r.code).toBe(5);
    expect(errorBody(r)).toEqual({
      code: 'NOT_FOUND',
      message: "Policy 'NOPE' was not found. Check the id or number and try again.",
      request_id: null,
    });
    expect((await premia(['policies', 'get', policyId(2)])).code).toBe(5);
    // An id minted with another store's salt is not an id here.
    expect((await premia(['policies', 'get', encodeId(IdKind.policy, 42, 1)])).code).toBe(5);
  });

  it('a ref that can be neither an id nor a number is exit 2 VALIDATION_ERROR, echoed safely', async () => {
    await premia(CREATE_P1);
    const cases: Array<[string[], string]> = [
      [['policies', 'get', ''], 'A policy id or number is required.'],
      [['policies', 'update', '', '--amount', '12'], 'A policy id or number is required.'],
      [['policies', 'get', 'x'.repeat(5000)], 'A policy id or number is 5000 characters long; at most 64 are allowed.'],
      [['policies', 'update', '\u001b[31mX', '--amount', '12'], "A policy id or number '\\u001b[31mX' has a control character (U+001B) at position 1; only letters, digits and - _ . / are allowed."],
    ];
    for (const [args, message] of cases) {
      const r = await premia([...args, '--json']);
      expect(r.code, args.join(' ').slice(0, 40)).toBe(2);
      expect(errorBody(r)).toMatchObject({ code: 'VALIDATION_ERROR', message });
    }
  });
});

describe('policies update', () => {
  it('an amount change applies from the month after the clock’s month, and get shows the history', async () => {
    await premia(CREATE_P1);
    const r = await premia(['policies', 'update', 'P1', '--amount', '210', '--json'], { now: at('2026-11-21T10:00:00.000Z') });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `{"id":"${policyId(1)}","policy_number":"P1","customer_id":"C1","external_customer_ref":"ACME-1","product_code":"FUNERAL",` +
        `"collection_amount":210.00,"collection_amount_effective_period":"2026-12","status":"active",` +
        `"created_at":"${NOW}","updated_at":"2026-11-21T10:00:00.000Z"}\n`,
    );

    // In the last month of the year the change applies from January.
    expect((await premia(['clock', 'set', '2026-12-31'])).code).toBe(0);
    const second = await premia(['policies', 'update', policyId(1), '--amount', '199.99', '--json']);
    expect(second.json()).toMatchObject({ collection_amount: 199.99, collection_amount_effective_period: '2027-01', updated_at: '2026-12-31T09:30:00.000Z' });
    expect(second.stdout).toContain('"collection_amount":199.99,');

    const got = await premia(['policies', 'get', 'P1', '--json']);
    expect(got.json().amount_history).toEqual([
      { effective_period: '2026-12', old_amount: 149.5, new_amount: 210, changed_on: '2026-11-21' },
      { effective_period: '2027-01', old_amount: 210, new_amount: 199.99, changed_on: '2026-12-31' },
    ]);
    expect(got.stdout).toContain(
      '"amount_history":[{"effective_period":"2026-12","old_amount":149.50,"new_amount":210.00,"changed_on":"2026-11-21"},' +
        '{"effective_period":"2027-01","old_amount":210.00,"new_amount":199.99,"changed_on":"2026-12-31"}]',
    );

    const human = await premia(['policies', 'get', 'P1']);
    expect(human.stdout).toContain('collection_amount      199.99 (from 2027-01)\n');
    expect(human.stdout).toContain(
      [
        'Amount changes:',
        'changed_on  effective_period  old_amount  new_amount',
        '2026-11-21  2026-12               149.50      210.00',
        '2026-12-31  2027-01               210.00      199.99',
      ].join('\n'),
    );
  });

  it('status: active → lapsed → active → cancelled, then cancelled → active is exit 6 INVALID_TRANSITION', async () => {
    await premia(CREATE_P1);
    const lapsed = await premia(['policies', 'update', 'P1', '--status', 'lapsed', '--json']);
    expect(lapsed.code).toBe(0);
    expect(lapsed.json().status).toBe('lapsed');
    const reinstated = await premia(['policies', 'update', 'P1', '--status', 'active', '--json']);
    expect(reinstated.json().status).toBe('active');
    const cancelled = await premia(['policies', 'update', 'P1', '--status', 'cancelled', '--json']);
    expect(cancelled.json().status).toBe('cancelled');

    const back = await premia(['policies', 'update', 'P1', '--status', 'active', '--json']);
    expect(back.code).toBe(6);
    expect(errorBody(back)).toEqual({
      code: 'INVALID_TRANSITION',
      message: "Policy P1 cannot move from 'cancelled' to 'active': a cancelled policy is final; create a new policy instead.",
      request_id: null,
      details: [{ field: 'status', from: 'cancelled', to: 'active' }],
    });
    expect((await premia(['policies', 'update', 'P1', '--status', 'lapsed'])).code).toBe(6);
    // A refused move changes nothing, not even an amount given with it.
    expect((await premia(['policies', 'update', 'P1', '--status', 'active', '--amount', '500'])).code).toBe(6);

    const got = (await premia(['policies', 'get', 'P1', '--json'])).json();
    expect(got.status).toBe('cancelled');
    expect(got.collection_amount).toBe(149.5);
    expect(got.amount_history).toEqual([]);
    expect(got.status_history).toEqual([
      { old_status: 'active', new_status: 'lapsed', changed_on: '2026-11-21', reason: 'update' },
      { old_status: 'lapsed', new_status: 'active', changed_on: '2026-11-21', reason: 'update' },
      { old_status: 'active', new_status: 'cancelled', changed_on: '2026-11-21', reason: 'update' },
    ]);
  });

  it('cancelling and changing the premium in one update is refused whole (exit 6): the premium history stays clean', async () => {
    await premia(CREATE_P1);
    const both = await premia(['policies', 'update', 'P1', '--status', 'cancelled', '--amount', '5', '--yes', '--json']);
    expect(both.code).toBe(6);
    expect(errorBody(both)).toMatchObject({
      code: 'INVALID_TRANSITION',
      message: 'Policy P1: a cancellation is final and leaves no premium to change; cancel it, or change its premium, not both in one update.',
    });
    const got = (await premia(['policies', 'get', 'P1', '--json'])).json();
    expect(got).toMatchObject({ status: 'active', collection_amount: 149.5, amount_history: [], status_history: [] });
    // The same amount with the cancellation changes no premium: it is a plain cancellation.
    expect((await premia(['policies', 'update', 'P1', '--status', 'cancelled', '--amount', '149.50', '--yes'])).code).toBe(0);
  });

  it('a tenfold premium with a cancellation, or on a cancelled policy, is the INVALID_TRANSITION it is, not a --yes to give', async () => {
    await premia(CREATE_P1);
    const both = await premia(['policies', 'update', 'P1', '--status', 'cancelled', '--amount', '5', '--json']);
    expect(both.code).toBe(6);
    expect(errorBody(both)).toMatchObject({
      code: 'INVALID_TRANSITION',
      message: 'Policy P1: a cancellation is final and leaves no premium to change; cancel it, or change its premium, not both in one update.',
    });
    expect((await premia(['policies', 'update', 'P1', '--status', 'cancelled'])).code).toBe(0);
    const after = await premia(['policies', 'update', 'P1', '--amount', '5', '--json']);
    expect(after.code).toBe(6);
    expect(errorBody(after)).toMatchObject({
      code: 'INVALID_TRANSITION',
      message: 'Policy P1 is cancelled, which is final: its premium no longer changes.',
    });
  });

  it('setting the same status again is a no-op: updated_at stays, no history', async () => {
    await premia(CREATE_P1);
    const r = await premia(['policies', 'update', 'P1', '--status', 'active', '--json'], { now: at('2026-11-21T15:45:00.000Z') });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ status: 'active', updated_at: NOW });
    // The same amount again is a no-op too.
    const same = await premia(['policies', 'update', 'P1', '--amount', '149.50', '--json'], { now: at('2026-11-21T16:00:00.000Z') });
    expect(same.json()).toMatchObject({ collection_amount: 149.5, collection_amount_effective_period: null, updated_at: NOW });
    const got = (await premia(['policies', 'get', 'P1', '--json'])).json();
    expect(got.status_history).toEqual([]);
    expect(got.amount_history).toEqual([]);
    expect(got.updated_at).toBe(NOW);
    // The status line says nothing changed, rather than "Updated".
    const plain = await premia(['policies', 'update', 'P1', '--status', 'active', '--amount', '149.50']);
    expect([plain.code, plain.stderr]).toEqual([0, 'Policy P1 unchanged: already active; premium already 149.50.\n']);
    expect((await premia(['policies', 'update', 'P1', '--status', 'lapsed'])).stderr).toBe('Updated policy P1.\n');
    expect((await premia(['policies', 'update', 'P1', '--status', 'lapsed'])).stderr).toBe('Policy P1 unchanged: already lapsed.\n');
  });

  it('with neither --amount nor --status: exit 2', async () => {
    await premia(CREATE_P1);
    const r = await premia(['policies', 'update', 'P1', '--json']);
    expect(r.code).toBe(2);
    expect(errorBody(r)).toEqual({ code: 'USAGE_ERROR', message: 'Nothing to update: give --amount, --status, or both.', request_id: null });
  });

  it('a bad amount is exit 2 VALIDATION_ERROR; a bad status is a usage error', async () => {
    await premia(CREATE_P1);
    const amount = await premia(['policies', 'update', 'P1', '--amount', '1.001', '--json']);
    expect(amount.code).toBe(2);
    // Named by the option, as every option error is (issue 12); the detail keeps the API's field.
    expect(errorBody(amount)).toEqual({
      code: 'VALIDATION_ERROR',
      message: "--amount '1.001' has more than two decimals.",
      request_id: null,
      details: [{ field: 'collection_amount', code: 'INVALID_AMOUNT', message: "--amount '1.001' has more than two decimals" }],
    });
    const negative = await premia(['policies', 'create', '--policy-number', 'P9', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'X', '--amount', '-5']);
    expect([negative.code, negative.stderr]).toEqual([2, "error: --amount '-5' is negative; it must be greater than 0.00.\n  (code VALIDATION_ERROR)\n"]);
    const status = await premia(['policies', 'update', 'P1', '--status', 'closed']);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain("error: option '--status <status>' argument 'closed' is invalid. Allowed choices are active, lapsed, cancelled.");
  });

  it('an unknown policy is exit 5', async () => {
    await premia(['clock', 'set', '2026-11-21']); // a store to look in
    const r = await premia(['policies', 'update', 'NOPE', '--status', 'lapsed', '--json']);
    expect(r.code).toBe(5);
    expect(errorBody(r).code).toBe('NOT_FOUND');
  });

  it('a reinstated policy left out of the month queued while it was lapsed is named (also under --quiet); a rerun queues it', async () => {
    await premia(CREATE_P1);
    await premia(['policies', 'create', '--policy-number', 'P2', '--customer-id', 'C2', '--external-ref', 'ACME-2', '--product-code', 'FUNERAL', '--amount', '80']);
    await premia(['policies', 'update', 'P2', '--status', 'lapsed']);
    expect((await premia(['--json', 'collections', 'execute', '--period', '2026-11'])).json().policies_queued).toBe(1);
    const back = await premia(['-q', 'policies', 'update', 'P2', '--status', 'active']);
    expect([back.code, back.stderr]).toEqual([
      0,
      "warning: 2026-11 was queued while policy P2 was lapsed, so it is not in it. To collect it this month, run 'premia collections execute --period 2026-11' " +
        'before 2026-11-30 closes it (it queues only the policies not yet queued).\n',
    ]);
    expect(back.stdout).toContain('status                 active\n');
    // Active again already: nothing to say. Lapsed and reinstated after the run: it is in it.
    expect((await premia(['-q', 'policies', 'update', 'P2', '--status', 'active'])).stderr).toBe('');
    await premia(['policies', 'update', 'P1', '--status', 'lapsed']);
    expect((await premia(['-q', 'policies', 'update', 'P1', '--status', 'active'])).stderr).toBe('');
    expect((await premia(['--json', 'collections', 'execute', '--period', '2026-11'])).json().policies_queued).toBe(1);
  });
});

describe('policies list', () => {
  beforeEach(async () => {
    const r = await premia(['policies', 'import', join(FIXTURES, 'policies.csv'), '--json']);
    expect(r.code).toBe(0);
  });

  it('pages in policy-number order with --limit and --after, ending with next_after null', async () => {
    const first = (await premia(['policies', 'list', '--limit', '2', '--json'])).json();
    expect(first.data.map((p: { policy_number: string }) => p.policy_number)).toEqual(['POL-2026001', 'POL-2026002']);
    expect(first.next_after).toBe('POL-2026002');
    expect(first.data[0]).toEqual({
      id: policyId(1),
      policy_number: 'POL-2026001',
      customer_id: 'C100001',
      external_customer_ref: 'ACME-707919',
      product_code: 'DISABILITY',
      collection_amount: 870.08,
      collection_amount_effective_period: null,
      status: 'active',
      created_at: NOW,
      updated_at: NOW,
    });
    const second = (await premia(['policies', 'list', '--limit', '2', '--after', first.next_after, '--json'])).json();
    expect(second.data.map((p: { policy_number: string }) => p.policy_number)).toEqual(['POL-2026003', 'POL-2026004']);
    const last = (await premia(['policies', 'list', '--limit', '5', '--after', 'POL-2026518', '--json'])).json();
    expect(last).toMatchObject({ next_after: null });
    expect(last.data.map((p: { policy_number: string }) => p.policy_number)).toEqual(['POL-2026519', 'POL-2026520']);
    // Exactly a page's worth left: no next page.
    const exact = (await premia(['policies', 'list', '--limit', '2', '--after', 'POL-2026518', '--json'])).json();
    expect(exact.next_after).toBeNull();
  });

  it('without --limit lists 100', async () => {
    const page = (await premia(['policies', 'list', '--json'])).json();
    expect(page.data).toHaveLength(100);
    expect(page.next_after).toBe('POL-2026100');
  });

  it('--status filters', async () => {
    await premia(['policies', 'update', 'POL-2026007', '--status', 'lapsed']);
    await premia(['policies', 'update', 'POL-2026003', '--status', 'lapsed']);
    await premia(['policies', 'update', 'POL-2026005', '--status', 'cancelled']);
    const lapsed = (await premia(['policies', 'list', '--status', 'lapsed', '--json'])).json();
    expect(lapsed.data.map((p: { policy_number: string }) => p.policy_number)).toEqual(['POL-2026003', 'POL-2026007']);
    expect(lapsed.next_after).toBeNull();
    const page = (await premia(['policies', 'list', '--status', 'lapsed', '--limit', '1', '--json'])).json();
    expect(page).toMatchObject({ next_after: 'POL-2026003' });
    const cancelled = (await premia(['policies', 'list', '--status', 'cancelled', '--json'])).json();
    expect(cancelled.data.map((p: { policy_number: string }) => p.policy_number)).toEqual(['POL-2026005']);
    const active = (await premia(['policies', 'list', '--status', 'active', '--limit', '10000', '--json'])).json();
    expect(active.data).toHaveLength(517);
  });

  it('human output is a table, with the next page hint on stderr', async () => {
    const r = await premia(['policies', 'list', '--limit', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'policy_number  customer_id  product_code   collection_amount  status  id',
        `POL-2026001    C100001      DISABILITY                870.08  active  ${policyId(1)}`,
        `POL-2026002    C100001      LIFE_STANDARD             941.34  active  ${policyId(2)}`,
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('More policies follow: run again with --after POL-2026002\n');
  });

  it.each(['0', '10001', 'abc', '1.5'])('--limit %s is exit 2', async (limit) => {
    const r = await premia(['policies', 'list', '--limit', limit, '--json']);
    expect(r.code).toBe(2);
    expect(errorBody(r)).toEqual({ code: 'VALIDATION_ERROR', message: `--limit must be a whole number from 1 to 10000; got '${limit}'.`, request_id: null });
  });
});

describe('policies import', () => {
  const INVALID_ROWS: Array<[row: number, policyNumber: string | null, field: string, code: string]> = [
    [3, 'POL-9000002', 'customer_id', 'REQUIRED'],
    [4, 'POL-9000003', 'customer_id', 'INVALID_FORMAT'],
    [5, 'POL-9000004', 'customer_id', 'TOO_LONG'],
    [6, 'POL-9000005', 'customer_id', 'INVALID_FORMAT'],
    [7, 'POL-9000006', 'external_customer_ref', 'INVALID_FORMAT'],
    [8, null, 'policy_number', 'REQUIRED'],
    [9, '@POL-9000008', 'policy_number', 'INVALID_FORMAT'],
    [10, 'POL-9000009', 'product_code', 'INVALID_FORMAT'],
    [11, 'POL-9000010', 'product_code', 'TOO_LONG'],
    [12, 'POL-9000011', 'product_code', 'INVALID_FORMAT'],
    [13, 'POL-9000012', 'collection_amount', 'AMOUNT_OUT_OF_RANGE'],
    [14, 'POL-9000013', 'collection_amount', 'AMOUNT_OUT_OF_RANGE'],
    [15, 'POL-9000014', 'collection_amount', 'INVALID_AMOUNT'],
    [16, 'POL-9000015', 'collection_amount', 'INVALID_AMOUNT'],
    [17, 'POL-9000016', 'collection_amount', 'INVALID_AMOUNT'],
    [18, 'POL-9000017', 'collection_amount', 'REQUIRED'],
    [19, 'POL-9000018', 'collection_amount', 'INVALID_AMOUNT'],
    [20, 'POL-9000019', 'collection_amount', 'AMOUNT_OUT_OF_RANGE'],
    [21, 'POL-9000020', 'row', 'WRONG_FIELD_COUNT'],
    [22, 'POL-9000021', 'row', 'WRONG_FIELD_COUNT'],
    [23, 'POL-9000001', 'policy_number', 'DUPLICATE_IN_FILE'],
    [24, 'POL-2026001', 'policy_number', 'DUPLICATE_POLICY'],
    [25, 'POL-9000024x', 'row', 'MALFORMED_ROW'],
    [26, 'POL 9000025', 'external_customer_ref', 'INVALID_FORMAT'],
    [26, 'POL 9000025', 'policy_number', 'INVALID_FORMAT'],
    [26, 'POL 9000025', 'product_code', 'INVALID_FORMAT'],
    [26, 'POL 9000025', 'collection_amount', 'INVALID_AMOUNT'],
    [27, 'POL-9000026', 'collection_amount', 'INVALID_AMOUNT'],
  ];

  it('imports the fixture book: exactly {"imported":520,"failed":0,"errors":[]}', async () => {
    const r = await premia(['policies', 'import', join(FIXTURES, 'policies.csv'), '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"imported":520,"failed":0,"errors":[]}\n');
    expect(r.stderr).toBe('');
    const numbers = await policyNumbers();
    expect(numbers).toHaveLength(520);
    expect(numbers[0]).toBe('POL-2026001');
    expect(numbers[519]).toBe('POL-2026520');
  });

  it('then the invalid fixture: exit 3 and every rejected row with its field and code', async () => {
    await premia(['policies', 'import', join(FIXTURES, 'policies.csv')]);
    const r = await premia(['policies', 'import', join(FIXTURES, 'policies-invalid.csv'), '--json']);
    expect(r.code).toBe(3);
    const result = r.json();
    expect(result.imported).toBe(3);
    expect(result.failed).toBe(25);
    expect(result.errors.map((e: { row: number; policy_number: string | null; field: string; code: string }) => [e.row, e.policy_number, e.field, e.code])).toEqual(
      INVALID_ROWS,
    );
    for (const e of result.errors) expect(Object.keys(e)).toEqual(['row', 'policy_number', 'field', 'code', 'message']);
    const byRow = (row: number) => result.errors.filter((e: { row: number }) => e.row === row).map((e: { message: string }) => e.message);
    expect(byRow(23)).toEqual(['policy POL-9000001 already appears on row 2 of this file']);
    expect(byRow(24)).toEqual(['policy POL-2026001 already exists; update it instead of importing it again']);
    expect(byRow(25)).toEqual(['unexpected text after a closing quote: "x"']);
    expect(byRow(21)).toEqual(['expected 5 fields, found 4']);
    expect(byRow(22)).toEqual(['expected 5 fields, found 6']);
    expect(byRow(7)).toEqual([`external_customer_ref '=HYPERLINK("http://x")' has '=' at position 1; only letters, digits and - _ . / are allowed`]);

    // The three good rows are stored, trimmed; the stored POL-2026001 is untouched.
    const numbers = await policyNumbers();
    expect(numbers).toHaveLength(523);
    expect(numbers.filter((n) => n.startsWith('POL-9'))).toEqual(['POL-9000001', 'POL-9000027', 'POL-9000028']);
    const trimmed = (await premia(['policies', 'get', 'POL-9000027', '--json'])).json();
    expect(trimmed).toMatchObject({ customer_id: 'C900027', external_customer_ref: 'ACME-900027', product_code: 'LIFE_STANDARD', collection_amount: 1250.5, status: 'active' });
    expect((await premia(['policies', 'get', 'POL-2026001', '--json'])).json()).toMatchObject({ customer_id: 'C100001', collection_amount: 870.08 });
  });

  it('the invalid fixture in human output: a summary line, then a table of errors', async () => {
    const r = await premia(['policies', 'import', join(FIXTURES, 'policies-invalid.csv')]);
    expect(r.code).toBe(3);
    const lines = r.stdout.split('\n');
    // On an empty store POL-2026001 is new, so 4 rows import and 24 fail.
    expect(lines[0]).toBe('Imported 4 policies; 24 rows failed.');
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^row {2}policy_number +field +code +message$/);
    expect(lines[3]).toMatch(/^ {2}3 {2}POL-9000002 +customer_id +REQUIRED +customer_id is required$/);
    expect(lines.filter((l) => /^ *\d+ {2}/.test(l))).toHaveLength(27);
  });

  it('imports a file with a BOM, CRLF line ends, spaces around cells (quoted or not), quoted cells, lines of only spaces and a trailing empty line', async () => {
    const file = csvFile(
      'windows.csv',
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(`${HEADER}\r\n  C1 , E1 ,P-1, FUNERAL ,  99.5 \r\n   \r\n"C2","E2","P-2","LIFE","1000"\r\n\t\r\n"C3", "E3" ,\t"P-3"\t, "LIFE" , "12.50" \r\n\r\n`),
      ]),
    );
    const r = await premia(['policies', 'import', file, '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"imported":3,"failed":0,"errors":[]}\n');
    // Spaces around quoted cells too (a hand-written `"a", "b"`).
    expect((await premia(['policies', 'get', 'P-3', '--json'])).json()).toMatchObject({ customer_id: 'C3', external_customer_ref: 'E3', collection_amount: 12.5 });
    expect((await premia(['policies', 'get', 'P-1', '--json'])).json()).toMatchObject({
      customer_id: 'C1',
      external_customer_ref: 'E1',
      product_code: 'FUNERAL',
      collection_amount: 99.5,
      status: 'active',
    });
    expect((await premia(['policies', 'get', 'P-2', '--json'])).json()).toMatchObject({ customer_id: 'C2', product_code: 'LIFE', collection_amount: 1000 });
  });

  it('a quoted cell may hold a comma, which the identifier rules then refuse', async () => {
    const file = csvFile('comma.csv', `${HEADER}\r\nC2,"E,2",P-2,LIFE,1000\r\n`);
    const r = await premia(['policies', 'import', file, '--json']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe(
      '{"imported":0,"failed":1,"errors":[{"row":2,"policy_number":"P-2","field":"external_customer_ref","code":"INVALID_FORMAT",' +
        '"message":"external_customer_ref \'E,2\' has \',\' at position 2; only letters, digits and - _ . / are allowed"}]}\n',
    );
  });

  it('a policy already stored is DUPLICATE_POLICY; a repeat inside the file is DUPLICATE_IN_FILE', async () => {
    await premia(CREATE_P1);
    const file = csvFile('dups.csv', `${HEADER}\nC1,E1,P1,X,1.00\nC2,E2,P2,X,2.00\nC3,E3,P2,X,3.00\n`);
    const r = await premia(['policies', 'import', file, '--json']);
    expect(r.code).toBe(3);
    expect(r.json()).toEqual({
      imported: 1,
      failed: 2,
      errors: [
        { row: 2, policy_number: 'P1', field: 'policy_number', code: 'DUPLICATE_POLICY', message: 'policy P1 already exists; update it instead of importing it again' },
        { row: 4, policy_number: 'P2', field: 'policy_number', code: 'DUPLICATE_IN_FILE', message: 'policy P2 already appears on row 3 of this file' },
      ],
    });
    // The first P2 won, and P1 kept its own values.
    expect((await premia(['policies', 'get', 'P2', '--json'])).json()).toMatchObject({ customer_id: 'C2', collection_amount: 2 });
    expect((await premia(['policies', 'get', 'P1', '--json'])).json()).toMatchObject({ customer_id: 'C1', collection_amount: 149.5 });
  });

  it('two files joined into one (cat a.csv b.csv): the header again is one MALFORMED_ROW that says so, the rows around it imported', async () => {
    const file = csvFile('joined.csv', `${HEADER}\nC1,E1,P1,X,1.00\n${HEADER.toUpperCase()}\nC2,E2,P2,X,2.00\nC3,E3,P1,X,3.00\n`);
    const r = await premia(['policies', 'import', file]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe(
      'Imported 2 policies; 2 rows failed.\n\n' +
        'row  policy_number  field          code               message\n' +
        '  3  POLICY_NUMBER  row            MALFORMED_ROW      this row is the header again (files joined into one?); it is skipped and the rows around it are read as usual; delete the line to import the file without this error\n' +
        '  5  P1             policy_number  DUPLICATE_IN_FILE  policy P1 already appears on row 2 of this file\n',
    );
    expect(await policyNumbers()).toEqual(['P1', 'P2']);
  });

  it("an id a spreadsheet saved in scientific notation is named as such, not as a '+' to delete", async () => {
    const file = csvFile('scientific.csv', `${HEADER}\n1.23457E+11,E1,P-S1,LIFE,10.00\n`);
    const r = await premia(['--json', 'policies', 'import', file]);
    expect([r.code, r.json().errors]).toEqual([
      3,
      [
        {
          row: 2,
          policy_number: 'P-S1',
          field: 'customer_id',
          code: 'INVALID_FORMAT',
          message:
            "customer_id '1.23457E+11' is a long number as a spreadsheet shows it, in scientific notation, which keeps only its first digits; format the column as text and copy the ids from their source again",
        },
      ],
    ]);
  });

  it('an amount with thousands separators or a decimal comma and no quotes splits the row: its message says so', async () => {
    const file = csvFile('thousands.csv', `${HEADER}\nC1,E1,P-T1,LIFE,"1,234.50"\nC2,E2,P-T2,LIFE,1,234.50\nC3,E3,P-T3,LIFE,12,5\nC4,E4,P-T4,LIFE,1.234,50\nC5,E5,P-T5,LIFE,1\u202f234,50\n`);
    const r = await premia(['--json', 'policies', 'import', file]);
    expect(r.code).toBe(3);
    expect(r.json().errors.map((e: { row: number; code: string; message: string }) => [e.row, e.code, e.message])).toEqual([
      [2, 'INVALID_AMOUNT', "collection_amount '1,234.50' has a thousands separator; write it without one, like 1000.00"],
      [3, 'WRONG_FIELD_COUNT', "expected 5 fields, found 6: the collection_amount '1,234.50' has thousands separators, which split it into fields; write it without them, like 1234.50"],
      [4, 'WRONG_FIELD_COUNT', "expected 5 fields, found 6: the collection_amount '12,5' has a decimal comma, which split it into fields; write it as 12.5"],
      [5, 'WRONG_FIELD_COUNT', "expected 5 fields, found 6: the collection_amount '1.234,50' has a thousands separator and a decimal comma, which split it into fields; write it as 1234.50"],
      [6, 'WRONG_FIELD_COUNT', "expected 5 fields, found 6: the collection_amount '1\u202f234,50' has a thousands separator and a decimal comma, which split it into fields; write it as 1234.50"],
    ]);
  });

  it("a spreadsheet's empty columns after collection_amount: the header and the rows say so", async () => {
    const head = await premia(['policies', 'import', csvFile('trailing header.csv', `${HEADER},,\nC1,E1,P1,X,1.00,,\n`)]);
    expect([head.code, head.stdout, head.stderr]).toEqual([
      2,
      '',
      "error: trailing header.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; " +
        "found 'customer_id,external_customer_ref,policy_number,product_code,collection_amount,,'. " +
        'It ends with empty columns after collection_amount (a trailing comma, as a spreadsheet writes a column it kept); delete them. Nothing was imported.\n  (code INVALID_FILE)\n',
    ]);
    const rows = await premia(['policies', 'import', csvFile('trailing rows.csv', `${HEADER}\nC1,E1,P1,X,1.00, ,\nC2,E2,P2,X,2.00,X\nC3,E3,P3,X,3.00\n`), '--json']);
    expect(rows.code).toBe(3);
    expect(rows.json()).toEqual({
      imported: 1,
      failed: 2,
      errors: [
        {
          row: 2,
          policy_number: 'P1',
          field: 'row',
          code: 'WRONG_FIELD_COUNT',
          message: 'expected 5 fields, found 7, the ones after collection_amount empty (a trailing comma, as a spreadsheet writes a column it kept); delete them',
        },
        { row: 3, policy_number: 'P2', field: 'row', code: 'WRONG_FIELD_COUNT', message: 'expected 5 fields, found 6' },
      ],
    });
    expect(await policyNumbers()).toEqual(['P3']);
  });

  it('the header is matched without regard to case or surrounding spaces', async () => {
    const file = csvFile('upper.csv', `${HEADER.toUpperCase().split(',').join(' , ')}\nC1,E1,P1,X,1.00\n`);
    expect((await premia(['policies', 'import', file, '--json'])).stdout).toBe('{"imported":1,"failed":0,"errors":[]}\n');
  });

  it('lines of only spaces or tabs before the header are skipped like empty ones', async () => {
    const file = csvFile('blank-first.csv', `\n  \n\t\n${HEADER}\nC1,E1,P1,X,1.00\n \nC2,E2,P2,X,abc\n`);
    const r = await premia(['policies', 'import', file, '--json']);
    expect(r.code).toBe(3);
    expect(r.json()).toMatchObject({ imported: 1, failed: 1, errors: [{ row: 7, field: 'collection_amount' }] });
  });

  it('rows of only separators and empty cells (a spreadsheet\'s cleared rows) are skipped like blank lines', async () => {
    const file = csvFile(
      'cleared-rows.csv',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`,,,,\r\n${HEADER}\r\nC1,E1,P1,X,"1.00"\r\n,,,,\r\n"","","","",""\r\n , ,\t, ,\r\nC2,E2,P2,X,abc\r\n,,,\r\n,,,,\r\n,,,,\r\n`)]),
    );
    const r = await premia(['policies', 'import', file, '--json']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe(
      '{"imported":1,"failed":1,"errors":[{"row":7,"policy_number":"P2","field":"collection_amount","code":"INVALID_AMOUNT","message":"collection_amount \'abc\' is not a number; give a premium like 149.50"}]}\n',
    );
    expect(await policyNumbers()).toEqual(['P1']);
  });

  it('counts lines inside quoted cells in the row numbers', async () => {
    const file = csvFile('multiline.csv', `${HEADER}\nC1,"E\n1",P1,X,1.00\nC2,E2,P2,X,abc\n`);
    const r = (await premia(['policies', 'import', file, '--json'])).json();
    expect(r.errors.map((e: { row: number; field: string }) => [e.row, e.field])).toEqual([
      [2, 'external_customer_ref'],
      [4, 'collection_amount'],
    ]);
  });

  describe('a file that is not a policy CSV is refused whole: exit 2 INVALID_FILE, nothing imported', () => {
    const cases: Array<[name: string, content: () => string | Buffer, message: string]> = [
      [
        'wrong header',
        () => `customer,ref,number,product,amount\nC1,E1,P1,X,1.00\n`,
        "wrong header.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'customer,ref,number,product,amount'. Nothing was imported.",
      ],
      [
        'columns in the wrong order',
        () => `policy_number,customer_id,external_customer_ref,product_code,collection_amount\nP1,C1,E1,X,1.00\n`,
        "columns in the wrong order.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'policy_number,customer_id,external_customer_ref,product_code,collection_amount'. The columns are right but in the wrong order. Nothing was imported.",
      ],
      [
        'a notes column',
        () => `${HEADER},notes\nC1,E1,P1,X,1.00,first\n`,
        "a notes column.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'customer_id,external_customer_ref,policy_number,product_code,collection_amount,notes'. It has a column premia does not read ('notes'); delete it. Nothing was imported.",
      ],
      [
        'a column left out',
        () => `customer_id,external_customer_ref,policy_number,collection_amount\nC1,E1,P1,1.00\n`,
        "a column left out.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'customer_id,external_customer_ref,policy_number,collection_amount'. It lacks the column 'product_code'. Nothing was imported.",
      ],
      [
        'a column twice',
        () => `${HEADER},policy_number\nC1,E1,P1,X,1.00,P1\n`,
        "a column twice.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'customer_id,external_customer_ref,policy_number,product_code,collection_amount,policy_number'. It has the column 'policy_number' more than once. Nothing was imported.",
      ],
      [
        'columns left out, twice and unknown',
        () => `customer_id,policy_number,collection_amount,premium,Policy_Number\nC1,P1,1.00,1.00,P1\n`,
        "columns left out, twice and unknown.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'customer_id,policy_number,collection_amount,premium,Policy_Number'. It lacks the columns 'external_customer_ref', 'product_code'; has the column 'policy_number' more than once; and has a column premia does not read ('premium'). Nothing was imported.",
      ],
      [
        'titled columns',
        () => `Customer ID,External Customer Ref,Policy Number,Product Code,Collection Amount\nC1,E1,P1,X,1.00\n`,
        "titled columns.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'Customer ID,External Customer Ref,Policy Number,Product Code,Collection Amount'. Its names are written with spaces or hyphens; write them with underscores, as 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'. Nothing was imported.",
      ],
      [
        "excel's sep line",
        () => `sep=;\r\n${HEADER}\r\nC1,E1,P1,X,1.00\r\n`,
        "excel's sep line.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'sep=;'. It is Excel's 'sep=' line, which only Excel reads; delete that line. Nothing was imported.",
      ],
      [
        'no header',
        () => `C1,E1,P1,X,1.00\n`,
        "no header.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'C1,E1,P1,X,1.00'. Nothing was imported.",
      ],
      [
        'wrong header after blank lines',
        () => `\n\ncustomer,ref,number,product,amount\nC1,E1,P1,X,1.00\n`,
        "wrong header after blank lines.csv is not a policy CSV file: line 3: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'customer,ref,number,product,amount'. Nothing was imported.",
      ],
      [
        'semicolons',
        () => `${HEADER.replaceAll(',', ';')}\r\nC1;E1;P1;X;1.00\r\n`,
        "semicolons.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'customer_id;external_customer_ref;policy_number;product_code;collection_amount'. Its columns are separated by ';', not commas (a spreadsheet's list separator); save the file as comma-separated CSV. Nothing was imported.",
      ],
      [
        'tabs',
        () => `${HEADER.replaceAll(',', '\t')}\nC1\tE1\tP1\tX\t1.00\n`,
        "tabs.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'customer_id\\u0009external_customer_ref\\u0009policy_number\\u0009product_code\\u0009collection_amount'. Its columns are separated by tabs, not commas (a spreadsheet's list separator); save the file as comma-separated CSV. Nothing was imported.",
      ],
      [
        'unclosed quote',
        () => `${HEADER}\nC1,E1,P1,X,1.00\nC2,"E2,P2,X,1.00\nC3,E3,P3,X,1.00\n`,
        'unclosed quote.csv is not a policy CSV file: line 3: a quoted field opened here is never closed. Nothing was imported.',
      ],
      [
        'binary',
        () => Buffer.concat([Buffer.from(`${HEADER}\nC1,E1,P1,X,1.00\n`), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08])]),
        'binary.csv is not a policy CSV file: line 3: the file contains NUL bytes; it is binary, not CSV text. Nothing was imported.',
      ],
      [
        'latin-1',
        () => Buffer.concat([Buffer.from(`${HEADER}\nC1,E1,P1,X,1.00\nC2,Jos`), Buffer.from([0xe9]), Buffer.from(',P2,X,1.00\n')]),
        'latin-1.csv is not a policy CSV file: line 3: the file is not UTF-8 text (a legacy encoding such as Windows-1252, or binary content); save it as UTF-8 ("CSV UTF-8" in Excel). Nothing was imported.',
      ],
      [
        'utf-16',
        () => Buffer.from(`\ufeff${HEADER}\r\nC1,E1,P1,X,1.00\r\n`, 'utf16le'),
        'utf-16.csv is not a policy CSV file: line 1: the file is UTF-16 text (it begins with a UTF-16 byte order mark), not UTF-8; save it as UTF-8 ("CSV UTF-8" in Excel). Nothing was imported.',
      ],
      [
        'utf-16 without a byte order mark',
        () => Buffer.from(`${HEADER}\nC1,E1,P1,X,1.00\n`, 'utf16le'),
        'utf-16 without a byte order mark.csv is not a policy CSV file: line 1: the file is UTF-16 text (every other byte is NUL), not UTF-8; save it as UTF-8 ("CSV UTF-8" in Excel). Nothing was imported.',
      ],
      [
        'only blank lines',
        () => '  \r\n\t\n',
        'only blank lines.csv is not a policy CSV file: the file is empty; expected a header line and policy rows. Nothing was imported.',
      ],
      [
        'a name with an escape \u001b[31m in it',
        () => `customer,ref\n`,
        "a name with an escape \\u001b[31m in it.csv is not a policy CSV file: line 1: the header must be 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'; found 'customer,ref'. Nothing was imported.",
      ],
      [
        'empty',
        () => '',
        'empty.csv is not a policy CSV file: the file is empty; expected a header line and policy rows. Nothing was imported.',
      ],
    ];

    it.each(cases)('%s', async (name, content, message) => {
      const file = csvFile(`${name}.csv`, content());
      const r = await premia(['policies', 'import', file, '--json']);
      expect(r.code).toBe(2);
      const error = errorBody(r);
      expect(error.code).toBe('INVALID_FILE');
      expect(error.message).toBe(message);
      expect(error.details).toHaveLength(1);
      expect(await policyNumbers()).toEqual([]);
    });

    it('even when the problem comes after thousands of good rows (already inserted in batches)', async () => {
      const rows = Array.from({ length: 4500 }, (_, i) => `C${i},E${i},P${String(i).padStart(5, '0')},X,1.00`);
      const file = csvFile('late.csv', `${HEADER}\n${rows.join('\n')}\nC9,"E9,P9,X,1.00\n`);
      const r = await premia(['policies', 'import', file, '--json']);
      expect(r.code).toBe(2);
      expect(errorBody(r).message).toBe('late.csv is not a policy CSV file: line 4502: a quoted field opened here is never closed. Nothing was imported.');
      expect(await policyNumbers()).toEqual([]);
    });
  });

  it('- at a terminal says how the input ends, so that premia does not seem to hang', async () => {
    const r = await premia(['policies', 'import', '-', '--json'], { stdin: `${HEADER}\nC1,E1,P1,X,1.00\n`, tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Reading CSV from the terminal: type or paste it, then press Ctrl-D at the start of a line to end it (Ctrl-C stops).\n');
    expect(await policyNumbers()).toEqual(['P1']);
  });

  it('- at a terminal draws no progress there: a spinner on the same terminal erased the line being typed', async () => {
    const r = await premia(['policies', 'import', '-'], {
      stdin: `${HEADER}\nC1,E1,P1,X,1.00\n`,
      tty: true,
      prepare: (ctx) => Object.assign(ctx.stderr, { columns: 100 }), // a terminal that reports its width: a spinner, before
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Imported 1 policy; 0 rows failed.\n');
    expect(r.stderr).not.toContain('Importing');
    expect(r.stderr.startsWith('Reading CSV from the terminal: type or paste it, then press Ctrl-D at the start of a line to end it (Ctrl-C stops).\n')).toBe(true);
  });

  it('a header-only file imports nothing and succeeds', async () => {
    const file = csvFile('header.csv', `${HEADER}\n`);
    const r = await premia(['policies', 'import', file, '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"imported":0,"failed":0,"errors":[]}\n');
  });

  it('- reads stdin', async () => {
    const r = await premia(['policies', 'import', '-', '--json'], { stdin: `${HEADER}\nC1,E1,P1,X,1.00\nC2,E2,P2,X,2.00\n` });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"imported":2,"failed":0,"errors":[]}\n');
    expect(r.stderr).toBe('');
    expect(await policyNumbers()).toEqual(['P1', 'P2']);
  });

  it('names stdin in errors about it', async () => {
    const r = await premia(['policies', 'import', '-', '--json'], { stdin: '' });
    expect(r.code).toBe(2);
    expect(errorBody(r).message).toBe('stdin is not a policy CSV file: the file is empty; expected a header line and policy rows. Nothing was imported.');
  });

  it('a missing file is exit 2', async () => {
    const r = await premia(['policies', 'import', 'nope.csv', '--json']);
    expect(r.code).toBe(2);
    expect(errorBody(r)).toEqual({ code: 'VALIDATION_ERROR', message: 'Cannot read nope.csv: no such file.', request_id: null });
  });

  it('a directory is exit 2', async () => {
    const r = await premia(['policies', 'import', dir, '--json']);
    expect(r.code).toBe(2);
    expect(errorBody(r).message).toBe(`${dir} is a directory; give a CSV file.`);
  });
});

describe('the store', () => {
  it('a file that is not a store is exit 2 (VALIDATION_ERROR) with a clear message, and is left as it was', async () => {
    const junk = 'this is not a database\n'.repeat(300);
    writeFileSync(db, junk);
    const r = await premia(['policies', 'list']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: ${db} is not a premia store: the file is not an SQLite database. premia leaves it untouched; choose another file with --db.\n  (code VALIDATION_ERROR)\n`,
    );
    const json = await premia(['policies', 'list', '--json']);
    expect(json.code).toBe(2);
    expect(errorBody(json).code).toBe('VALIDATION_ERROR');
    expect(readFileSync(db, 'utf8')).toBe(junk);
  });

  it('defaults to ./premia.db, or PREMIA_DB; --db wins over PREMIA_DB', async () => {
    const set = ['clock', 'set', '2026-11-21']; // a command that may create the store
    expect((await runCli(set, { cwd: dir })).code).toBe(0);
    expect(existsSync(join(dir, 'premia.db'))).toBe(true);
    expect((await runCli(set, { cwd: dir, env: { PREMIA_DB: 'env.db' } })).code).toBe(0);
    expect(existsSync(join(dir, 'env.db'))).toBe(true);
    expect((await runCli(['--db', 'flag.db', ...set], { cwd: dir, env: { PREMIA_DB: 'env2.db' } })).code).toBe(0);
    expect(existsSync(join(dir, 'flag.db'))).toBe(true);
    expect(existsSync(join(dir, 'env2.db'))).toBe(false);
  });

  it('--db :memory: works and writes no file', async () => {
    const r = await runCli(['--db', ':memory:', ...CREATE_P1, '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.json().policy_number).toBe('P1');
    expect(existsSync(join(dir, ':memory:'))).toBe(false);
    expect(existsSync(join(dir, 'premia.db'))).toBe(false);
  });
});

describe('clock', () => {
  it('starts on the day before the real UTC date of the first run (none of that day has run), and prints it', async () => {
    // Made on a month's last day: the month is still open, and can be queued and lived.
    const lastDay = at('2026-03-31T23:59:59.000Z');
    expect((await premia(CREATE_P1, { now: lastDay })).code).toBe(0); // makes the store
    const r = await premia(['clock', '--json'], { now: lastDay });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"date":"2026-03-30","locked":false,"seed":1}\n');
    // Later runs read the stored clock, whatever the wall clock says.
    expect((await premia(['clock', '--json'], { now: at('2027-01-01T00:00:00.000Z') })).stdout).toBe('{"date":"2026-03-30","locked":false,"seed":1}\n');
    const human = await premia(['clock']);
    expect(human.stdout).toBe('date    2026-03-30\nseed    1\nlocked  no\n');
    const queued = await premia(['collections', 'execute', '--period', '2026-03', '--json'], { now: lastDay });
    expect(queued.code).toBe(0);
    expect(JSON.parse(queued.stdout)).toMatchObject({ status: 'processing', policies_queued: 1 });
    const advanced = await premia(['clock', 'advance', '--days', '1', '--yes', '--json'], { now: lastDay });
    expect(advanced.code).toBe(0);
    expect(JSON.parse(advanced.stdout)).toMatchObject({ from: '2026-03-30', to: '2026-03-31' });
  });

  it('clock set moves it, before any collections run', async () => {
    const r = await premia(['clock', 'set', '2026-01-15', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"date":"2026-01-15","locked":false,"seed":1}\n');
    expect(r.stderr).toBe('');
    expect((await premia(['clock', '--json'])).stdout).toBe('{"date":"2026-01-15","locked":false,"seed":1}\n');
    const human = await premia(['--yes', 'clock', 'set', '2028-02-29']);
    expect(human.stderr).toBe('Clock set to 2028-02-29.\n');
    expect(human.stdout).toBe('date    2028-02-29\nseed    1\nlocked  no\n');
  });

  it.each([
    ['2026-02-29', 'INVALID_VALUE', 'date 2026-02-29 is not a day of the calendar: 2026-02 has 28 days'],
    ['2026-11-31', 'INVALID_VALUE', 'date 2026-11-31 is not a day of the calendar: 2026-11 has 30 days'],
    ['2026-13-01', 'INVALID_FORMAT', 'date 2026-13-01 is not a date: there is no month 13'],
    ['2026-00-10', 'INVALID_FORMAT', 'date 2026-00-10 is not a date: there is no month 00'],
    ['tomorrow', 'INVALID_FORMAT', 'date must be a date written YYYY-MM-DD, like 2026-11-30; got "tomorrow"'],
    ['2026-1-1', 'INVALID_FORMAT', 'date must be a date written YYYY-MM-DD, like 2026-11-30; got "2026-1-1" (write the month and day with two digits each: 2026-01-01)'],
  ])('clock set %s is exit 2', async (date, code, problem) => {
    const r = await premia(['clock', 'set', date, '--json']);
    expect(r.code).toBe(2);
    // The CLI checks the date as the service checks PUT /v1/clock, so both modes word it alike.
    expect(errorBody(r)).toEqual({
      code: 'VALIDATION_ERROR',
      message: `The clock setting is not valid: ${problem}.`,
      request_id: null,
      details: [{ field: 'date', code, message: problem }],
    });
  });

  it('once a collections run exists, clock set is exit 6 CLOCK_LOCKED', async () => {
    expect((await premia(['clock', 'set', '2026-11-21'])).code).toBe(0);
    const raw = new Database(db);
    raw.prepare("insert into meta (key, value) values ('clock_locked', '1')").run();
    raw.close();
    const r = await premia(['clock', 'set', '2026-12-01', '--json']);
    expect(r.code).toBe(6);
    expect(errorBody(r)).toEqual({
      code: 'CLOCK_LOCKED',
      message: "The clock is at 2026-11-21 and a collections run exists, so it can no longer be set; move it forward with 'premia clock advance'.",
      request_id: null,
    });
    expect((await premia(['clock', '--json'])).stdout).toBe('{"date":"2026-11-21","locked":true,"seed":1}\n');
  });
});

describe('colour and status output', () => {
  it('colours a terminal (the control for the tests below)', async () => {
    await premia(CREATE_P1);
    expect((await premia(['policies', 'get', 'P1'], { tty: true })).stdout).toContain(ESC);
    expect((await premia(['policies', 'get', 'NOPE'], { tty: true })).stderr).toContain(ESC);
  });

  it.each<[string, string[], Record<string, string>, boolean]>([
    ['not a terminal', [], {}, false],
    ['NO_COLOR', [], { NO_COLOR: '1' }, true],
    ['FORCE_COLOR=0', [], { FORCE_COLOR: '0' }, true],
    ['--no-color', ['--no-color'], {}, true],
    ['TERM=dumb', [], { TERM: 'dumb' }, true],
  ])('no ANSI escapes when %s', async (_, flags, env, tty) => {
    await premia(CREATE_P1);
    const ok = await premia([...flags, 'policies', 'get', 'P1'], { env, tty });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('policy_number          P1');
    expect(ok.stdout + ok.stderr).not.toContain('\u001b');
    const failed = await premia([...flags, 'policies', 'get', 'NOPE'], { env, tty });
    expect(failed.code).toBe(5);
    expect(failed.stderr).toBe("error: Policy 'NOPE' was not found. Check the id or number and try again.\n  (code NOT_FOUND)\n");
  });

  it('--quiet drops status lines but not data or errors', async () => {
    const r = await premia(['--quiet', ...CREATE_P1]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('policy_number          P1\n');
    const set = await premia(['clock', 'set', '2026-12-01', '-q']);
    expect(set.stderr).toBe('');
    expect(set.stdout).toBe('date    2026-12-01\nseed    1\nlocked  no\n');
    const failed = await premia(['--quiet', ...CREATE_P1]);
    expect(failed.code).toBe(6);
    expect(failed.stderr).toContain('error: Policy number P1 already exists');
  });

  it('--yes is accepted (and harmless) where nothing asks', async () => {
    await premia(['clock', 'set', '2026-11-21']); // a store to read
    const r = await premia(['--yes', 'clock', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"date":"2026-11-21","locked":false,"seed":1}\n');
  });
});
