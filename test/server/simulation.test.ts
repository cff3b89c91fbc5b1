import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setMeta } from '../../src/store/repos/meta.js';
import { FIXTURES } from '../helpers/cli.js';
import { call, multipart, startServer, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s.close();
});

describe('simulation endpoints (clock and bank)', () => {
  // Operator keys drive the clock and the bank (a client key's 403: roles.test.ts): Acme Life's
  // from startServer, and one of Other Insure.
  let otherOperator: string;
  beforeEach(async () => {
    s = await startServer();
    otherOperator = (await s.backend.admin.keys.create('Other Insure', 'operator')).key;
  });

  it('GET /v1/clock shows the virtual clock', async () => {
    const res = await call(s.app, 'GET', '/v1/clock', { key: s.keys.operator });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ date: '2026-11-21', locked: false, seed: 1 });
  });

  it('PUT /v1/clock sets it, reads the store on every request, and refuses once locked', async () => {
    const set = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.operator, body: { date: '2026-11-01' } });
    expect(set.status).toBe(200);
    expect(set.json()).toEqual({ date: '2026-11-01', locked: false, seed: 1 });
    // A CLI beside the server moves the clock: the server sees it at once.
    await setMeta(s.backend.store.db, 'clock_date', '2026-11-05');
    expect((await call(s.app, 'GET', '/v1/clock', { key: otherOperator })).json().date).toBe('2026-11-05');
    await setMeta(s.backend.store.db, 'clock_locked', '1');
    const locked = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.operator, body: { date: '2026-11-02' } });
    expect(locked.status).toBe(409);
    expect(locked.json().error.code).toBe('CLOCK_LOCKED');
  });

  it('PUT /v1/clock answers 400 for a bad date or an unknown field', async () => {
    const bad = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.operator, body: { date: '2026-02-30' } });
    expect(bad.status).toBe(400);
    expect(bad.json().error.details).toEqual([
      { field: 'date', code: 'INVALID_VALUE', message: 'date 2026-02-30 is not a day of the calendar: 2026-02 has 28 days' },
    ]);
    // Dates as other tools write them are told how to write them; other text is not guessed at.
    for (const [date, hint] of [
      ['31/10/2026', ' (the day or month comes first, which can be read two ways; write the year first)'],
      ['2026/10/31', " (it is written with '/'; write it 2026-10-31)"],
      ['tomorrow', ''],
    ]) {
      const other = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.operator, body: { date } });
      expect([other.status, other.json().error.details]).toEqual([
        400,
        [{ field: 'date', code: 'INVALID_FORMAT', message: `date must be a date written YYYY-MM-DD, like 2026-11-30; got "${date}"${hint}` }],
      ]);
    }
    const extra = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.operator, body: { date: '2026-11-02', time: '10:00' } });
    expect(extra.status).toBe(400);
    expect(extra.json().error.details[0]).toMatchObject({ field: 'time', code: 'UNKNOWN_FIELD' });
  });

  it('POST /v1/clock/advance lives through the days, only forward, and validates its body', async () => {
    const three = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { days: 3 } });
    expect(three.status).toBe(200);
    const quiet = (date: string, closed: string | null = null) => ({ date, attempts: 0, succeeded: 0, failed: 0, collected: 0, closed_period: closed, lapsed_policies: 0 });
    expect(three.json()).toEqual({ from: '2026-11-21', to: '2026-11-24', days: [quiet('2026-11-22'), quiet('2026-11-23'), quiet('2026-11-24')] });
    expect(three.text).toContain('"collected":0.00,');
    const to = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { to: '2026-11-30' } });
    expect(to.status).toBe(200);
    expect(to.json().from).toBe('2026-11-24');
    expect(to.json().days.map((d: any) => d.date)).toEqual(['2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30']);
    const monthEnd = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { to_month_end: true } });
    expect(monthEnd.status).toBe(200);
    expect([monthEnd.json().from, monthEnd.json().to, monthEnd.json().days.length]).toEqual(['2026-11-30', '2026-12-31', 31]);
    expect((await call(s.app, 'GET', '/v1/clock', { key: otherOperator })).json()).toEqual({ date: '2026-12-31', locked: false, seed: 1 });

    const back = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { to: '2026-12-30' } });
    expect(back.status).toBe(409);
    expect(back.json().error).toMatchObject({
      code: 'CLOCK_BACKWARDS',
      message: 'The clock is at 2026-12-31; it only moves forward, so it cannot go back to 2026-12-30.',
    });
    for (const [body, field, code] of [
      [{}, 'body', 'REQUIRED'],
      [{ days: 1, to: '2026-11-30' }, 'body', 'CONFLICTING_FIELDS'],
      [{ days: 3661 }, 'days', 'INVALID_VALUE'],
      [{ days: -1 }, 'days', 'INVALID_VALUE'],
      [{ days: 1.5 }, 'days', 'INVALID_VALUE'],
      [{ to_month_end: false }, 'to_month_end', 'INVALID_VALUE'],
    ] as const) {
      const res = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json().error.details[0]).toMatchObject({ field, code });
    }
    expect((await call(s.app, 'GET', '/v1/clock', { key: s.keys.operator })).json().date).toBe('2026-12-31');
  });

  it('two POST /v1/clock/advance at once run one after the other: ranges that meet, never overlap', async () => {
    // Issue 10, item 17: the second used to report the stale start date of the first, both
    // claiming 2026-11-21 to 2026-11-25 while they took turns living those four days.
    const [a, b] = await Promise.all([
      call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { days: 4 } }),
      call(s.app, 'POST', '/v1/clock/advance', { key: otherOperator, body: { days: 4 } }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const ranges = [a.json(), b.json()]
      .map((r) => ({ from: r.from, to: r.to, days: r.days.map((d: { date: string }) => d.date) }))
      .sort((x, y) => x.from.localeCompare(y.from));
    expect(ranges).toEqual([
      { from: '2026-11-21', to: '2026-11-25', days: ['2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25'] },
      { from: '2026-11-25', to: '2026-11-29', days: ['2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29'] },
    ]);
    expect((await call(s.app, 'GET', '/v1/clock', { key: s.keys.acme })).json().date).toBe('2026-11-29');
    // The lease is given back: a later advance starts at once.
    expect(await s.backend.store.db.selectFrom('meta').select('key').where('key', '=', 'advance_lease').execute()).toEqual([]);
    expect((await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { days: 1 } })).json().from).toBe('2026-11-29');
  });

  it('POST /v1/bank/seed changes the seed before any collections run', async () => {
    const seed = await call(s.app, 'POST', '/v1/bank/seed', { key: s.keys.operator, body: { seed: 7 } });
    expect(seed.status).toBe(200);
    expect(seed.json()).toEqual({ date: '2026-11-21', locked: false, seed: 7 });
    expect((await call(s.app, 'GET', '/v1/clock', { key: otherOperator })).json().seed).toBe(7);
    const bad = await call(s.app, 'POST', '/v1/bank/seed', { key: s.keys.operator, body: { seed: '7' } });
    expect(bad.status).toBe(400);
    expect(bad.json().error.details[0]).toMatchObject({ field: 'seed', code: 'INVALID_TYPE' });
    // SEED_LOCKED once a run exists: collections.test.ts.
  });

  it('POST /v1/bank/import imports a multipart CSV per client; GET /v1/bank/accounts/{id} shows the account', async () => {
    const policies = readFileSync(join(FIXTURES, 'policies.csv'));
    const wrong = await call(s.app, 'POST', '/v1/bank/import', { key: s.keys.operator, ...multipart('file', 'bank.csv', policies) });
    expect(wrong.status).toBe(400);
    expect(wrong.json().error).toMatchObject({
      code: 'INVALID_FILE',
      message:
        "bank.csv is not a bank transactions CSV file: line 1: the header must be 'customer_id,date,amount,description'; " +
        "found 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'. Nothing was imported.",
    });
    const mixed = 'customer_id,date,amount,description\nC100001,2026-11-25,9800.00,SALARY\nC100001,2026-11-31,-10.00,CARD\nC100001,2026-11-26,-1.234,CARD\n';
    // Rows that cannot be read refuse the statement whole: its good row is not stored either.
    const partial = await call(s.app, 'POST', '/v1/bank/import', { key: otherOperator, ...multipart('file', 'mixed.csv', mixed) });
    expect(partial.status).toBe(200);
    expect(partial.json()).toMatchObject({ imported: 0, failed: 2 });
    expect(partial.json().errors.map((e: any) => [e.row, e.customer_id, e.field, e.code])).toEqual([
      [3, 'C100001', 'date', 'INVALID_DATE'],
      [4, 'C100001', 'amount', 'INVALID_AMOUNT'],
    ]);
    expect((await call(s.app, 'GET', '/v1/bank/accounts/C100001', { key: otherOperator })).status).toBe(404);
    const corrected = 'customer_id,date,amount,description\nC100001,2026-11-25,9800.00,SALARY\n';
    const fixed = await call(s.app, 'POST', '/v1/bank/import', { key: otherOperator, ...multipart('file', 'mixed.csv', corrected) });
    expect(fixed.json()).toEqual({ imported: 1, failed: 0, errors: [] });

    const upload = await call(s.app, 'POST', '/v1/bank/import', { key: s.keys.operator, ...multipart('file', 'bank.csv', readFileSync(join(FIXTURES, 'bank-transactions.csv'))) });
    expect(upload.status).toBe(200);
    expect(upload.json()).toEqual({ imported: 473, failed: 0, errors: [] });
    const notForm = await call(s.app, 'POST', '/v1/bank/import', { key: s.keys.operator, body: {} });
    expect(notForm.status).toBe(415);

    const account = await call(s.app, 'GET', '/v1/bank/accounts/C100011', { key: s.keys.operator });
    expect(account.status).toBe(200);
    const view = account.json();
    expect(view).toMatchObject({ customer_id: 'C100011', source: 'imported', as_of: '2026-11-21', state: 'open' });
    expect(view.income).toMatchObject({ pattern: 'monthly_fixed_day', typical_amount: 9800 });
    expect(view.recent_transactions.at(-1)).toEqual({ date: '2026-11-15', amount: -740, description: 'CARD PURCHASE', outcome: 'posted', balance: 680 });
    expect(view.balance).toBe(680);
    // Imported transactions belong to the client that imported them: the other client has neither
    // a policy nor imported history for C100011, so to its key that customer does not exist.
    const theirs = await call(s.app, 'GET', '/v1/bank/accounts/C100011', { key: otherOperator });
    expect(theirs.status).toBe(404);
    expect(theirs.json().error.code).toBe('NOT_FOUND');
    // Its own C100001 (known by the row it imported above) shows.
    expect((await call(s.app, 'GET', '/v1/bank/accounts/C100001', { key: otherOperator })).json()).toMatchObject({ customer_id: 'C100001', source: 'imported' });
    const unknown = await call(s.app, 'GET', '/v1/bank/accounts/NOPE', { key: s.keys.operator });
    expect(unknown.status).toBe(404);
    expect(unknown.json().error).toMatchObject({
      code: 'NOT_FOUND',
      message: "Customer 'NOPE' is not known: no policy of this client names it and no bank transactions were imported for it. Check the customer_id.",
    });
    expect((await call(s.app, 'GET', '/v1/bank/accounts/C100001', { key: null })).status).toBe(401);
    const badId = await call(s.app, 'GET', '/v1/bank/accounts/bad%20id', { key: s.keys.operator });
    expect(badId.status).toBe(400);
  });
});

describe('without simulation', () => {
  beforeEach(async () => {
    s = await startServer({ simulation: false });
  });

  it('has no clock or bank endpoints (404) and says so in whoami', async () => {
    for (const [method, url, body] of [
      ['GET', '/v1/clock', undefined],
      ['PUT', '/v1/clock', { date: '2026-11-01' }],
      ['POST', '/v1/clock/advance', { days: 1 }],
      ['POST', '/v1/bank/seed', { seed: 1 }],
      ['GET', '/v1/bank/accounts/C100001', undefined],
    ] as const) {
      const res = await call(s.app, method, url, { key: s.keys.acme, body });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
    expect((await call(s.app, 'GET', '/v1/whoami', { key: s.keys.acme })).json().simulation).toBe(false);
  });
});

describe("an advance's Idempotency-Key, the store's", () => {
  it("replays through another client's operator key with that client's own figures, and through the same one byte for byte", async () => {
    s = await startServer();
    const otherOperator = (await s.backend.admin.keys.create('Other Insure', 'operator')).key;
    const other = (await s.backend.admin.keys.create('Other Insure', 'client')).key;
    expect((await call(s.app, 'PUT', '/v1/clock', { key: s.keys.operator, body: { date: '2026-10-31' } })).status).toBe(200);
    const book = readFileSync(join(FIXTURES, 'policies.csv'), 'utf8');
    const firstHundred = book.split('\n').slice(0, 101).join('\n') + '\n';
    for (const [key, csv] of [[s.keys.acme, book], [other, firstHundred]] as const) {
      expect((await call(s.app, 'POST', '/v1/policies/import', { key, ...multipart('file', 'policies.csv', csv) })).status).toBe(200);
      expect((await call(s.app, 'POST', '/v1/collections/execute', { key, body: { period_month: '2026-11' } })).status).toBe(202);
    }
    const advance = (key: string) =>
      call(s.app, 'POST', '/v1/clock/advance', { key, body: { to: '2026-11-05' }, headers: { 'content-type': 'application/json', 'idempotency-key': 'month-start' } });
    const first = await advance(s.keys.operator);
    expect(first.status).toBe(200);
    const replayed = await advance(otherOperator);
    expect([replayed.status, replayed.headers['idempotent-replayed']]).toEqual([200, 'true']);

    // Other Insure's own attempts of those days, from its report.
    const report = await call(s.app, 'GET', '/v1/reports/attempts?period_month=2026-11&format=json', { key: other });
    const rows = report.json().attempts as Array<{ date: string; amount: number; outcome: string }>;
    const expected = first.json().days.map((d: { date: string; closed_period: string | null }) => {
      const mine = rows.filter((r) => r.date === d.date);
      const ok = mine.filter((r) => r.outcome === 'SUCCESS');
      return {
        date: d.date,
        attempts: mine.length,
        succeeded: ok.length,
        failed: mine.length - ok.length,
        collected: Math.round(ok.reduce((sum, r) => sum + r.amount * 100, 0)) / 100,
        closed_period: d.closed_period,
        lapsed_policies: 0,
      };
    });
    expect(replayed.json()).toEqual({ from: '2026-10-31', to: '2026-11-05', days: expected });
    expect(rows.length).toBeGreaterThan(0);
    expect(replayed.json().days).not.toEqual(first.json().days); // Acme Life's figures are not shown to Other Insure
    // Through Acme Life's own key: the very answer it got.
    const again = await advance(s.keys.operator);
    expect([again.headers['idempotent-replayed'], again.text]).toEqual(['true', first.text]);
  });
});
