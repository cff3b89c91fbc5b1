/**
 * The preview endpoints behind the CLI's confirmations and `clock advance --dry-run`: each says
 * what its write would do, for the key's client only, and changes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setMeta } from '../../src/store/repos/meta.js';
import { ACME_001, seedPeriod } from './fixture-period.js';
import { call, startServer, type TestServer } from './helpers.js';

let s: TestServer;
beforeEach(async () => {
  s = await startServer();
  await seedPeriod(s.backend.store);
});
afterEach(async () => s.close());

const { created_at: _created, ...ACME_001_PREVIEW } = ACME_001;

describe('GET /v1/settlements/preview', () => {
  it('is the statement POST /settlements then makes, for the key’s client; nothing is stored', async () => {
    await setMeta(s.backend.store.db, 'clock_date', '2026-12-02');
    const preview = await call(s.app, 'GET', '/v1/settlements/preview?period_month=2026-11', { key: s.keys.acme });
    expect(preview.status).toBe(200);
    expect(preview.json()).toEqual(ACME_001_PREVIEW);
    const other = await call(s.app, 'GET', '/v1/settlements/preview?period_month=2026-11', { key: s.keys.other });
    expect(other.json()).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', total_collections: 7.77, collections_count: 1 });
    expect((await call(s.app, 'GET', '/v1/settlements', { key: s.keys.acme })).json().data).toEqual([]);
    const made = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, body: { period_month: '2026-11' } });
    expect(made.status).toBe(201);
    const { id: _id, ...rest } = made.json();
    expect(rest).toEqual(ACME_001);
  });

  it('refuses as POST /settlements refuses (an open period: 409), and needs its period_month (400)', async () => {
    await setMeta(s.backend.store.db, 'clock_date', '2026-11-20');
    const open = await call(s.app, 'GET', '/v1/settlements/preview?period_month=2026-11', { key: s.keys.acme });
    expect([open.status, open.json().error.code]).toEqual([409, 'PERIOD_OPEN']);
    const missing = await call(s.app, 'GET', '/v1/settlements/preview', { key: s.keys.acme });
    expect([missing.status, missing.json().error.details[0].field]).toEqual([400, 'period_month']);
  });
});

describe('GET /v1/clock/preview', () => {
  it('takes the advance as query parameters and changes nothing', async () => {
    await setMeta(s.backend.store.db, 'clock_date', '2026-11-20');
    // The clock is an operator's: a client key is refused (roles.test.ts), an operator key
    // sees its own client's collections.
    expect((await call(s.app, 'GET', '/v1/clock/preview?days=1', { key: s.keys.acme })).status).toBe(403);
    const r = await call(s.app, 'GET', '/v1/clock/preview?to_month_end=true', { key: s.keys.operator });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({
      from: '2026-11-20',
      to: '2026-11-30',
      days: 10,
      locked: false,
      // Acme's seeded 2026-11: POL-0002 partly paid (150.00 owed), POL-0003 unpaid (99.99).
      periods_closed: [{ period_month: '2026-11', last_day: '2026-11-30', collections: 5, open: 2, nothing_collected: 1, amount_remaining: 249.99, policies_not_queued: 0, other_clients_not_run: [] }],
      planned_debits: { count: 0, amount: 0, first_date: null, last_date: null },
    });
    expect((await call(s.app, 'GET', '/v1/clock', { key: s.keys.acme })).json().date).toBe('2026-11-20');
    const otherOperator = (await s.backend.admin.keys.create('Other Insure', 'operator')).key;
    const other = await call(s.app, 'GET', '/v1/clock/preview?days=10', { key: otherOperator });
    expect(other.json().periods_closed).toEqual([{ period_month: '2026-11', last_day: '2026-11-30', collections: 1, open: 0, nothing_collected: 0, amount_remaining: 0, policies_not_queued: 0, other_clients_not_run: [] }]);
  });

  it('answers 400 for what POST /clock/advance refuses, and for an unknown parameter', async () => {
    for (const q of ['', '?days=3&to=2026-12-01', '?days=-1', '?to_month_end=false', '?weeks=2']) {
      const r = await call(s.app, 'GET', `/v1/clock/preview${q}`, { key: s.keys.operator });
      expect(r.status, q).toBe(400);
      expect(r.json().error.code, q).toBe('VALIDATION_ERROR');
    }
  });
});

describe('GET /v1/policies/{id}/cancel-preview', () => {
  it('lists the collections of open periods a cancellation would cancel; another client’s policy is not found', async () => {
    await setMeta(s.backend.store.db, 'clock_date', '2026-11-20');
    const r = await call(s.app, 'GET', '/v1/policies/POL-0002/cancel-preview', { key: s.keys.acme });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({
      policy_number: 'POL-0002',
      customer_id: 'C100002',
      status: 'active',
      collection_amount: 200,
      open_collections: [{ period_month: '2026-11', amount_due: 200, amount_collected: 50, status: 'PAID_PARTIAL' }],
      planned_debits: { count: 0, amount: 0, first_date: null, last_date: null },
    });
    expect((await call(s.app, 'GET', '/v1/policies/POL-0002/cancel-preview', { key: s.keys.other })).status).toBe(404);
    expect((await call(s.app, 'GET', '/v1/policies/POL-0002', { key: s.keys.acme })).json().status).toBe('active');
  });
});
