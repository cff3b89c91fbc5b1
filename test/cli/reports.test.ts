import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Download } from '../../src/backend/types.js';
import { createContext } from '../../src/cli/context.js';
import { writeDownload } from '../../src/cli/output/download.js';
import { decodeId, IdKind } from '../../src/domain/ids.js';
import { readWorld } from '../../src/backend/local/world.js';
import { openLocalBackend } from '../../src/backend/local/index.js';
import { toReportRow, withoutFirstComma } from '../../src/backend/local/reports.js';
import { stringifyJson } from '../../src/domain/json.js';
import { PAGE_ROWS, type ReportRow } from '../../src/store/repos/collection-reports.js';
import { reportRowJson } from '../../src/store/report-ranges.js';
import fc from 'fast-check';
import { anyCodePoint } from '../helpers/arbitraries.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { dbPath, FIXTURE_PERIOD, openTestBackend, randomCollections, seedCollections, seedFixturePeriod, setClock, TEST_NOW } from '../helpers/seed-collections.js';

const HEADER =
  'period_month,customer_id,external_customer_ref,policy_number,product_code,collection_amount_due,' +
  'collection_amount_collected,shortfall,collection_status,first_attempt_date,last_attempt_date,number_of_attempts,last_failure_reason\n';

const FIXTURE_CSV =
  HEADER +
  '2026-11,C100001,EXT-1,POL-0001,FUNERAL_BASIC,149.50,149.50,0.00,PAID_FULL,2026-11-03,2026-11-05,2,\n' +
  '2026-11,C100002,"ACME, ""Gold"" ref",POL-0002,LIFE_PLUS,200.00,50.00,150.00,PAID_PARTIAL,2026-11-02,2026-11-28,3,INSUFFICIENT_FUNDS\n' +
  '2026-11,C100003,EXT-3,POL-0003,FUNERAL_BASIC,99.99,0.00,99.99,UNPAID,2026-11-02,2026-11-27,4,INSUFFICIENT_FUNDS\n' +
  '2026-11,C100004,EXT-4,POL-0004,FUNERAL_BASIC,149.50,0.00,149.50,CANCELLED,,,0,\n' +
  '2026-11,C100010,EXT-10,POL-0010,MICRO,0.01,0.01,0.00,PAID_FULL,2026-11-30,2026-11-30,1,\n';

let dir: string;
let cleanup: () => void;
let db: string;
let idSalt: number;

const cli = (args: string[]) => runCli(['--db', db, ...args], { cwd: dir });

beforeAll(async () => {
  ({ dir, cleanup } = tempDir());
  db = dbPath(dir);
  const backend = await openTestBackend(db);
  await seedFixturePeriod(backend.store);
  await setClock(backend.store, '2026-12-01');
  idSalt = (await readWorld(backend.store.db)).idSalt;
  await backend.close();
});

afterAll(() => cleanup());

describe('premia reports collections (CSV)', () => {
  it('writes exactly the 13 columns, one row per collection in policy_number order, RFC 4180 quoting', async () => {
    const r = await cli(['reports', 'collections', '--period', FIXTURE_PERIOD]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(FIXTURE_CSV);
  });

  it('gives byte-identical output on every export of a closed period', async () => {
    const first = await cli(['reports', 'collections', '--period', FIXTURE_PERIOD, '--format', 'csv']);
    const second = await cli(['reports', 'collections', '--period', FIXTURE_PERIOD]);
    expect(Buffer.from(second.stdout)).toEqual(Buffer.from(first.stdout));
    expect(first.stdout).toBe(FIXTURE_CSV);
  });

  it('reports another period on its own', async () => {
    const r = await cli(['reports', 'collections', '--period', '2026-10']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${HEADER}2026-10,C100001,EXT-1,POL-0001,FUNERAL_BASIC,149.50,149.50,0.00,PAID_FULL,,,1,\n`);
  });

  it('a period without collections is a header-only CSV, exit 0', async () => {
    const r = await cli(['reports', 'collections', '--period', '2026-09']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(HEADER);
  });

  it.each([
    ['202611', '; write it as YYYY-MM, e.g. 2026-11.'],
    ['2026-1', ' written YYYY-MM (write it 2026-01).'],
    ['nov', '; write it as YYYY-MM, e.g. 2026-11.'],
  ])('a malformed period %s is a validation error (exit 2)', async (period, why) => {
    const r = await cli(['reports', 'collections', '--period', period]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`--period '${period}' is not a period${why}`);
    expect(r.stderr).toContain('code VALIDATION_ERROR');
  });

  it.each([['2026-13', '13'], ['2026-00', '00']])('a period %s written YYYY-MM with no such month names the month (exit 2)', async (period, month) => {
    const r = await cli(['reports', 'collections', '--period', period]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: --period ${period} is not a month: there is no month ${month}.\n  (code VALIDATION_ERROR)\n`);
  });

  it('a missing --period or an unknown --format is a usage error', async () => {
    expect((await cli(['reports', 'collections'])).code).toBe(2);
    const r = await cli(['reports', 'collections', '--period', FIXTURE_PERIOD, '--format', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Allowed choices are csv, json");
  });
});

describe('premia reports collections --format json', () => {
  it('streams {period_month, results} with the 13 fields plus id, money with two decimals', async () => {
    const r = await cli(['reports', 'collections', '--period', FIXTURE_PERIOD, '--format', 'json']);
    expect(r.code).toBe(0);
    const body = r.json();
    expect(Object.keys(body)).toEqual(['period_month', 'period_state', 'results']);
    expect(body.period_month).toBe('2026-11');
    // The clock is at 2026-12-01: the period is closed, the report final.
    expect(body.period_state).toEqual({ state: 'closed', as_of: '2026-11-30', closes_on: '2026-11-30', open_collections: 0 });
    expect(body.results.map((x: { policy_number: string }) => x.policy_number)).toEqual(['POL-0001', 'POL-0002', 'POL-0003', 'POL-0004', 'POL-0010']);
    const second = body.results[1];
    expect(Object.keys(second)).toEqual([
      'id',
      'period_month',
      'customer_id',
      'external_customer_ref',
      'policy_number',
      'product_code',
      'collection_amount_due',
      'collection_amount_collected',
      'shortfall',
      'collection_status',
      'first_attempt_date',
      'last_attempt_date',
      'number_of_attempts',
      'last_failure_reason',
    ]);
    expect(decodeId(IdKind.collection, idSalt, second.id)).not.toBeNull();
    const { id: _id, ...rest } = second;
    expect(rest).toEqual({
      period_month: '2026-11',
      customer_id: 'C100002',
      external_customer_ref: 'ACME, "Gold" ref',
      policy_number: 'POL-0002',
      product_code: 'LIFE_PLUS',
      collection_amount_due: 200,
      collection_amount_collected: 50,
      shortfall: 150,
      collection_status: 'PAID_PARTIAL',
      first_attempt_date: '2026-11-02',
      last_attempt_date: '2026-11-28',
      number_of_attempts: 3,
      last_failure_reason: 'INSUFFICIENT_FUNDS',
    });
    // nulls where there is nothing, and money written with exactly two decimals
    expect(body.results[3]).toMatchObject({ first_attempt_date: null, last_attempt_date: null, last_failure_reason: null, number_of_attempts: 0 });
    expect(r.stdout).toContain('"collection_amount_due":200.00,"collection_amount_collected":50.00,"shortfall":150.00,');
    expect(r.stdout).toContain('"collection_amount_due":0.01,"collection_amount_collected":0.01,"shortfall":0.00,');
    expect(r.stdout.endsWith(']}\n')).toBe(true);
  });

  it('an empty period gives empty results', async () => {
    const r = await cli(['reports', 'collections', '--period', '2026-09', '--format', 'json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"period_month":"2026-09","period_state":{"state":"not_run","as_of":"2026-09-30","closes_on":"2026-09-30","open_collections":0},"results":[]}\n');
  });

  it('--json alone selects JSON; --json with --format csv is a usage error', async () => {
    const json = await cli(['--json', 'reports', 'collections', '--period', FIXTURE_PERIOD]);
    const explicit = await cli(['reports', 'collections', '--period', FIXTURE_PERIOD, '--format', 'json']);
    expect(json.code).toBe(0);
    expect(json.stdout).toBe(explicit.stdout);
    const both = await cli(['--json', 'reports', 'collections', '--period', FIXTURE_PERIOD, '--format', 'csv']);
    expect(both.code).toBe(2);
    expect(both.stdout).toBe('');
    // Worded as every download and list words it (collections attempts, policies list).
    expect(JSON.parse(both.stderr)).toEqual({
      error: { code: 'USAGE_ERROR', message: "--json asks for the API's JSON body but --format csv asks for csv; give only one of them.", request_id: null },
    });
  });

  it('the backend validates the period and format itself (for the API)', async () => {
    const backend = await openTestBackend(db);
    try {
      await expect(backend.collectionsReport('2026-13', 'csv')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
      await expect(backend.collectionsReport(FIXTURE_PERIOD, 'xml' as never)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      const d = await backend.collectionsReport(FIXTURE_PERIOD, 'json');
      expect(d.filename).toBe('collections-2026-11.json');
      expect(d.contentType).toBe('application/json; charset=utf-8');
      const c = await backend.collectionsReport(FIXTURE_PERIOD, 'csv');
      expect(c.filename).toBe('collections-2026-11.csv');
      expect(c.contentType).toBe('text/csv; charset=utf-8');
      let text = '';
      for await (const chunk of c.body) text += String(chunk);
      expect(text).toBe(FIXTURE_CSV);
    } finally {
      await backend.close();
    }
  });
});

describe("the period's state (issue 10, item 7): is the report final?", () => {
  let stateDir: string;
  let stateDb: string;
  let stateCleanup: () => void;
  const at = (args: string[], tty = false) => runCli(['--db', stateDb, ...args], { cwd: stateDir, tty, env: { NO_COLOR: '1' } });

  beforeAll(async () => {
    ({ dir: stateDir, cleanup: stateCleanup } = tempDir());
    stateDb = dbPath(stateDir);
    const backend = await openTestBackend(stateDb);
    await seedFixturePeriod(backend.store); // 2026-11 (2 of 5 still open) and 2026-10 (1, paid)
    await seedCollections(backend.store, '2026-12', [{ policy_number: 'POL-0001', due: 14950, collected: 0 }]); // queued ahead
    await setClock(backend.store, '2026-11-10');
    await backend.close();
  });
  afterAll(() => stateCleanup());

  it('the JSON report carries it beside the spec fields: open, closed, not run', async () => {
    const open = await at(['reports', 'collections', '--period', '2026-11', '--format', 'json']);
    expect(open.stdout.startsWith('{"period_month":"2026-11","period_state":{"state":"open","as_of":"2026-11-10","closes_on":"2026-11-30","open_collections":2},"results":[{')).toBe(true);
    expect((await at(['reports', 'collections', '--period', '2026-10', '--format', 'json'])).json().period_state).toEqual({
      state: 'closed',
      as_of: '2026-10-31',
      closes_on: '2026-10-31',
      open_collections: 0,
    });
    expect((await at(['reports', 'collections', '--period', '2027-01', '--format', 'json'])).stdout).toBe(
      '{"period_month":"2027-01","period_state":{"state":"not_run","as_of":"2026-11-10","closes_on":"2027-01-31","open_collections":0},"results":[]}\n',
    );
  });

  it('on a terminal, a report that is not final says so on stderr; the CSV bytes do not change', async () => {
    const open = await at(['reports', 'collections', '--period', '2026-11'], true);
    expect(open.code).toBe(0);
    expect(open.stdout).toBe(FIXTURE_CSV);
    expect(open.stderr).toBe('note: 2026-11 is open: the clock is at 2026-11-10; 2 collections are not paid in full yet (the report is final once 2026-11-30 has run).\n');
    expect((await at(['reports', 'collections', '--period', '2026-12'], true)).stderr).toBe(
      'note: 2026-12 is open: the clock is at 2026-11-10; 1 collection is not paid in full yet (the report is final once 2026-12-31 has run).\n',
    );
    expect((await at(['reports', 'collections', '--period', '2027-01'], true)).stderr).toBe('note: 2027-01 has not been run: it has no collections (the clock is at 2026-11-10).\n');
    expect((await at(['reports', 'collections', '--period', '2026-09'], true)).stderr).toBe('note: 2026-09 was never run: it has no collections, and its last day 2026-09-30 has passed.\n');
    // Final: nothing to say. Not a terminal (cron): nothing either. --quiet: nothing.
    expect((await at(['reports', 'collections', '--period', '2026-10'], true)).stderr).toBe('');
    expect(await at(['reports', 'collections', '--period', '2026-11'])).toMatchObject({ code: 0, stdout: FIXTURE_CSV, stderr: '' });
    expect((await at(['--quiet', 'reports', 'collections', '--period', '2026-11'], true)).stderr).toBe('');
  });

  it('--require-closed: exit 6 and nothing written while the period is open or was never run; the report once closed', async () => {
    const open = await at(['reports', 'collections', '--period', '2026-11', '--require-closed', '--output', 'open.csv']);
    expect([open.code, open.stdout]).toEqual([6, '']);
    expect(open.stderr).toBe(
      'error: 2026-11 is open: the clock is at 2026-11-10; 2 collections are not paid in full yet (the report is final once 2026-11-30 has run). ' +
        '--require-closed writes the report only once the period has closed; nothing was written.\n  (code PERIOD_OPEN)\n',
    );
    expect(existsSync(join(stateDir, 'open.csv'))).toBe(false);
    const never = await at(['--json', 'reports', 'collections', '--period', '2027-01', '--require-closed']);
    expect([never.code, never.stdout]).toEqual([6, '']);
    expect(JSON.parse(never.stderr).error).toMatchObject({
      code: 'NO_COLLECTIONS',
      details: [{ period_month: '2027-01', state: 'not_run', as_of: '2026-11-10', closes_on: '2027-01-31', open_collections: 0 }],
    });
    const closed = await at(['reports', 'collections', '--period', '2026-10', '--require-closed']);
    expect(closed.code).toBe(0);
    expect(closed.stdout).toBe((await at(['reports', 'collections', '--period', '2026-10'])).stdout);
    expect(closed.stdout.split('\n')).toHaveLength(3);
  });
});

describe('--output writes atomically', () => {
  it('writes the same bytes as stdout, and says where on stderr', async () => {
    const stdout = await cli(['reports', 'collections', '--period', FIXTURE_PERIOD]);
    const r = await cli(['reports', 'collections', '--period', FIXTURE_PERIOD, '--output', 'r.csv']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Wrote the 2026-11 collections report to ${join(dir, 'r.csv')} (`);
    expect(readFileSync(join(dir, 'r.csv'))).toEqual(Buffer.from(stdout.stdout));
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('replaces an existing file whole: an earlier report of the same kind', async () => {
    writeFileSync(join(dir, 'old.json'), '{"period_month":"2026-08","results":[' + ' '.repeat(10_000) + ']}\n');
    const r = await cli(['reports', 'collections', '--period', '2026-09', '--format', 'json', '-o', 'old.json']);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'old.json'), 'utf8')).toBe(
      '{"period_month":"2026-09","period_state":{"state":"not_run","as_of":"2026-09-30","closes_on":"2026-09-30","open_collections":0},"results":[]}\n',
    );
  });

  it('into an existing directory, uses the download name', async () => {
    mkdirSync(join(dir, 'out'));
    const r = await cli(['reports', 'collections', '--period', FIXTURE_PERIOD, '--output', 'out']);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'out', 'collections-2026-11.csv'), 'utf8')).toBe(FIXTURE_CSV);
  });

  it('into a missing directory: a usage error and no file at all', async () => {
    const r = await cli(['reports', 'collections', '--period', FIXTURE_PERIOD, '--output', 'missing/r.csv']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Cannot write --output missing/r.csv: the directory ${join(dir, 'missing')} does not exist.`);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('a body that fails halfway leaves neither the file nor the temporary file', async () => {
    const { dir: outDir, cleanup: done } = tempDir();
    try {
      const ctx = createContext({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: Readable.from([]), cwd: outDir });
      async function* failing(): AsyncGenerator<string> {
        yield 'period_month,customer_id\n';
        yield '2026-11,C1\n';
        throw new Error('disk on fire');
      }
      const download: Download = { filename: 'x.csv', contentType: 'text/csv; charset=utf-8', body: failing() };
      await expect(writeDownload(ctx, download, 'x.csv')).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('no file was written') });
      expect(readdirSync(outDir)).toEqual([]);
    } finally {
      done();
    }
  });

  it('a failed export leaves an existing file untouched', async () => {
    const { dir: outDir, cleanup: done } = tempDir();
    try {
      writeFileSync(join(outDir, 'keep.csv'), 'previous\n');
      const ctx = createContext({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: Readable.from([]), cwd: outDir });
      async function* failing(): AsyncGenerator<string> {
        yield 'partial';
        throw new Error('store went away');
      }
      await expect(writeDownload(ctx, { filename: 'k.csv', contentType: 'text/csv', body: failing() }, 'keep.csv')).rejects.toThrow();
      expect(readdirSync(outDir)).toEqual(['keep.csv']);
      expect(readFileSync(join(outDir, 'keep.csv'), 'utf8')).toBe('previous\n');
    } finally {
      done();
    }
  });
});

describe('large periods', () => {
  it('a period of several pages is reported whole, in order, the same from a file store and from memory', async () => {
    // 17 pages: from 16 the file store's report is read by two threads (their chunks text and bytes).
    const rows = randomCollections(31, PAGE_ROWS * 16 + 77);
    const { dir: bigDir, cleanup: done } = tempDir();
    try {
      const file = await openTestBackend(dbPath(bigDir));
      const memory = await openLocalBackend({ path: ':memory:', seed: 1, now: TEST_NOW });
      try {
        await seedCollections(file.store, '2026-11', rows);
        await seedCollections(memory.store, '2026-11', rows);
        const read = async (d: Download) => {
          const parts: Buffer[] = [];
          for await (const chunk of d.body) parts.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
          return Buffer.concat(parts).toString('utf8');
        };
        const fromFile = await read(await file.collectionsReport('2026-11', 'csv'));
        const fromMemory = await read(await memory.collectionsReport('2026-11', 'csv'));
        expect(fromFile).toBe(fromMemory);
        const numbers = fromFile.trimEnd().split('\n').slice(1).map((l) => l.split(',')[3]);
        expect(numbers).toEqual(rows.map((r) => r.policy_number).sort());
        const jsonFile = await read(await file.collectionsReport('2026-11', 'json'));
        expect(jsonFile).toBe(await read(await memory.collectionsReport('2026-11', 'json')));
        expect(JSON.parse(jsonFile).results).toHaveLength(rows.length);
      } finally {
        await file.close();
        await memory.close();
      }
    } finally {
      done();
    }
  });

  it("the JSON results' first comma is dropped from text or from bytes, and a first chunk without one is refused", async () => {
    const all = async (chunks: Array<string | Uint8Array>) => {
      const out: Array<string | Uint8Array> = [];
      for await (const c of withoutFirstComma(Readable.from(chunks, { objectMode: true }))) out.push(c);
      return out;
    };
    expect(await all([',{"a":1}', ',{"b":2}'])).toEqual(['{"a":1}', ',{"b":2}']);
    expect(await all([Buffer.from(',{"a":1}'), ',{"b":2}'])).toEqual([Buffer.from('{"a":1}'), ',{"b":2}']);
    expect(await all([])).toEqual([]);
    await expect(all(['{"a":1}'])).rejects.toThrow('start with a comma, not "{"');
    await expect(all([Buffer.from('x')])).rejects.toThrow('start with a comma, not "x"');
  });

  it('the direct JSON row writer is byte-identical to stringifyJson', () => {
    // Any code point (mostly astral), and text mostly plain with what JSON escapes, or does not, among it.
    const awkward = fc.constantFrom('a', 'Z', '0', '-', ' ', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', 'é', '\ud800', '\udc00', '😀');
    const text = fc.oneof(fc.string({ unit: anyCodePoint, maxLength: 20 }), fc.string({ unit: awkward, maxLength: 20 }), fc.string({ unit: fc.constantFrom('P', 'O', 'L', '-', '1', '7'), maxLength: 12 }));
    const cents = fc.integer({ min: 0, max: 100_000_000 });
    const row = fc.tuple(text, text, text, text, cents, cents, fc.constantFrom('PAID_FULL', 'PAID_PARTIAL', 'UNPAID', 'CANCELLED'),
      fc.option(text), fc.option(text), fc.nat(40), fc.option(text), fc.integer({ min: 1, max: 2 ** 40 }));
    fc.assert(
      fc.property(row, fc.uuid(), (r, id) => {
        fc.pre(r[5] <= r[4]);
        const reportRow = r as unknown as ReportRow;
        expect(reportRowJson(id, JSON.stringify('2026-11'), reportRow)).toBe(stringifyJson({ id, ...toReportRow('2026-11', reportRow) }));
      }),
      { numRuns: 500, seed: 11 },
    );
  });
});
