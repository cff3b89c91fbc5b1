import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setMeta } from '../../src/store/repos/meta.js';
import { call, multipart, startServer, type TestServer } from './helpers.js';

let s: TestServer;
afterEach(async () => {
  await s.close();
});

describe('simulation endpoints (clock and bank)', () => {
  beforeEach(async () => {
    s = await startServer();
  });

  it('GET /v1/clock shows the virtual clock', async () => {
    const res = await call(s.app, 'GET', '/v1/clock', { key: s.keys.acme });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ date: '2026-11-21', locked: false, seed: 1 });
  });

  it('PUT /v1/clock sets it, reads the store on every request, and refuses once locked', async () => {
    const set = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.acme, body: { date: '2026-11-01' } });
    expect(set.status).toBe(200);
    expect(set.json()).toEqual({ date: '2026-11-01', locked: false, seed: 1 });
    // A CLI beside the server moves the clock: the server sees it at once.
    await setMeta(s.backend.store.db, 'clock_date', '2026-11-05');
    expect((await call(s.app, 'GET', '/v1/clock', { key: s.keys.other })).json().date).toBe('2026-11-05');
    await setMeta(s.backend.store.db, 'clock_locked', '1');
    const locked = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.acme, body: { date: '2026-11-02' } });
    expect(locked.status).toBe(409);
    expect(locked.json().error.code).toBe('CLOCK_LOCKED');
  });

  it('PUT /v1/clock answers 400 for a bad date or an unknown field', async () => {
    const bad = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.acme, body: { date: '2026-02-30' } });
    expect(bad.status).toBe(400);
    expect(bad.json().error.details).toEqual([
      { field: 'date', code: 'INVALID_FORMAT', message: 'date must be a date written YYYY-MM-DD, like 2026-11-30; got "2026-02-30"' },
    ]);
    const extra = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.acme, body: { date: '2026-11-02', time: '10:00' } });
    expect(extra.status).toBe(400);
    expect(extra.json().error.details[0]).toMatchObject({ field: 'time', code: 'UNKNOWN_FIELD' });
  });

  it('POST /v1/clock/advance and /v1/bank/seed validate now and answer 501 until the engine is merged', async () => {
    for (const body of [{ days: 3 }, { to: '2026-11-30' }, { to_month_end: true }]) {
      const res = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.acme, body });
      expect(res.status, JSON.stringify(body)).toBe(501);
    }
    for (const [body, field, code] of [
      [{}, 'body', 'REQUIRED'],
      [{ days: 1, to: '2026-11-30' }, 'body', 'CONFLICTING_FIELDS'],
      [{ days: 0 }, 'days', 'INVALID_VALUE'],
      [{ days: 1.5 }, 'days', 'INVALID_VALUE'],
      [{ to_month_end: false }, 'to_month_end', 'INVALID_VALUE'],
    ] as const) {
      const res = await call(s.app, 'POST', '/v1/clock/advance', { key: s.keys.acme, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json().error.details[0]).toMatchObject({ field, code });
    }
    expect((await call(s.app, 'POST', '/v1/bank/seed', { key: s.keys.acme, body: { seed: 7 } })).status).toBe(501);
    const seed = await call(s.app, 'POST', '/v1/bank/seed', { key: s.keys.acme, body: { seed: '7' } });
    expect(seed.status).toBe(400);
    expect(seed.json().error.details[0]).toMatchObject({ field: 'seed', code: 'INVALID_TYPE' });
  });

  it('POST /v1/bank/import takes a multipart file and GET /v1/bank/accounts/{id} answers 501 until the bank is merged', async () => {
    const csv = readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'policies.csv'));
    const upload = await call(s.app, 'POST', '/v1/bank/import', { key: s.keys.acme, ...multipart('file', 'bank.csv', csv) });
    expect(upload.status).toBe(501);
    const notForm = await call(s.app, 'POST', '/v1/bank/import', { key: s.keys.acme, body: {} });
    expect(notForm.status).toBe(415);
    const account = await call(s.app, 'GET', '/v1/bank/accounts/C100001', { key: s.keys.acme });
    expect(account.status).toBe(501);
    expect((await call(s.app, 'GET', '/v1/bank/accounts/C100001', { key: null })).status).toBe(401);
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
