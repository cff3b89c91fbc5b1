/**
 * The collections report and the attempts export read by two threads
 * (store/repos/collection-reports.ts streamPeriodText and its worker, store/report-reader.ts):
 * on a temporary SQLite file of 5,000 collections and 6,667 attempts in ranges of 40 rows, the
 * bytes are those of one thread alone, whichever thread read a range; a commit between the two
 * snapshots leaves the worker reading nothing; a worker that dies leaves its ranges to the
 * streaming thread. The worker's module comes from dist/ (`npm test` builds it first).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeId, IdKind } from '../../src/domain/ids.js';
import { insertExecution } from '../../src/store/repos/collections.js';
import { stringifyJson } from '../../src/domain/json.js';
import { formatCents } from '../../src/domain/money.js';
import { csvRow } from '../../src/lib/csv-writer.js';
import { streamPeriodText, type PeriodText, type ReportReadEvent, type ReportTextOptions } from '../../src/store/repos/collection-reports.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/store.js';
import { tempDir } from '../helpers/cli.js';

const ROWS = 5000;
const RANGE = 40; // 125 ranges
const CLIENT = 1;
const PERIOD = '2026-11';
const ATTEMPTS = 6667; // 167 ranges, the last of 27
const CSV: PeriodText = { rows: 'collections', format: 'csv', idSalt: 12345 };

let dir: string;
let cleanup: () => void;
let store: SqliteStore;

/** Collection i: awkward text on some rows (a quote, a comma, a line break), every status, null dates. */
function row(i: number): unknown[] {
  const number = `POL-${String(i).padStart(6, '0')}`;
  const due = 100 + ((i * 7919) % 250_000);
  const status = ['UNPAID', 'PAID_PARTIAL', 'PAID_FULL', 'CANCELLED'][i % 4]!;
  const collected = status === 'PAID_FULL' ? due : status === 'PAID_PARTIAL' ? due >> 1 : 0;
  const reason = i % 97 === 0 ? 'Bank said "no", twice,\nthen\r\nagain' : i % 5 === 0 ? 'INSUFFICIENT_FUNDS' : null;
  return [
    i, CLIENT, 1, i, PERIOD, i % 11 === 0 ? 'C,"odd"' : `C${i % 900}`, `EXT-${i}`, number, 'FUNERAL', due, collected, status,
    status === 'UNPAID' ? null : '2026-11-02', status === 'UNPAID' ? null : '2026-11-03', i % 4, i % 3, reason,
  ];
}

beforeEach(async () => {
  ({ dir, cleanup } = tempDir('premia-report-threads-'));
  store = await openSqliteStore({ path: join(dir, 'premia.db') });
  await store.db.insertInto('clients').values({ id: CLIENT, name: 'Acme', created_at: 0 }).execute();
  await insertExecution(store.db, { client_id: CLIENT, period_month: PERIOD, strategy: 'smart', status: 'processing', policies_queued: ROWS, created_at: 0, completed_at: null });
  const policy = store.raw.prepare(
    `insert into policies (id, client_id, policy_number, customer_id, external_customer_ref, product_code, collection_amount, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, 'FUNERAL', 100, 'active', 0, 0)`,
  );
  const collection = store.raw.prepare(
    `insert into collections (id, client_id, execution_id, policy_id, period_month, customer_id, external_customer_ref, policy_number, product_code,
       amount_due, amount_collected, status, first_attempt_date, last_attempt_date, attempts, failed_attempts, last_failure_reason)
     values (${Array(17).fill('?').join(', ')})`,
  );
  const attempt = store.raw.prepare(
    'insert into attempts (id, client_id, collection_id, period_month, date, amount, outcome, failure_reason) values (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  store.raw.transaction(() => {
    // Ids out of policy-number order, so that a range is not a run of ids.
    for (let n = 0; n < ROWS; n++) {
      const i = ((n * 3001) % ROWS) + 1;
      const r = row(i);
      policy.run(i, CLIENT, r[7], r[5], r[6]);
      collection.run(...r);
    }
    // Attempts with ids (their order) out of collection order, gaps between them.
    for (let j = 0; j < ATTEMPTS; j++) {
      const c = ((j * 1009) % ROWS) + 1;
      const failed = j % 7 === 0;
      attempt.run(3 * j + 2, CLIENT, c, PERIOD, `2026-11-${String(2 + (j % 28)).padStart(2, '0')}`, 100 + j, failed ? 'FAILED' : 'SUCCESS', failed ? (j % 49 === 0 ? 'Said "no",\nagain' : 'ACCOUNT_FROZEN') : null);
    }
  })();
});

afterEach(async () => {
  await store.close();
  cleanup();
});

async function report(options: ReportTextOptions, format: PeriodText = CSV): Promise<{ text: string; events: ReportReadEvent[] }> {
  const events: ReportReadEvent[] = [];
  const parts: Buffer[] = [];
  for await (const chunk of streamPeriodText(store, CLIENT, PERIOD, format, { rangeRows: RANGE, ...options, observe: (e) => { events.push(e); options.observe?.(e); } })) {
    parts.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  }
  return { text: Buffer.concat(parts).toString('utf8'), events };
}

const ranges = (events: ReportReadEvent[]) => events.filter((e): e is Extract<ReportReadEvent, { type: 'range' }> => e.type === 'range');

describe('the collections report read by two threads', () => {
  it('gives the bytes one thread gives, each range once and in order, the first ones read by the worker', async () => {
    const one = await report({ threadedMinRanges: Number.POSITIVE_INFINITY });
    expect(one.events.some((e) => e.type === 'worker')).toBe(false);
    const lines = one.text.split(/\n(?=2026-11,)/);
    expect(lines).toHaveLength(ROWS);
    expect(lines[0]).toBe('2026-11,C1,EXT-1,POL-000001,FUNERAL,80.19,40.09,40.10,PAID_PARTIAL,2026-11-02,2026-11-03,1,');
    // Quoted where a cell holds a comma, a quote or a line break; null dates empty.
    expect(lines[96]).toBe('2026-11,C97,EXT-97,POL-000097,FUNERAL,182.43,91.21,91.22,PAID_PARTIAL,2026-11-02,2026-11-03,1,"Bank said ""no"", twice,\nthen\r\nagain"');
    expect(lines[98]).toBe('2026-11,"C,""odd""",EXT-99,POL-000099,FUNERAL,340.81,0.00,340.81,CANCELLED,2026-11-02,2026-11-03,3,');
    expect(lines[99]).toBe('2026-11,C100,EXT-100,POL-000100,FUNERAL,420.00,0.00,420.00,UNPAID,,,0,INSUFFICIENT_FUNDS');
    expect(lines[ROWS - 1]).toMatch(/^2026-11,[^\n]*POL-005000,[^\n]*\n$/);

    const two = await report({ threadedMinRanges: 1, workerFirst: 3 });
    expect(two.events.filter((e) => e.type === 'worker')).toHaveLength(1);
    expect(two.text).toBe(one.text);
    const read = ranges(two.events);
    expect(read.map((e) => e.k)).toEqual(Array.from({ length: ROWS / RANGE }, (_, k) => k));
    // Which thread reads the others depends on which is ahead (this one reads on while the
    // worker's next range has not come); the worker dying, below, has this one read the rest.
    expect(read.slice(0, 3).map((e) => e.by)).toEqual(['worker', 'worker', 'worker']);
  });

  it('JSON results too: the bytes one thread gives, each after a comma, ids salted', async () => {
    const json = { ...CSV, format: 'json' } as const;
    const one = await report({ threadedMinRanges: Number.POSITIVE_INFINITY }, json);
    const two = await report({ threadedMinRanges: 1, workerFirst: 3 }, json);
    expect(two.text).toBe(one.text);
    expect(ranges(two.events).slice(0, 3).map((e) => e.by)).toEqual(['worker', 'worker', 'worker']);
    expect(one.text.startsWith(',{"id":"')).toBe(true);
    const results = JSON.parse(`[${one.text.slice(1)}]`) as Array<Record<string, unknown>>;
    expect(results).toHaveLength(ROWS);
    expect(results[96]).toEqual({
      id: encodeId(IdKind.collection, 12345, 97), // collection i's id is i
      period_month: '2026-11',
      customer_id: 'C97',
      external_customer_ref: 'EXT-97',
      policy_number: 'POL-000097',
      product_code: 'FUNERAL',
      collection_amount_due: 182.43,
      collection_amount_collected: 91.21,
      shortfall: 91.22,
      collection_status: 'PAID_PARTIAL',
      first_attempt_date: '2026-11-02',
      last_attempt_date: '2026-11-03',
      number_of_attempts: 1,
      last_failure_reason: 'Bank said "no", twice,\nthen\r\nagain',
    });
    expect(new Set(results.map((r) => r.id)).size).toBe(ROWS);
  });

  it('a commit between the two snapshots: the worker reads nothing, and the report is the first snapshot', async () => {
    const before = (await report({ threadedMinRanges: Number.POSITIVE_INFINITY })).text;
    const other = store.raw;
    const r = await report({
      threadedMinRanges: 1,
      workerFirst: 3, // the worker certainly takes its snapshot, after the commit
      // Once this thread's snapshot is taken, before the worker takes its own.
      observe: (e) => {
        if (e.type === 'snapshot') other.prepare("update collections set amount_collected = amount_due, status = 'PAID_FULL' where policy_number = 'POL-004000'").run();
      },
    });
    expect(r.text).toBe(before);
    expect(before).toContain('\n2026-11,C400,EXT-4000,POL-004000,FUNERAL,1761.00,0.00,1761.00,UNPAID,,,0,INSUFFICIENT_FUNDS\n');
    expect(ranges(r.events).every((e) => e.by === 'this thread')).toBe(true);
    // The next report sees the commit, read by both threads again.
    const after = await report({ threadedMinRanges: 1, workerFirst: 1 });
    expect(after.text).toBe(before.replace('POL-004000,FUNERAL,1761.00,0.00,1761.00,UNPAID,', 'POL-004000,FUNERAL,1761.00,1761.00,0.00,PAID_FULL,'));
    expect(ranges(after.events).some((e) => e.by === 'worker')).toBe(true);
  });

  it('a worker that dies: the ranges it had not handed over are read by the streaming thread, the bytes the same', async () => {
    const one = (await report({ threadedMinRanges: Number.POSITIVE_INFINITY })).text;
    let worker: import('node:worker_threads').Worker | null = null;
    let killed = false;
    const r = await report({
      threadedMinRanges: 1,
      workerFirst: 3,
      observe: (e) => {
        if (e.type === 'worker') worker = e.worker;
        if (e.type === 'range' && e.by === 'worker' && !killed) {
          killed = true;
          void worker!.terminate();
        }
      },
    });
    expect(killed).toBe(true);
    expect(r.text).toBe(one);
    const read = ranges(r.events);
    expect(read.map((e) => e.k)).toEqual(Array.from({ length: ROWS / RANGE }, (_, k) => k));
    // After the kill, every range is this thread's (what the worker had already sent may still come).
    expect(read.at(-1)!.by).toBe('this thread');
  });

  it('the attempts export: the bytes one thread gives, in id order, as csvRow and stringifyJson write them', async () => {
    const expected = store.raw
      .prepare(
        `select a.collection_id, c.policy_number, c.customer_id, a.date, a.amount, a.outcome, a.failure_reason
         from attempts a join collections c on c.id = a.collection_id order by a.id`,
      )
      .raw(true)
      .all() as Array<[number, string, string, string, number, string, string | null]>;
    expect(expected).toHaveLength(ATTEMPTS);
    const id = (c: number) => encodeId(IdKind.collection, 12345, c);
    for (const format of ['csv', 'json'] as const) {
      const text: PeriodText = { rows: 'attempts', format, idSalt: 12345 };
      const one = await report({ threadedMinRanges: Number.POSITIVE_INFINITY }, text);
      const two = await report({ threadedMinRanges: 1, workerFirst: 3 }, text);
      expect(two.text).toBe(one.text);
      const read = ranges(two.events);
      expect(read.map((e) => e.k)).toEqual(Array.from({ length: Math.ceil(ATTEMPTS / RANGE) }, (_, k) => k));
      expect(read.slice(0, 3).map((e) => e.by)).toEqual(['worker', 'worker', 'worker']);
      const want = expected.map(([c, policy, customer, date, amount, outcome, reason]) =>
        format === 'csv'
          ? csvRow([id(c), policy, customer, date, formatCents(amount), outcome, reason])
          : ',' + stringifyJson({ collection_id: id(c), policy_number: policy, customer_id: customer, date, amount, outcome, failure_reason: reason }),
      );
      expect(one.text).toBe(want.join(''));
    }
    // A commit between the two snapshots (an attempt recorded): the export is the first snapshot's.
    const text: PeriodText = { rows: 'attempts', format: 'csv', idSalt: 12345 };
    const before = (await report({ threadedMinRanges: Number.POSITIVE_INFINITY }, text)).text;
    const r = await report({
      threadedMinRanges: 1,
      workerFirst: 3,
      observe: (e) => {
        if (e.type === 'snapshot') store.raw.prepare(`insert into attempts (id, client_id, collection_id, period_month, date, amount, outcome) values (999999, 1, 7, '${PERIOD}', '2026-11-30', 5, 'SUCCESS')`).run();
      },
    }, text);
    expect(r.text).toBe(before);
    expect(ranges(r.events).every((e) => e.by === 'this thread')).toBe(true);
    expect((await report({ threadedMinRanges: 1 }, text)).text).toBe(`${before}${id(7)},POL-000007,C7,2026-11-30,0.05,SUCCESS,\n`);
    // Pinned: the first attempt (id 2, of collection 1), a failure quoted, a JSON amount.
    const csv = (await report({ threadedMinRanges: Number.POSITIVE_INFINITY }, { rows: 'attempts', format: 'csv', idSalt: 12345 })).text;
    expect(csv.slice(0, csv.indexOf('\n'))).toBe(`${id(1)},POL-000001,C1,2026-11-02,1.00,FAILED,"Said ""no"",\nagain"`.split('\n')[0]);
    expect(csv).toContain(`\n${id(1010)},POL-001010,C110,2026-11-03,1.01,SUCCESS,\n`);
  });

  it('an empty period: no rows, no worker', async () => {
    const events: ReportReadEvent[] = [];
    const out: unknown[] = [];
    for await (const chunk of streamPeriodText(store, CLIENT, '2026-12', CSV, { rangeRows: RANGE, threadedMinRanges: 1, observe: (e) => events.push(e) })) out.push(chunk);
    expect(out).toEqual([]);
    expect(events).toEqual([{ type: 'snapshot' }]);
  });
});
