/** Hostile files: many bad rows (failed counts them all, the answer lists the first 10,000 by row), CR-only line ends. */
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalBackend } from '../../src/backend/local/index.js';
import { localBackend, textUpload } from '../helpers/local.js';
import { statementRefusedWhole } from '../../src/simulation/scenario.js';

const open: LocalBackend[] = [];
afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});

describe('import error cap', () => {
  it('policies: 12,000 bad rows and 3 good ones', async () => {
    const b = await localBackend();
    open.push(b);
    const lines = ['customer_id,external_customer_ref,policy_number,product_code,collection_amount'];
    for (let i = 1; i <= 12_003; i++) lines.push(i % 4001 === 0 ? `C${i},R${i},P${i},FUNERAL,10.00` : `C${i},R${i},P${i},FUNERAL,-1`);
    const r = await b.importPolicies(textUpload('bad.csv', lines.join('\n')));
    expect([r.imported, r.failed, r.errors.length, r.errors_omitted]).toEqual([3, 12_000, 10_000, 2_000]);
    expect(r.errors[0]!.row).toBe(2);
    expect(r.errors[9_999]!.row).toBe(10_003); // rows 2..10,003 less the good rows 4,002 and 8,003
    expect(r.errors.every((e, k) => k === 0 || e.row > r.errors[k - 1]!.row)).toBe(true);
  });

  it('bank transactions: 10,001 bad rows', async () => {
    const b = await localBackend();
    open.push(b);
    const lines = ['customer_id,date,amount,description'];
    for (let i = 1; i <= 10_001; i++) lines.push(`C${i},2026-13-01,10.00,X`);
    const r = await b.importBankTransactions(textUpload('bad.csv', lines.join('\n')));
    expect([r.imported, r.failed, r.errors.length, r.errors_omitted]).toEqual([0, 10_001, 10_000, 1]);
    expect(r.errors[9_999]!.row).toBe(10_001);
  });

  it('bank transactions refused whole: the rows it cannot read are listed past 10,000 rows stored before', async () => {
    const b = await localBackend();
    open.push(b);
    const header = 'customer_id,date,amount,description';
    const rows: string[] = [];
    for (let i = 1; i <= 10_500; i++) rows.push(`C${i % 40},2026-10-${String((i % 28) + 1).padStart(2, '0')},${i}.00,PURCHASE ${i}`);
    expect((await b.importBankTransactions(textUpload('first.csv', [header, ...rows].join('\n')))).imported).toBe(10_500);
    // The same statement again with a typo and a new row at its end: the typo refuses it whole.
    const again = [header, ...rows, 'C1,2026-11-03,1.234.50,TYPO', 'C2,2026-11-04,5.00,NEW'];
    const r = await b.importBankTransactions(textUpload('again.csv', again.join('\n')));
    expect([r.imported, r.failed, r.errors.length, r.errors_omitted]).toEqual([0, 10_501, 10_000, 501]);
    expect(r.errors.at(-1)).toMatchObject({ row: 10_502, field: 'amount', code: 'INVALID_AMOUNT' });
    expect(r.errors.slice(0, -1).every((e) => e.code === 'DUPLICATE_TRANSACTION')).toBe(true);
    expect(r.errors.every((e, k) => k === 0 || e.row > r.errors[k - 1]!.row)).toBe(true);
    expect(statementRefusedWhole(r)).toBe(true);
  });

  it('at most 10,000 failed rows: no errors_omitted key at all', async () => {
    const b = await localBackend();
    open.push(b);
    const r = await b.importBankTransactions(textUpload('bad.csv', 'customer_id,date,amount,description\nC1,2026-13-01,10.00,X\n'));
    expect(Object.keys(r)).toEqual(['imported', 'failed', 'errors']);
  });
});

describe('files whose lines end in a carriage return alone', () => {
  const POLICIES = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount';
  it('all of them: refused whole, saying why', async () => {
    const b = await localBackend();
    open.push(b);
    const e = await b.importPolicies(textUpload('mac.csv', `${POLICIES}\rC1,R1,P1,FUNERAL,10.00\r`)).then(
      () => null,
      (err: { code: string; message: string }) => err,
    );
    expect(e?.code).toBe('INVALID_FILE');
    expect(e?.message).toContain(
      "The file's lines end with a carriage return alone (the old Mac format), which CSV does not take as a line end; save it with LF or CRLF line ends.",
    );
    const bank = await b.importBankTransactions(textUpload('mac.csv', 'customer_id,date,amount,description\rC1,2026-12-01,1.00,X\r')).then(
      () => null,
      (err: { code: string; message: string }) => err,
    );
    expect(bank?.code).toBe('INVALID_FILE');
    expect(bank?.message).toContain('carriage return alone');
  });

  it('a file longer than the longest record: refused whole, said as CR line ends, not as a quote left open', async () => {
    const b = await localBackend();
    open.push(b);
    const rows = Array.from({ length: 60_000 }, (_, i) => `C${i},R${i},P${i},FUNERAL,10.00`);
    const text = `${POLICIES}\r${rows.join('\r')}\r`;
    expect(text.length).toBeGreaterThan(1_048_576);
    const e = await b.importPolicies(textUpload('mac.csv', text)).then(
      () => null,
      (err: { code: string; message: string }) => err,
    );
    expect(e?.code).toBe('INVALID_FILE');
    expect(e?.message).toBe(
      "mac.csv is not a policy CSV file: line 1: the record starting here is longer than 1048576 characters. The file's lines end with a carriage return alone " +
        '(the old Mac format), which CSV does not take as a line end; save it with LF or CRLF line ends. Nothing was imported.',
    );
    expect((await b.listPolicies({})).data).toEqual([]);
  });

  it('after the header: the rows that ran together fail with a hint', async () => {
    const b = await localBackend();
    open.push(b);
    const r = await b.importPolicies(textUpload('mac.csv', `${POLICIES}\nC1,R1,P1,FUNERAL,10.00\rC2,R2,P2,FUNERAL,10.00\r`));
    expect([r.imported, r.failed]).toEqual([0, 1]);
    expect(r.errors[0]!.message).toBe(
      'expected 5 fields, found 9 (the line holds carriage returns: lines ended by CR alone ran together; save the file with LF or CRLF line ends)',
    );
  });
});
