/**
 * `--as-client NAME` (local mode) takes a client's name as `keys create --client` does: spaces
 * around it do not count. A name the store has no client of, but that is one of its clients in
 * another case or spacing or with a typo, is refused naming that client, never acted for.
 */
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let db: string;
let cleanup: () => void;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('premia-as-client-'));
  db = join(dir, 'premia.db');
  expect((await runCli(['--db', db, '--seed', '1', 'keys', 'create', '--client', 'Acme Life'], { cwd: dir })).code).toBe(0);
  const created = await runCli(['--db', db, '--as-client', 'Acme Life', 'policies', 'create', '--customer-id', 'C1', '--external-ref', 'E1', '--policy-number', 'POL-1', '--product-code', 'LIFE', '--amount', '10.00'], { cwd: dir });
  expect(created.stderr).toBe('Created policy POL-1.\n');
  expect(created.code).toBe(0);
});
afterAll(() => cleanup());

const premia = (args: string[]) => runCli(['--db', db, ...args], { cwd: dir });

describe('--as-client', () => {
  it('acts for the client whose name is given with spaces around it, as keys create takes it', async () => {
    const r = await premia(['--as-client', ' Acme Life ', 'policies', 'list', '--format', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[1]).toMatch(/^[0-9a-f-]{36},POL-1,C1,E1,LIFE,10.00,/);
  });

  it.each([
    ['another case', 'acme life'],
    ['another spacing', 'Acme  Life'],
    ['a typo', 'Acme Lfe'],
    ['two letters swapped', 'Acme Lief'],
  ])('refuses a name that is one of the clients in %s, naming it (exit 5)', async (_, name) => {
    const r = await premia(['--json', '--as-client', name, 'policies', 'list']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: 'NOT_FOUND', message: `There is no client '${name}' in ${db}, but there is a client 'Acme Life': give its name exactly as written.`, request_id: null },
    });
  });

  it('refuses a name like no client of the store as before (exit 5)', async () => {
    const r = await premia(['--as-client', 'Zeta Assurance', 'policies', 'list']);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`error: There is no client 'Zeta Assurance' in ${db}; clients are created with 'premia keys create --client NAME'.\n  (code NOT_FOUND)\n`);
  });
});

describe("without --as-client, a month only the store's other clients ran is said to be theirs", () => {
  let other: string;
  const premiaOn = (args: string[]) => runCli(['--db', other, ...args], { cwd: dir });
  const note =
    "this store's own client has no collections for 2026-11, but its clients Acme Life and Beta do: " +
    'local mode acts for the store\'s own client unless --as-client names another (--as-client "Acme Life").';

  beforeAll(async () => {
    other = join(dir, 'served.db');
    for (const client of ['Acme Life', 'Beta']) expect((await premiaOn(['keys', 'create', '--client', client])).code).toBe(0);
    expect((await premiaOn(['clock', 'set', '2026-10-31'])).code).toBe(0);
    for (const client of ['Acme Life', 'Beta']) {
      const policy = ['policies', 'create', '--customer-id', 'C1', '--external-ref', 'E1', '--policy-number', 'POL-1', '--product-code', 'LIFE', '--amount', '10.00'];
      expect((await premiaOn(['--as-client', client, ...policy])).code).toBe(0);
      expect((await premiaOn(['--as-client', client, 'collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    }
    expect((await premiaOn(['clock', 'advance', '--to', '2026-12-01'])).code).toBe(0);
  });

  it('settlements create: NO_COLLECTIONS names the clients that ran it (exit 6)', async () => {
    const r = await premiaOn(['--json', 'settlements', 'create', '--period', '2026-11']);
    expect([r.code, r.stdout]).toEqual([6, '']);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'NO_COLLECTIONS',
        message:
          "Period 2026-11 has no collections: it was never executed, so there is nothing to settle (a period's collections can only be queued before its last day, 2026-11-30, has run). " +
          `T${note.slice(1)}`,
        request_id: null,
        details: [{ period_month: '2026-11' }],
      },
    });
  });

  it('reports collections: the header-only report, with a warning (exit 0); --require-closed says it in its refusal (exit 6)', async () => {
    const r = await premiaOn(['reports', 'collections', '--period', '2026-11']);
    expect([r.code, r.stdout.split('\n').length, r.stderr]).toEqual([0, 2, `warning: ${note}\n`]);
    const closed = await premiaOn(['reports', 'collections', '--period', '2026-11', '--require-closed']);
    expect([closed.code, closed.stdout]).toEqual([6, '']);
    expect(closed.stderr).toBe(
      'error: 2026-11 was never run: it has no collections, and its last day 2026-11-30 has passed. --require-closed writes the report only once the period has closed; nothing was written. ' +
        `T${note.slice(1)}\n  (code NO_COLLECTIONS)\n`,
    );
  });

  it('reports summary: a warning beside the zeros', async () => {
    const r = await premiaOn(['reports', 'summary', '--period', '2026-11']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: ${note}\n`);
  });

  it("settlements export into a shared folder never replaces another client's statement of the same number (exit 2)", async () => {
    for (const client of ['Acme Life', 'Beta']) expect((await premiaOn(['--as-client', client, 'settlements', 'create', '--period', '2026-11'])).code).toBe(0);
    mkdirSync(join(dir, 'eft'));
    const file = join(dir, 'eft', 'SETTLE-2026-11-001.csv');
    const acme = await premiaOn(['--as-client', 'Acme Life', 'settlements', 'export', 'SETTLE-2026-11-001', '--output', 'eft/']);
    expect([acme.code, acme.stderr]).toEqual([0, `Wrote SETTLE-2026-11-001.csv to ${file} (${statSync(file).size} bytes).\n`]);
    const acmeBytes = readFileSync(file, 'utf8');
    const row = acmeBytes.split('\n')[1]!;
    const beta = await premiaOn(['--as-client', 'Beta', 'settlements', 'export', 'SETTLE-2026-11-001', '--output', 'eft/']);
    expect([beta.code, beta.stdout]).toEqual([2, '']);
    expect(beta.stderr).toBe(
      `error: Cannot write --output eft/: ${file} already holds another statement's export under that name (its first row is '${row.length > 80 ? `${row.slice(0, 80)}…` : row}'): ` +
        "statement numbers count per client, so it is another client's statement (or another store's). Nothing was written; give a file name of its own (--output FILE), or --force to replace it.\n" +
        '  (code VALIDATION_ERROR)\n',
    );
    expect(readFileSync(file, 'utf8')).toBe(acmeBytes);
    expect(readdirSync(join(dir, 'eft'))).toEqual(['SETTLE-2026-11-001.csv']);
    // The same statement again is the same bytes; a file name of its own, or --force, writes Beta's.
    expect((await premiaOn(['--as-client', 'Acme Life', 'settlements', 'export', 'SETTLE-2026-11-001', '--output', 'eft/'])).code).toBe(0);
    expect((await premiaOn(['--as-client', 'Beta', 'settlements', 'export', 'SETTLE-2026-11-001', '--output', 'eft/beta.csv'])).code).toBe(0);
    expect((await premiaOn(['--as-client', 'Beta', 'settlements', 'export', 'SETTLE-2026-11-001', '--output', 'eft/', '--force'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(join(dir, 'eft', 'beta.csv'), 'utf8'));
    expect(readFileSync(file, 'utf8')).not.toBe(acmeBytes);
  });

  it('nothing is added for a client named, nor for a month no client ran', async () => {
    const acme = await premiaOn(['--as-client', 'Acme Life', 'reports', 'collections', '--period', '2026-11']);
    expect([acme.code, acme.stderr, acme.stdout.split('\n').length]).toEqual([0, '', 3]);
    const october = await premiaOn(['reports', 'collections', '--period', '2026-10']);
    expect([october.code, october.stderr]).toEqual([0, '']);
    const none = await premiaOn(['settlements', 'create', '--period', '2026-10']);
    expect(none.code).toBe(6);
    expect(none.stderr).not.toContain('--as-client');
  });
});

describe("with --as-client, a month the client named did not run is said to be the store's own client's or others'", () => {
  let store: string;
  const premiaOn = (args: string[]) => runCli(['--db', store, ...args], { cwd: dir });
  const policy = ['policies', 'create', '--customer-id', 'C1', '--external-ref', 'E1', '--policy-number', 'POL-1', '--product-code', 'LIFE', '--amount', '10.00'];

  beforeAll(async () => {
    store = join(dir, 'own.db');
    for (const client of ['Acme Life', 'Beta']) expect((await premiaOn(['keys', 'create', '--client', client])).code).toBe(0);
    expect((await premiaOn(['clock', 'set', '2026-09-30'])).code).toBe(0);
    // The store's own client runs October and November; Beta November only; Acme Life neither.
    expect((await premiaOn(policy)).code).toBe(0);
    expect((await premiaOn(['collections', 'execute', '--period', '2026-10'])).code).toBe(0);
    expect((await premiaOn(['clock', 'advance', '--to', '2026-10-31'])).code).toBe(0);
    expect((await premiaOn(['collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    expect((await premiaOn(['--as-client', 'Beta', ...policy])).code).toBe(0);
    expect((await premiaOn(['--as-client', 'Beta', 'collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    expect((await premiaOn(['clock', 'advance', '--to', '2026-12-01'])).code).toBe(0);
  });

  it("only the store's own client ran it: the summary's warning says to leave --as-client out", async () => {
    const r = await premiaOn(['--as-client', 'Beta', 'reports', 'summary', '--period', '2026-10']);
    expect([r.code, r.stderr]).toEqual([
      0,
      "warning: client 'Beta' has no collections for 2026-10, but this store's own client does: local mode acts for it without --as-client.\n",
    ]);
  });

  it('the store\'s own client and another ran it: settlements create (exit 6) and the reports name both, beside the refusals', async () => {
    const note =
      "client 'Acme Life' has no collections for 2026-11, but this store's own client does (without --as-client), and so does its client Beta (--as-client Beta).";
    // The refusal is the one Acme Life's API key gets from the service; the note is said beside it.
    const refusal =
      "Period 2026-11 has no collections: it was never executed, so there is nothing to settle (a period's collections can only be queued before its last day, 2026-11-30, has run).";
    const settle = await premiaOn(['--as-client', 'Acme Life', 'settlements', 'create', '--period', '2026-11']);
    expect([settle.code, settle.stdout]).toEqual([6, '']);
    expect(settle.stderr).toBe(`warning: ${note}\nerror: ${refusal}\n  (code NO_COLLECTIONS)\n`);
    const json = await premiaOn(['--json', '--as-client', 'Acme Life', 'settlements', 'create', '--period', '2026-11']);
    expect([json.code, JSON.parse(json.stderr)]).toEqual([6, { error: { code: 'NO_COLLECTIONS', message: refusal, request_id: null, details: [{ period_month: '2026-11' }] } }]);
    const closed = await premiaOn(['--as-client', 'Acme Life', 'reports', 'collections', '--period', '2026-11', '--require-closed']);
    expect([closed.code, closed.stdout]).toEqual([6, '']);
    expect(closed.stderr).toBe(
      `warning: ${note}\nerror: 2026-11 was never run: it has no collections, and its last day 2026-11-30 has passed. --require-closed writes the report only once the period has closed; nothing was written.\n  (code NO_COLLECTIONS)\n`,
    );
    const report = await premiaOn(['--as-client', ' Acme Life ', 'reports', 'collections', '--period', '2026-11']);
    expect([report.code, report.stdout.split('\n').length, report.stderr]).toEqual([0, 2, `warning: ${note}\n`]);
  });

  it('nothing is added for the client that ran it, nor without --as-client where the store\'s own client ran it', async () => {
    const beta = await premiaOn(['--as-client', 'Beta', 'reports', 'summary', '--period', '2026-11']);
    expect([beta.code, beta.stderr]).toEqual([0, '']);
    const own = await premiaOn(['reports', 'summary', '--period', '2026-11']);
    expect([own.code, own.stderr]).toEqual([0, '']);
  });
});

describe("clock advance in local mode: its figures are the acting client's, the others' days said to be lived too", () => {
  let store: string;
  const premiaOn = (args: string[]) => runCli(['--db', store, ...args], { cwd: dir });

  beforeAll(async () => {
    store = join(dir, 'advance.db');
    expect((await premiaOn(['keys', 'create', '--client', 'Acme Life'])).code).toBe(0);
    expect((await premiaOn(['clock', 'set', '2026-10-31'])).code).toBe(0);
    const policy = ['policies', 'create', '--customer-id', 'C1', '--external-ref', 'E1', '--policy-number', 'POL-1', '--product-code', 'LIFE', '--amount', '10.00'];
    expect((await premiaOn(['--as-client', 'Acme Life', ...policy])).code).toBe(0);
    expect((await premiaOn(['--as-client', 'Acme Life', 'collections', 'execute', '--period', '2026-11'])).code).toBe(0);
  });

  it("for the store's own client: a note names the client whose month it is and how to see its figures; -q keeps it out", async () => {
    const r = await premiaOn(['clock', 'advance', '--days', '2']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'Clock moved from 2026-10-31 to 2026-11-02: 2 days lived, 0.00 collected.\n' +
        "note: those figures are for the store's own client only; the advance lived the days of its client Acme Life too (2026-11): " +
        '\'premia --as-client "Acme Life" reports summary --period 2026-11\' shows theirs.\n',
    );
    const quiet = await premiaOn(['-q', 'clock', 'advance', '--days', '1']);
    expect([quiet.code, quiet.stderr]).toEqual([0, '']);
  });

  it('for the client whose month it is: nothing to add', async () => {
    const r = await premiaOn(['--as-client', 'Acme Life', 'clock', 'advance', '--days', '1']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Clock moved from 2026-11-03 to 2026-11-04: 1 day lived, 0.00 collected.\n');
  });
});
