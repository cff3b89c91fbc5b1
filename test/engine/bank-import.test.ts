/**
 * What a bank import may not do to history already read: count a statement twice, or replace
 * the generated account of a customer the engine is collecting from.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LocalBackend } from '../../src/backend/local/index.js';
import { CaseMismatchRefused } from '../../src/domain/customer-case.js';
import { FIXTURES } from '../helpers/cli.js';
import { fileUpload, fixtureMonth, localBackend, textUpload } from '../helpers/local.js';

const BANK = join(FIXTURES, 'bank-transactions.csv');
const open: LocalBackend[] = [];
async function backend(): Promise<LocalBackend> {
  const b = await localBackend();
  open.push(b);
  return b;
}
afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});

/**
 * Calls of any store statement (better-sqlite3's, whichever connection) that reads the stored
 * bank transactions, counted until restore().
 */
function countStoredReads(): { readonly count: number; restore(): void } {
  const scratch = new Database(':memory:');
  const proto = Object.getPrototypeOf(scratch.prepare('select 1')) as Record<'run' | 'get' | 'all' | 'iterate', (...args: unknown[]) => unknown>;
  scratch.close();
  let count = 0;
  const spies = (['run', 'get', 'all', 'iterate'] as const).map((method) => {
    const original = proto[method];
    return vi.spyOn(proto, method).mockImplementation(function (this: { source: string }, ...args: unknown[]) {
      if (/\bfrom\s+(main\.)?bank_transactions\b/i.test(this.source)) count++;
      return original.apply(this, args);
    });
  });
  return {
    get count() {
      return count;
    },
    restore: () => spies.forEach((s) => s.mockRestore()),
  };
}

/** Characters (grapheme clusters) taken from any Intl.Segmenter's segments, counted until restore(). */
function countSegmented(): { readonly count: number; restore(): void } {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called on its own Segmenter below
  const original = Intl.Segmenter.prototype.segment;
  let count = 0;
  const spy = vi.spyOn(Intl.Segmenter.prototype, 'segment').mockImplementation(function (this: Intl.Segmenter, input: string) {
    const segments = original.call(this, input);
    return Object.assign(Object.create(segments) as Intl.Segments, {
      *[Symbol.iterator]() {
        for (const s of segments) {
          count++;
          yield s;
        }
      },
    });
  });
  return {
    get count() {
      return count;
    },
    restore: () => spy.mockRestore(),
  };
}

describe('bank import', () => {
  it("what one account's statement moves in all is bounded, across imports, so its money stays exact to the cent", async () => {
    const b = await backend();
    await b.setClock('2026-10-31');
    const HEAD = 'customer_id,date,amount,description\n';
    const big = (n: number, tag: string) => HEAD + Array.from({ length: n }, (_, i) => `X001,2026-10-${String((i % 28) + 1).padStart(2, '0')},1000000000.00,BIG ${tag} ${i}\n`).join('');
    // 9,999 rows of the largest amount, then 2 more in the next file: the first of them reaches
    // 10,000,000,000,000.00 exactly, the second would pass it; another account is not held back.
    expect(await b.importBankTransactions(textUpload('a.csv', big(9_999, 'a')))).toMatchObject({ imported: 9_999, failed: 0 });
    const next = await b.importBankTransactions(textUpload('b.csv', big(2, 'b') + 'X002,2026-10-05,1000000000.00,OTHER\n'));
    expect(next).toEqual({
      imported: 2,
      failed: 1,
      errors: [
        {
          row: 3,
          customer_id: 'X001',
          field: 'amount',
          code: 'AMOUNT_OUT_OF_RANGE',
          message: "X001's statement would move more than 10000000000000.00 in all with this row; premia counts an account's money to the cent up to that",
        },
      ],
    });
    const account = await b.showBankAccount('X001');
    expect(account.balance).toBe(1_000_000_000_000_000);
  });

  it('a row split by an unquoted comma says where the comma went: a description to quote, or an amount with thousands separators', async () => {
    const b = await backend();
    await b.setClock('2026-10-31');
    const r = await b.importBankTransactions(
      textUpload(
        'split.csv',
        'customer_id,date,amount,description\nC1,2026-11-02,-50.00,PAYMENT, THANK YOU\nC1,2026-11-03,1,234.50,SALARY\nC1,2026-11-04,-5.00,"COFFEE"\nC1,X,2026-11-05,-5.00,CARD\nC1,2026-11-06,-7.50\nC1,2026-11-07,-149,50,DEBIT ORDER\n',
      ),
    );
    expect(r).toEqual({
      imported: 0,
      failed: 5,
      errors: [
        {
          row: 2,
          customer_id: 'C1',
          field: 'row',
          code: 'WRONG_FIELD_COUNT',
          message:
            'expected 4 fields, found 5: a comma separates fields, so a description that holds one must be in double quotes (if the description is \'PAYMENT, THANK YOU\', write "PAYMENT, THANK YOU")',
        },
        {
          row: 3,
          customer_id: 'C1',
          field: 'row',
          code: 'WRONG_FIELD_COUNT',
          message: "expected 4 fields, found 5: the amount '1,234.50' has thousands separators, which split it into fields; write it without them, like 1234.50",
        },
        // Neither: the comma is not in the description nor the amount, and no guess is made.
        { row: 5, customer_id: 'C1', field: 'row', code: 'WRONG_FIELD_COUNT', message: 'expected 4 fields, found 5' },
        {
          row: 6,
          customer_id: 'C1',
          field: 'row',
          code: 'WRONG_FIELD_COUNT',
          message: 'expected 4 fields, found 3: the description is missing; a row without one still ends with its comma (C1,2026-11-06,-7.50,)',
        },
        // Not a description '50,DEBIT ORDER' to quote: the amount's decimal comma split it.
        {
          row: 7,
          customer_id: 'C1',
          field: 'row',
          code: 'WRONG_FIELD_COUNT',
          message: "expected 4 fields, found 5: the amount '-149,50' has a decimal comma, which split it into fields; write it as -149.50",
        },
      ],
    });
    expect((await b.showBankAccount('C1').catch((e: Error) => e)) instanceof Error).toBe(true); // nothing stored: C1 is not known
  });

  it("dates written as other tools write them are refused row by row, each message saying what to write instead", async () => {
    const b = await backend();
    await b.setClock('2026-10-31');
    const rows = ['2026/11/02', '02/11/2026', '2026-11-02 00:00:00', '2026-11-2', '46328'].map((d) => `C1,${d},-5.00,CARD`).join('\n');
    const r = await b.importBankTransactions(textUpload('dates.csv', `customer_id,date,amount,description\n${rows}\n`));
    expect([r.imported, r.failed]).toEqual([0, 5]);
    expect(r.errors.map((e) => [e.row, e.field, e.code, e.message])).toEqual([
      [2, 'date', 'INVALID_DATE', "date '2026/11/02' is not a date written YYYY-MM-DD (it is written with '/'; write it 2026-11-02)"],
      [3, 'date', 'INVALID_DATE', "date '02/11/2026' is not a date written YYYY-MM-DD (the day or month comes first, which can be read two ways; write the year first)"],
      [4, 'date', 'INVALID_DATE', "date '2026-11-02 00:00:00' is not a date written YYYY-MM-DD (it has a time of day; write the date alone, 2026-11-02)"],
      [5, 'date', 'INVALID_DATE', "date '2026-11-2' is not a date written YYYY-MM-DD (write the month and day with two digits each: 2026-11-02)"],
      [6, 'date', 'INVALID_DATE', "date '46328' is not a date written YYYY-MM-DD (a spreadsheet's serial day number, 2026-11-02 in Excel's 1900 date system; format the column as dates written YYYY-MM-DD)"],
    ]);
  });

  // A bank's own export carries a running balance (and often names its columns in its own order);
  // a spreadsheet titles its columns, or writes Excel's sep= line first. Each refused whole, saying what to do.
  const HEADER_IS = "is not a bank transactions CSV file: line 1: the header must be 'customer_id,date,amount,description'; found";
  it.each([
    [
      "titled as a person titles columns ('Customer ID'): write underscores",
      'titled.csv',
      'Customer ID,Date,Amount,Description\nC1,2026-11-02,-50.00,X\n',
      "'Customer ID,Date,Amount,Description'. Its names are written with spaces or hyphens; write them with underscores, as 'customer_id,date,amount,description'.",
    ],
    ["Excel's sep= line before it: delete it", 'excel.csv', 'sep=,\r\ncustomer_id,date,amount,description\r\nC1,2026-11-02,-50.00,X\r\n', "'sep=,'. It is Excel's 'sep=' line, which only Excel reads; delete that line."],
    [
      'the right columns in another order: said so',
      'order.csv',
      'date,customer_id,amount,description\n2026-11-02,C1,-50.00,X\n',
      "'date,customer_id,amount,description'. The columns are right but in the wrong order.",
    ],
    [
      'a column besides the four (a running balance): named',
      'balance.csv',
      'customer_id,date,amount,description,balance\nC1,2026-11-02,-50.00,X,950.00\n',
      "'customer_id,date,amount,description,balance'. It has a column premia does not read ('balance'); delete it.",
    ],
    [
      "columns besides the four, the others in the bank's order: named, and the order said",
      'export.csv',
      'Date,Description,Amount,Customer_ID,Balance,Reference\n2026-11-02,X,-50.00,C1,950.00,R1\n',
      "'Date,Description,Amount,Customer_ID,Balance,Reference'. It has columns premia does not read ('Balance', 'Reference'); delete them, and put the others in the order 'customer_id,date,amount,description'.",
    ],
    // These said only what the header must be and what it was, for the reader to tell the difference.
    ['a column left out: named', 'short.csv', 'customer_id,date,amount\nC1,2026-11-02,-50.00\n', "'customer_id,date,amount'. It lacks the column 'description'."],
    [
      'a column twice: named',
      'twice.csv',
      'customer_id,date,amount,description,amount\nC1,2026-11-02,-50.00,X,-50.00\n',
      "'customer_id,date,amount,description,amount'. It has the column 'amount' more than once.",
    ],
    [
      'a column misspelt: both named',
      'typo.csv',
      'customer_id,date,amount,descripton\nC1,2026-11-02,-50.00,X\n',
      "'customer_id,date,amount,descripton'. It lacks the column 'description'; and has a column premia does not read ('descripton').",
    ],
  ])('a header %s; nothing imported', async (_what, name, text, said) => {
    const b = await backend();
    const r = await b.importBankTransactions(textUpload(name, text)).catch((e: Error) => e);
    expect(r).toMatchObject({ code: 'INVALID_FILE', message: `${name} ${HEADER_IS} ${said} Nothing was imported.` });
    expect(await b.showBankAccount('C1').catch((e: { code: string }) => e.code)).toBe('NOT_FOUND');
  });

  it('a header column whose name is not plain text is counted, not shown (the hint escapes nothing)', async () => {
    const b = await backend();
    const odd = await b.importBankTransactions(textUpload('odd.csv', 'customer_id,date,amount,description,\u001b[31mx\n')).catch((e: Error) => e);
    expect((odd as Error).message).toContain('It has 1 column premia does not read; delete it. Nothing was imported.');
  });

  it('the same statement imported twice: the second import takes nothing and says why, row by row', async () => {
    const b = await backend();
    await b.setClock('2026-07-31');
    const first = await b.importBankTransactions(fileUpload(BANK));
    expect([first.imported, first.failed]).toEqual([473, 0]);
    const before = await b.showBankAccount('C100001');
    const again = await b.importBankTransactions(fileUpload(BANK));
    expect([again.imported, again.failed, again.errors.length]).toEqual([0, 473, 473]);
    expect(again.errors[0]).toEqual({
      row: 2,
      customer_id: 'C100001',
      field: 'row',
      code: 'DUPLICATE_TRANSACTION',
      message: expect.stringMatching(/^C100001 already has this transaction on 2026-08-\d\d from an earlier import; a statement is imported once$/),
    });
    expect(await b.showBankAccount('C100001')).toEqual(before);
  });

  it('an event row carries no money, and money carries no event: either mix-up is refused, row by row, and the file is not imported', async () => {
    const b = await backend();
    await b.setClock('2026-07-31');
    const csv =
      'customer_id,date,amount,description\nK2,2026-08-25,1000.00,SALARY\nK2,2026-11-25,1000.00,ACCOUNT_CLOSED\n' +
      'K2,2026-11-26,0,SALARY\nK3,2026-11-25,0,PAYMENT_STOPPED\nK4,2026-11-25,100.00,account_closed\nK4,2026-11-26,0,Payment_Stopped\n';
    const r = await b.importBankTransactions(textUpload('t.csv', csv));
    expect([r.imported, r.failed]).toEqual([0, 4]);
    expect(r.errors).toEqual([
      {
        row: 3,
        customer_id: 'K2',
        field: 'amount',
        code: 'INVALID_AMOUNT',
        message: "an event row (ACCOUNT_CLOSED) must have amount 0, not 1000.00: the event is not money; write the account's own movement on a row of its own",
      },
      {
        row: 4,
        customer_id: 'K2',
        field: 'amount',
        code: 'INVALID_AMOUNT',
        message: "amount 0 is only for event rows (ACCOUNT_CLOSED, PAYMENT_STOPPED, ACCOUNT_FROZEN); 'SALARY' is not one",
      },
      // An event's name in lower case is the event mistyped: money on it is refused as on the event.
      {
        row: 6,
        customer_id: 'K4',
        field: 'amount',
        code: 'INVALID_AMOUNT',
        message: "an event row (ACCOUNT_CLOSED) must have amount 0, not 100.00: the event is not money; write the account's own movement on a row of its own",
      },
      {
        row: 7,
        customer_id: 'K4',
        field: 'amount',
        code: 'INVALID_AMOUNT',
        message:
          "amount 0 is only for event rows (ACCOUNT_CLOSED, PAYMENT_STOPPED, ACCOUNT_FROZEN); 'Payment_Stopped' is not one (event names are written in capitals: PAYMENT_STOPPED)",
      },
    ]);
  });

  it('rows repeated within one file are two transactions', async () => {
    const b = await backend();
    await b.setClock('2026-07-31');
    const csv = 'customer_id,date,amount,description\nNEW-1,2026-08-03,500.00,SALARY\nNEW-1,2026-08-04,-20.00,COFFEE\nNEW-1,2026-08-04,-20.00,COFFEE\n';
    const r = await b.importBankTransactions(textUpload('t.csv', csv));
    expect([r.imported, r.failed]).toEqual([3, 0]);
    const again = await b.importBankTransactions(textUpload('t.csv', csv));
    expect([again.imported, again.failed, again.errors.map((e) => [e.row, e.code])]).toEqual([
      0,
      3,
      [
        [2, 'DUPLICATE_TRANSACTION'],
        [3, 'DUPLICATE_TRANSACTION'],
        [4, 'DUPLICATE_TRANSACTION'],
      ],
    ]);
  });

  it('each row stored before matches one row of a later file: a statement exported mid-day, then the whole day, adds what the day added since', async () => {
    const b = await backend();
    await b.setClock('2026-07-31');
    const head = 'customer_id,date,amount,description\nDAY-1,2026-08-03,500.00,SALARY\n';
    // The first export was taken after one coffee; the second, of the whole day, shows both.
    expect(await b.importBankTransactions(textUpload('noon.csv', `${head}DAY-1,2026-08-03,-20.00,COFFEE\n`))).toEqual({ imported: 2, failed: 0, errors: [] });
    // A file refused whole in between (rolled back) changes nothing of what the next one finds.
    expect(await b.importBankTransactions(textUpload('bad.csv', `${head}DAY-1,2026-08-03,-20.00,COFFEE\nDAY-1,2026-08-03,"1,000.00",X\n`))).toMatchObject({
      imported: 0,
      failed: 3,
    });
    const r = await b.importBankTransactions(textUpload('day.csv', `${head}DAY-1,2026-08-03,-20.00,COFFEE\nDAY-1,2026-08-03,-20.00,COFFEE\n`));
    expect([r.imported, r.failed, r.errors.map((e) => [e.row, e.code])]).toEqual([
      1,
      2,
      [
        [2, 'DUPLICATE_TRANSACTION'],
        [3, 'DUPLICATE_TRANSACTION'],
      ],
    ]);
    await b.setClock('2026-08-03');
    const account = await b.showBankAccount('DAY-1');
    expect([account.balance, account.recent_transactions.map((t) => [t.amount, t.description])]).toEqual([
      46000,
      [
        [50000, 'SALARY'],
        [-2000, 'COFFEE'],
        [-2000, 'COFFEE'],
      ],
    ]);
    // The same whole day once more: all three are stored already.
    const again = await b.importBankTransactions(textUpload('day.csv', `${head}DAY-1,2026-08-03,-20.00,COFFEE\nDAY-1,2026-08-03,-20.00,COFFEE\n`));
    expect([again.imported, again.failed]).toEqual([0, 3]);
  });

  it('a statement of many rows a day, imported onto another of the same days, reads the stored rows once a day, not once a row', async () => {
    const b = await backend();
    await b.setClock('2026-07-31');
    // 30,000 rows of one account on one day, then 30,000 other rows of that day and one repeated:
    // looking each new row up among the day's stored ones row by row took minutes. Counted, not
    // timed (a test's pass never depends on how busy the machine is): the statements that read
    // the stored transactions run a few times for the whole file, not once for each of its rows.
    const day = (tag: string) =>
      'customer_id,date,amount,description\n' + Array.from({ length: 30_000 }, (_, i) => `BUSY-1,2026-08-03,-1.00,CARD ${tag} ${i}\n`).join('');
    expect(await b.importBankTransactions(textUpload('a.csv', day('a')))).toEqual({ imported: 30_000, failed: 0, errors: [] });
    const reads = countStoredReads();
    try {
      const next = await b.importBankTransactions(textUpload('b.csv', `${day('b')}BUSY-1,2026-08-03,-1.00,CARD a 29999\n`));
      expect([next.imported, next.failed, next.errors.map((e) => [e.row, e.code])]).toEqual([30_000, 1, [[30_002, 'DUPLICATE_TRANSACTION']]]);
    } finally {
      reads.restore();
    }
    // Four: the customers imported before, the new rows' first id, the account's turnover, and its
    // one day's stored rows (30,004 when each row is looked up among them).
    expect(reads.count).toBeGreaterThan(0);
    expect(reads.count).toBeLessThanOrEqual(10);
  });

  it('a file of long descriptions is refused from their beginnings: the length is settled without counting each whole', async () => {
    const b = await backend();
    await b.setClock('2026-07-31');
    // 300 descriptions of 30,000 characters: counting each whole, as a person counts, took 40 s.
    // Counted, not timed: the characters segmented for the whole file, where counting every
    // description whole would segment 9,000,000.
    const long = 'customer_id,date,amount,description\n' + Array.from({ length: 300 }, (_, i) => `LONG-${i},2026-08-03,1.00,${'é'.repeat(30_000)}\n`).join('');
    const segmented = countSegmented();
    let r: Awaited<ReturnType<LocalBackend['importBankTransactions']>>;
    try {
      r = await b.importBankTransactions(textUpload('long.csv', long));
    } finally {
      segmented.restore();
    }
    expect([r.imported, r.failed, r.errors[0]]).toEqual([
      0,
      300,
      { row: 2, customer_id: 'LONG-0', field: 'description', code: 'INVALID_FORMAT', message: 'description is longer than 200 characters' },
    ]);
    // A description's first 202 characters settle it: 60,600 for the file.
    expect(segmented.count).toBeGreaterThanOrEqual(300 * 202);
    expect(segmented.count).toBeLessThanOrEqual(300 * 1_000);
  });

  it('a description of one character under 400,000 accents is refused: a character holds at most 31 code points', async () => {
    const b = await backend();
    await b.setClock('2026-07-31');
    const csv = `customer_id,date,amount,description\nACC-1,2026-08-03,1.00,Caf${'e\u0301'} au lait\nACC-1,2026-08-04,1.00,Z${'\u0301'.repeat(400_000)}\n`;
    expect(await b.importBankTransactions(textUpload('zalgo.csv', csv))).toEqual({
      imported: 0,
      failed: 1,
      errors: [
        {
          row: 3,
          customer_id: 'ACC-1',
          field: 'description',
          code: 'INVALID_FORMAT',
          message: 'description has a character of more than 31 code points (character 1: a letter under dozens of accents); write it as plain text',
        },
      ],
    });
  });

  it('once a run exists, a generated customer with collections keeps the generated account, debited yet or not', async () => {
    const b = await backend();
    await fixtureMonth(b, { bank: false, advance: false }); // November queued; no attempt yet
    const before = await b.showBankAccount('C100300');
    expect(before.source).toBe('generated');
    const csv = 'customer_id,date,amount,description\nC100300,2026-11-05,100.00,TRANSFER\nNEW-7,2026-11-05,100.00,TRANSFER\n';
    const r = await b.importBankTransactions(textUpload('t.csv', csv));
    expect([r.imported, r.failed]).toEqual([1, 1]);
    expect(r.errors).toEqual([
      {
        row: 2,
        customer_id: 'C100300',
        field: 'customer_id',
        code: 'ACCOUNT_IN_USE',
        message: 'premia is collecting from the generated account of C100300; its history cannot be replaced',
      },
    ]);
    expect(await b.showBankAccount('C100300')).toEqual(before);
  });

  it("rows of customers whose ids differ from a policy's only in letter case: listed by default (the service), nothing stored when refusal is asked", async () => {
    const b = await backend();
    await b.setClock('2026-10-31');
    await b.importPolicies(textUpload('p.csv', 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nAB-1,R1,P-1,LIFE,10.00\nab-2,R2,P-2,LIFE,10.00\n'));
    const csv = 'customer_id,date,amount,description\nOTHER,2026-11-02,5.00,X\nab-1,2026-11-02,5.00,X\nAb-2,2026-11-03,5.00,X\nAB-1,2026-11-04,5.00,X\n';
    const refused = await b.importBankTransactions(textUpload('t.csv', csv), { customerCase: 'refuse' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CaseMismatchRefused);
    expect((refused as CaseMismatchRefused).exitCode).toBe(2);
    expect((refused as CaseMismatchRefused).mismatches).toEqual({
      total: 2,
      first: [
        { row: 3, customer_id: 'ab-1', policy_customer_id: 'AB-1' },
        { row: 4, customer_id: 'Ab-2', policy_customer_id: 'ab-2' },
      ],
    });
    await expect(b.showBankAccount('OTHER')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await b.importBankTransactions(textUpload('t.csv', csv))).toEqual({
      imported: 4,
      failed: 0,
      errors: [],
      case_mismatches: {
        total: 2,
        first: [
          { row: 3, customer_id: 'ab-1', policy_customer_id: 'AB-1' },
          { row: 4, customer_id: 'Ab-2', policy_customer_id: 'ab-2' },
        ],
      },
    });
    expect((await b.showBankAccount('ab-1')).source).toBe('imported');
  });
});
