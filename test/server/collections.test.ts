/**
 * The collections routes over HTTP with the engine behind them: one store lives through a run of
 * November 2026 (fixtures/policies.csv and fixtures/bank-transactions.csv, seed 1). The tests of
 * this file run in order and each builds on the state the previous ones left.
 *
 * The figures are the engine's (checked with the CLI in local mode on a separate store first);
 * POL-2026021 is the customer of the spec's retry example (a first attempt that fails for want
 * of funds and a retry after payday); premia's engine collects it from the balance on the first
 * business day instead: PAID_FULL with number_of_attempts 1.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Download } from '../../src/backend/types.js';
import { FIXTURES } from '../helpers/cli.js';
import { call, multipart, startServer, type TestServer } from './helpers.js';

let s: TestServer;
let acmeClientId: number;

beforeAll(async () => {
  s = await startServer();
  acmeClientId = (await s.backend.admin.keys.authenticate(s.keys.acme)).clientId;
  const policies = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...multipart('file', 'policies.csv', readFileSync(join(FIXTURES, 'policies.csv'))) });
  expect(policies.json()).toEqual({ imported: 520, failed: 0, errors: [] });
  const bank = await call(s.app, 'POST', '/v1/bank/import', { key: s.keys.operator, ...multipart('file', 'bank.csv', readFileSync(join(FIXTURES, 'bank-transactions.csv'))) });
  expect(bank.json()).toEqual({ imported: 473, failed: 0, errors: [] });
  const clock = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.operator, body: { date: '2026-10-31' } });
  expect(clock.json()).toEqual({ date: '2026-10-31', locked: false, seed: 1 });
});
afterAll(async () => {
  await s.close();
});

async function text(download: Download): Promise<string> {
  let out = '';
  for await (const chunk of download.body) out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let executionId: string;
let collectionId: string;

describe('a collections run over HTTP', () => {
  it('POST /v1/collections/execute: twelve at once queue every active policy once, in one execution (202 each)', async () => {
    // Issue 10, item 17: eleven of these used to leave an empty execution row each.
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, body: { period_month: '2026-11' } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(202));
    const queued = answers.map((a) => a.json().policies_queued).sort((a, b) => b - a);
    expect(queued).toEqual([520, ...Array(11).fill(0)]);
    executionId = answers.find((a) => a.json().policies_queued === 520)!.json().execution_id;
    expect(executionId).toMatch(UUID);
    // Those that queued nothing name the execution that holds the policies.
    for (const a of answers) expect(a.json()).toEqual({ execution_id: executionId, status: 'processing', policies_queued: a.json().policies_queued });
    const rows = await s.backend.store.db.selectFrom('executions').select(['period_month', 'policies_queued']).where('client_id', '=', acmeClientId).execute();
    expect(rows).toEqual([{ period_month: '2026-11', policies_queued: 520 }]);
    const again = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, body: { period_month: '2026-11', policy_ids: ['POL-2026001'] } });
    expect(again.json()).toEqual({ execution_id: executionId, status: 'processing', policies_queued: 0 });

    const run = await call(s.app, 'GET', `/v1/executions/${executionId}`, { key: s.keys.acme });
    expect(run.status).toBe(200);
    expect(run.json()).toEqual({
      execution_id: executionId,
      period_month: '2026-11',
      status: 'processing',
      strategy: 'smart',
      policies_queued: 520,
      created_at: '2026-10-31T09:30:00.000Z',
      completed_at: null,
      counts: { PAID_FULL: 0, PAID_PARTIAL: 0, UNPAID: 520, CANCELLED: 0 },
    });
  });

  it('locks the clock and the seed once a run exists (409 CLOCK_LOCKED, SEED_LOCKED)', async () => {
    const clock = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.operator, body: { date: '2026-10-01' } });
    expect(clock.status).toBe(409);
    expect(clock.json().error).toMatchObject({
      code: 'CLOCK_LOCKED',
      message: "The clock is at 2026-10-31 and a collections run exists, so it can no longer be set; move it forward with 'premia clock advance'.",
    });
    const seed = await call(s.app, 'POST', '/v1/bank/seed', { key: s.keys.operator, body: { seed: 2 } });
    expect(seed.status).toBe(409);
    expect(seed.json().error).toMatchObject({
      code: 'SEED_LOCKED',
      message: "A collections run exists, so the bank's seed (1) can no longer change: generated accounts have been used.",
    });
    expect((await call(s.app, 'GET', '/v1/clock', { key: s.keys.operator })).json()).toEqual({ date: '2026-10-31', locked: true, seed: 1 });
  });

  it('POST /v1/clock/advance {"to":"2026-11-30"} lives through November: 30 days, the period closes on the last', async () => {
    const res = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { to: '2026-11-30' } });
    expect(res.status).toBe(200);
    const result = res.json();
    expect([result.from, result.to, result.days.length]).toEqual(['2026-10-31', '2026-11-30', 30]);
    expect(result.days.map((d: any) => d.date)).toEqual(Array.from({ length: 30 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`));
    const total = { attempts: 0, succeeded: 0, failed: 0, collectedCents: 0, lapsed: 0 };
    for (const d of result.days) {
      total.attempts += d.attempts;
      total.succeeded += d.succeeded;
      total.failed += d.failed;
      total.collectedCents += Math.round(d.collected * 100);
      total.lapsed += d.lapsed_policies;
    }
    expect(total).toEqual({ attempts: 543, succeeded: 535, failed: 8, collectedCents: 47_092_510, lapsed: 0 });
    expect(result.days[25]).toEqual({ date: '2026-11-26', attempts: 3, succeeded: 3, failed: 0, collected: 2800.01, closed_period: null, lapsed_policies: 0 });
    expect(result.days.filter((d: any) => d.closed_period !== null).map((d: any) => [d.date, d.closed_period])).toEqual([['2026-11-30', '2026-11']]);
    expect(res.text).toContain('"collected":21586.38,"closed_period":"2026-11"');
  });

  it('refuses to queue a closed period (409 PERIOD_CLOSED) or to move the clock back (409 CLOCK_BACKWARDS)', async () => {
    const closed = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, body: { period_month: '2026-11' } });
    expect(closed.status).toBe(409);
    expect(closed.json().error).toMatchObject({
      code: 'PERIOD_CLOSED',
      message: 'Period 2026-11 has closed (its last day, 2026-11-30, has run; the clock is at 2026-11-30). Its collections can no longer be queued.',
    });
    const back = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.operator, body: { to: '2026-11-29' } });
    expect(back.status).toBe(409);
    expect(back.json().error.code).toBe('CLOCK_BACKWARDS');
    expect((await call(s.app, 'GET', '/v1/clock', { key: s.keys.operator })).json().date).toBe('2026-11-30');
  });

  it('GET /v1/collections?period_month=2026-11&policy=POL-2026021: the retry example, PAID_FULL from the balance on the first business day', async () => {
    const res = await call(s.app, 'GET', '/v1/collections?period_month=2026-11&policy=POL-2026021', { key: s.keys.acme });
    expect(res.status).toBe(200);
    const policy = (await call(s.app, 'GET', '/v1/policies/POL-2026021', { key: s.keys.acme })).json();
    const page = res.json();
    expect(page).toEqual({
      data: [
        {
          id: expect.stringMatching(UUID),
          period_month: '2026-11',
          customer_id: 'C100011',
          external_customer_ref: 'ACME-787109',
          policy_number: 'POL-2026021',
          product_code: 'LIFE_STANDARD',
          collection_amount_due: 1708.74,
          collection_amount_collected: 1708.74,
          shortfall: 0,
          collection_status: 'PAID_FULL',
          first_attempt_date: '2026-11-02',
          last_attempt_date: '2026-11-02',
          number_of_attempts: 1,
          last_failure_reason: null,
          policy_id: policy.id,
          execution_id: executionId,
        },
      ],
      next_after: null,
    });
    expect(res.text).toContain('"collection_amount_due":1708.74,"collection_amount_collected":1708.74,"shortfall":0.00,');
    collectionId = page.data[0].id;
    // The same filter by policy id.
    const byId = await call(s.app, 'GET', `/v1/collections?period_month=2026-11&policy=${policy.id}`, { key: s.keys.acme });
    expect(byId.text).toBe(res.text);
  });

  it('GET /v1/collections filters by status and pages in policy-number order', async () => {
    const counts: Record<string, number> = {};
    for (const status of ['PAID_FULL', 'PAID_PARTIAL', 'UNPAID', 'CANCELLED']) {
      const res = await call(s.app, 'GET', `/v1/collections?period_month=2026-11&status=${status}&limit=10000`, { key: s.keys.acme });
      expect(res.json().data.every((c: any) => c.collection_status === status)).toBe(true);
      counts[status] = res.json().data.length;
    }
    expect(counts).toEqual({ PAID_FULL: 485, PAID_PARTIAL: 18, UNPAID: 17, CANCELLED: 0 });
    const first = (await call(s.app, 'GET', '/v1/collections?period_month=2026-11&limit=2', { key: s.keys.acme })).json();
    expect(first.data.map((c: any) => c.policy_number)).toEqual(['POL-2026001', 'POL-2026002']);
    expect(first.next_after).toBe('POL-2026002');
    const next = (await call(s.app, 'GET', '/v1/collections?period_month=2026-11&limit=2&after=POL-2026002', { key: s.keys.acme })).json();
    expect(next.data.map((c: any) => c.policy_number)).toEqual(['POL-2026003', 'POL-2026004']);
    const none = await call(s.app, 'GET', '/v1/collections?period_month=2026-12', { key: s.keys.acme });
    expect(none.json()).toEqual({ data: [], next_after: null });
  });

  it('GET /v1/collections/{id} and /explain', async () => {
    const list = await call(s.app, 'GET', '/v1/collections?period_month=2026-11&policy=POL-2026021', { key: s.keys.acme });
    const one = await call(s.app, 'GET', `/v1/collections/${collectionId}`, { key: s.keys.acme });
    expect(one.status).toBe(200);
    expect(one.json()).toEqual(list.json().data[0]);

    const explain = await call(s.app, 'GET', `/v1/collections/${collectionId}/explain`, { key: s.keys.acme });
    expect(explain.status).toBe(200);
    const body = explain.json();
    expect(body.collection).toEqual(one.json());
    expect(body.strategy).toBe('smart');
    expect(body.income).toMatchObject({ pattern: 'monthly_fixed_day', typical_amount: 9800, next_income_dates: ['2026-12-24', '2027-01-25'] });
    expect(body.plan).toEqual([]);
    expect(body.attempts.map((a: any) => [a.date, a.amount, a.outcome, a.failure_reason])).toEqual([
      ['2026-11-02', 1708.74, 'SUCCESS', null],
    ]);
    expect(body.attempts[0].why).toBe('smart: the balance already covers the amount due, with the usual outgoings until the debit; expected balance 4380.00');
    expect(body.summary).toBe('PAID_FULL: collected 1708.74 of 1708.74 in 1 attempt (period closed).');
  });

  it('GET /v1/executions/{id}: the run has completed, with its counts', async () => {
    const run = await call(s.app, 'GET', `/v1/executions/${executionId}`, { key: s.keys.acme });
    expect(run.status).toBe(200);
    expect(run.json()).toEqual({
      execution_id: executionId,
      period_month: '2026-11',
      status: 'completed',
      strategy: 'smart',
      policies_queued: 520,
      created_at: '2026-10-31T09:30:00.000Z',
      completed_at: '2026-11-30T09:30:00.000Z',
      counts: { PAID_FULL: 485, PAID_PARTIAL: 18, UNPAID: 17, CANCELLED: 0 },
    });
    expect(await s.backend.store.db.selectFrom('executions').select('id').where('client_id', '=', acmeClientId).execute()).toHaveLength(1);
  });

  it('GET /v1/reports/attempts: the bytes LocalBackend.exportAttempts gives for the same store', async () => {
    const local = s.backend.forClient(acmeClientId);
    const csv = await call(s.app, 'GET', '/v1/reports/attempts?period_month=2026-11', { key: s.keys.acme });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="attempts-2026-11.csv"');
    const expected = await text(await local.exportAttempts('2026-11', 'csv'));
    expect(csv.text).toBe(expected);
    const lines = csv.text.split('\n');
    expect(lines.length).toBe(1 + 543 + 1);
    expect(lines[0]).toBe('collection_id,policy_number,customer_id,date,amount,outcome,failure_reason');
    expect(lines.filter((l) => l.includes(',POL-2026021,'))).toEqual([
      `${collectionId},POL-2026021,C100011,2026-11-02,1708.74,SUCCESS,`,
    ]);
    const json = await call(s.app, 'GET', '/v1/reports/attempts?period_month=2026-11&format=json', { key: s.keys.acme });
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.text).toBe(await text(await local.exportAttempts('2026-11', 'json')));
    expect(json.json().attempts).toHaveLength(543);
  });

  it('GET /v1/bank/accounts/C100011: the imported account after the run, with premia\'s debits', async () => {
    const res = await call(s.app, 'GET', '/v1/bank/accounts/C100011', { key: s.keys.operator });
    expect(res.status).toBe(200);
    const view = res.json();
    expect(view).toMatchObject({ customer_id: 'C100011', source: 'imported', as_of: '2026-11-30', balance: 5466.26, state: 'open' });
    expect(view.income).toEqual({
      pattern: 'monthly_fixed_day',
      confidence: 0.75,
      typical_amount: 9800,
      next_income_dates: ['2026-12-24', '2027-01-25'],
      description: 'monthly salary on a fixed day (day 25, moved to the business day before on weekends and holidays), typically 9800.00; confidence 0.75',
    });
    expect(view.recent_transactions.filter((t: any) => t.description.startsWith('PREMIA DEBIT POL-2026021'))).toEqual([
      { date: '2026-11-02', amount: -1708.74, description: 'PREMIA DEBIT POL-2026021', outcome: 'posted', balance: 2671.26 },
    ]);
  });

  it("isolates clients: another client's collection and execution ids answer 404, exactly as missing ones", async () => {
    const missing = '0b5c2c4e-4d1f-8a6b-9c2d-1e2f3a4b5c6d';
    for (const [url, what, id] of [
      [`/v1/collections/${collectionId}`, 'Collection', collectionId],
      [`/v1/collections/${collectionId}/explain`, 'Collection', collectionId],
      [`/v1/executions/${executionId}`, 'Execution', executionId],
      [`/v1/collections/${missing}`, 'Collection', missing],
      [`/v1/executions/${missing}`, 'Execution', missing],
    ] as const) {
      const res = await call(s.app, 'GET', url, { key: s.keys.other });
      expect(res.status, url).toBe(404);
      expect(res.json().error).toMatchObject({ code: 'NOT_FOUND', message: `${what} '${id}' was not found. Check the ${what === 'Execution' ? 'id' : 'id or number'} and try again.` });
    }
    // Their lists and reports hold none of it; their policy filter does not see acme's policy.
    expect((await call(s.app, 'GET', '/v1/collections?period_month=2026-11', { key: s.keys.other })).json()).toEqual({ data: [], next_after: null });
    expect((await call(s.app, 'GET', '/v1/collections?period_month=2026-11&policy=POL-2026021', { key: s.keys.other })).status).toBe(404);
    const attempts = await call(s.app, 'GET', '/v1/reports/attempts?period_month=2026-11', { key: s.keys.other });
    expect(attempts.text).toBe('collection_id,policy_number,customer_id,date,amount,outcome,failure_reason\n');
    // Queuing acme's policy by number or id: unknown to them, nothing queued.
    const policy = (await call(s.app, 'GET', '/v1/policies/POL-2026021', { key: s.keys.acme })).json();
    const execute = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.other, body: { period_month: '2026-12', policy_ids: ['POL-2026021', policy.id] } });
    expect(execute.status).toBe(400);
    expect(execute.json().error.details.map((d: any) => d.code)).toEqual(['UNKNOWN_POLICY', 'UNKNOWN_POLICY']);
  });
});

describe('an execute naming many unknown policies', () => {
  it('60,000 unknown ids (a 660 KB body): 400 in kilobytes, 10 named in the message, 100 in details', async () => {
    const ids = Array.from({ length: 60_000 }, (_, i) => `NO-${String(i).padStart(5, '0')}`);
    const res = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.other, body: { period_month: '2026-12', policy_ids: ids } });
    expect(res.status).toBe(400);
    const error = res.json().error;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe(
      `Nothing was queued: unknown policies: ${ids.slice(0, 10).join(', ')} and 59,990 more. ` +
        'The details list the first 100 of the 60,000 policies refused; 59,900 more are not listed.',
    );
    expect(error.details).toEqual(ids.slice(0, 100).map((ref) => ({ field: 'policy_ids', code: 'UNKNOWN_POLICY', message: `no policy '${ref}'`, ref })));
    expect(res.text.length).toBeLessThan(16_384);
  });
});

describe('an execute naming more policies than one SQL statement may bind', () => {
  it('33,000 policy numbers (over SQLite\'s 32,766 parameters): 202, each queued once, in policy_number order; again: 0 queued, the same run', async () => {
    const count = 33_000;
    const numbers = Array.from({ length: count }, (_, i) => `MANY-${String(i).padStart(5, '0')}`);
    const csv = ['customer_id,external_customer_ref,policy_number,product_code,collection_amount', ...numbers.map((n, i) => `CM${i},EM${i},${n},LIFE,10.00`)].join('\n');
    const imported = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.other, ...multipart('file', 'many.csv', csv) });
    expect(imported.json()).toEqual({ imported: count, failed: 0, errors: [] });
    // Named in reverse: the collections are still inserted in policy_number order.
    const body = { period_month: '2026-12', policy_ids: [...numbers].reverse() };
    const first = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.other, body });
    expect(first.status, first.text).toBe(202);
    expect(first.json()).toMatchObject({ status: 'processing', policies_queued: count });
    const otherId = (await s.backend.admin.keys.authenticate(s.keys.other)).clientId;
    const rows = await s.backend.store.db
      .selectFrom('collections')
      .select(['policy_number', 'execution_id'])
      .where('client_id', '=', otherId)
      .where('period_month', '=', '2026-12')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.policy_number)).toEqual(numbers);
    const again = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.other, body });
    expect(again.status, again.text).toBe(202);
    expect(again.json()).toEqual({ execution_id: first.json().execution_id, status: 'processing', policies_queued: 0 });
  });
});
