/**
 * The collections report's CSV on PostgreSQL is written by the server (`COPY (select …) TO
 * STDOUT`, store/repos/collection-reports.ts) and must be byte for byte what premia's own CSV
 * writer gives on SQLite for the same rows. The book here holds the values where two CSV writers
 * part ways: commas, quotes, CR and LF, non-ASCII, leading zeros, empty text (PostgreSQL writes
 * '' as `""`, premia as nothing), NULLs, `\.` and `\N`, zero, one-cent and the largest amounts,
 * every status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import type { Download } from '../../src/backend/types.js';
import { FIXED_NOW, textUpload } from '../helpers/local.js';
import { freshDatabase, noPg, pg } from './db.js';

/** The body's bytes, whole (chunks are joined as bytes: a chunk may end inside a character). */
async function bytesOf(d: Download): Promise<{ bytes: Buffer; binaryChunks: number; textChunks: number }> {
  const parts: Buffer[] = [];
  let binaryChunks = 0;
  let textChunks = 0;
  for await (const chunk of d.body) {
    if (typeof chunk === 'string') {
      textChunks++;
      parts.push(Buffer.from(chunk, 'utf8'));
    } else {
      binaryChunks++;
      parts.push(Buffer.from(chunk));
    }
  }
  return { bytes: Buffer.concat(parts), binaryChunks, textChunks };
}

/** The fields each POL-nn collection is given after the period is executed (raw, on both stores). */
const AWKWARD: Array<Record<string, string | number | null>> = [
  { customer_id: 'C,1', external_customer_ref: '', policy_number: 'P-comma,in', product_code: 'LIFE_STANDARD', amount_due: 1, amount_collected: 0, status: 'UNPAID', first_attempt_date: null, last_attempt_date: null, attempts: 0, last_failure_reason: null },
  { customer_id: 'say "hi"', external_customer_ref: '"', policy_number: 'P-quote"', product_code: 'LIFE,PLUS', amount_due: 100_000_000, amount_collected: 99_999_999, status: 'PAID_PARTIAL', first_attempt_date: '2026-11-01', last_attempt_date: '2026-11-29', attempts: 7, last_failure_reason: 'INSUFFICIENT_FUNDS, retry "later"' },
  { customer_id: 'line\nbreak', external_customer_ref: 'cr\rhere', policy_number: 'P-crlf\r\n', product_code: 'LIFE_STANDARD', amount_due: 100_000_000, amount_collected: 100_000_000, status: 'PAID_FULL', first_attempt_date: '2026-11-03', last_attempt_date: '2026-11-03', attempts: 1, last_failure_reason: null },
  { customer_id: 'Zoë Ångström — 東京 😀', external_customer_ref: 'ÉTÉ', policy_number: 'P-é', product_code: 'LIFE_STANDARD', amount_due: 14_950, amount_collected: 14_950, status: 'PAID_FULL', first_attempt_date: '2026-11-02', last_attempt_date: '2026-11-05', attempts: 2, last_failure_reason: 'naïve — ✓' },
  { customer_id: '007', external_customer_ref: '000123', policy_number: '0001', product_code: 'LIFE_STANDARD', amount_due: 5, amount_collected: 5, status: 'PAID_FULL', first_attempt_date: '2026-11-10', last_attempt_date: '2026-11-10', attempts: 1, last_failure_reason: '' },
  { customer_id: '\\.', external_customer_ref: '\\N', policy_number: 'P-backslash\\', product_code: 'NULL', amount_due: 10, amount_collected: 0, status: 'CANCELLED', first_attempt_date: null, last_attempt_date: null, attempts: 0, last_failure_reason: '\\' },
  { customer_id: ' spaced ', external_customer_ref: '\t', policy_number: 'p-lower', product_code: 'LIFE_STANDARD', amount_due: 99, amount_collected: 1, status: 'PAID_PARTIAL', first_attempt_date: '2026-11-04', last_attempt_date: '2026-11-30', attempts: 3, last_failure_reason: ',' },
  { customer_id: 'C8', external_customer_ref: '', policy_number: 'P-Z', product_code: 'LIFE_STANDARD', amount_due: 100, amount_collected: 0, status: 'UNPAID', first_attempt_date: '2026-11-06', last_attempt_date: '2026-11-06', attempts: 1, last_failure_reason: '"' },
];

const HEADER = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
/** The book as imported: plain values, 10 policies (8 made awkward afterwards, 2 left as they are). */
const BOOK = HEADER + Array.from({ length: 10 }, (_, i) => `C${i + 1},R${i + 1},POL-${String(i + 1).padStart(2, '0')},LIFE_STANDARD,${i + 1}0.00\n`).join('');

async function makeBook(b: LocalBackend): Promise<void> {
  await b.setClock('2026-10-31');
  const imported = await b.importPolicies(textUpload('book.csv', BOOK));
  expect(imported.imported).toBe(10);
  await b.executeCollections({ period_month: '2026-11' });
  await b.store.transaction(async (trx) => {
    for (let i = 0; i < AWKWARD.length; i++) {
      const n = await trx
        .updateTable('collections')
        .set(AWKWARD[i]! as never)
        .where('period_month', '=', '2026-11')
        .where('policy_number', '=', `POL-${String(i + 1).padStart(2, '0')}`)
        .executeTakeFirst();
      expect(Number(n.numUpdatedRows)).toBe(1);
    }
  });
}

describe.skipIf(noPg)(`the collections report CSV through COPY … TO STDOUT${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  let lite: LocalBackend;
  let post: LocalBackend;

  beforeAll(async () => {
    lite = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    post = await openLocalBackend({ path: await freshDatabase('copyrep'), seed: 1, now: FIXED_NOW });
    await makeBook(lite);
    await makeBook(post);
  });
  afterAll(async () => {
    await lite?.close();
    await post?.close();
  });

  it('is byte-identical to the SQLite store’s on awkward values, and comes from the server', async () => {
    const l = await bytesOf(await lite.collectionsReport('2026-11', 'csv'));
    const p = await bytesOf(await post.collectionsReport('2026-11', 'csv'));
    // SQLite: premia's writer (strings); PostgreSQL: the server's COPY bytes (buffers only).
    expect(l.textChunks).toBeGreaterThan(0);
    expect(p.textChunks).toBe(0);
    expect(p.binaryChunks).toBeGreaterThan(0);
    expect(p.bytes.toString('utf8')).toBe(l.bytes.toString('utf8'));
    expect(p.bytes.equals(l.bytes)).toBe(true);

    // What those bytes are, spelt out (byte order of policy_number, as both stores sort).
    const text = l.bytes.toString('utf8');
    expect(text.startsWith(
      'period_month,customer_id,external_customer_ref,policy_number,product_code,collection_amount_due,' +
        'collection_amount_collected,shortfall,collection_status,first_attempt_date,last_attempt_date,' +
        'number_of_attempts,last_failure_reason\n' +
        '2026-11,007,000123,0001,LIFE_STANDARD,0.05,0.05,0.00,PAID_FULL,2026-11-10,2026-11-10,1,\n',
    )).toBe(true);
    expect(text).toContain('\n2026-11,"C,1",,"P-comma,in",LIFE_STANDARD,0.01,0.00,0.01,UNPAID,,,0,\n');
    expect(text).toContain(
      '\n2026-11,"say ""hi""","""","P-quote""","LIFE,PLUS",1000000.00,999999.99,0.01,PAID_PARTIAL,2026-11-01,2026-11-29,7,"INSUFFICIENT_FUNDS, retry ""later"""\n',
    );
    expect(text).toContain('\n2026-11,"line\nbreak","cr\rhere","P-crlf\r\n",LIFE_STANDARD,1000000.00,1000000.00,0.00,PAID_FULL,2026-11-03,2026-11-03,1,\n');
    expect(text).toContain('\n2026-11,\\.,\\N,P-backslash\\,NULL,0.10,0.00,0.10,CANCELLED,,,0,\\\n');
    expect(text).toContain('\n2026-11,Zoë Ångström — 東京 😀,ÉTÉ,P-é,LIFE_STANDARD,149.50,149.50,0.00,PAID_FULL,2026-11-02,2026-11-05,2,naïve — ✓\n');
    expect(text).toContain('\n2026-11,C8,,P-Z,LIFE_STANDARD,1.00,0.00,1.00,UNPAID,2026-11-06,2026-11-06,1,""""\n');
    expect(text).toContain('\n2026-11,C10,R10,POL-10,LIFE_STANDARD,100.00,0.00,100.00,UNPAID,,,0,\n');
    expect(text.endsWith('\n2026-11, spaced ,\t,p-lower,LIFE_STANDARD,0.99,0.01,0.98,PAID_PARTIAL,2026-11-04,2026-11-30,3,","\n')).toBe(true);
    expect(text.split('\n2026-11,')).toHaveLength(11);
  });

  it('the JSON report (through the cursor) is byte-identical too', async () => {
    const l = await bytesOf(await lite.collectionsReport('2026-11', 'json'));
    const p = await bytesOf(await post.collectionsReport('2026-11', 'json'));
    expect(p.bytes.equals(l.bytes)).toBe(true);
    const body = JSON.parse(l.bytes.toString('utf8')) as { results: Array<{ policy_number: string; external_customer_ref: string }> };
    expect(body.results.map((r) => r.policy_number)).toEqual([
      '0001', 'P-Z', 'P-backslash\\', 'P-comma,in', 'P-crlf\r\n', 'P-quote"', 'P-é', 'POL-09', 'POL-10', 'p-lower',
    ]);
  });

  it('an empty period is the header alone, as on SQLite', async () => {
    const l = await bytesOf(await lite.collectionsReport('2026-12', 'csv'));
    const p = await bytesOf(await post.collectionsReport('2026-12', 'csv'));
    expect(p.bytes.toString('utf8')).toBe(l.bytes.toString('utf8'));
    expect(l.bytes.toString('utf8').split('\n')).toHaveLength(2);
  });

  it('a reader that stops early leaves the store usable', async () => {
    const before = await bytesOf(await post.collectionsReport('2026-11', 'csv'));
    // More early stops than the pool has connections (10): a stopped COPY's connection is dropped, not leaked.
    for (let i = 0; i < 12; i++) {
      const d = await post.collectionsReport('2026-11', 'csv');
      for await (const chunk of d.body) {
        expect(chunk.length).toBeGreaterThan(0);
        break;
      }
    }
    const whole = await bytesOf(await post.collectionsReport('2026-11', 'csv'));
    expect(whole.bytes.equals(before.bytes)).toBe(true);
    expect(whole.bytes.length).toBeGreaterThan(1000);
  });
});
