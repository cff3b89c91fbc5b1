/**
 * A write of `premia serve` that finds the store's disk full (SQLite's SQLITE_FULL) is answered
 * 503 STORE_UNAVAILABLE saying that nothing of it was kept and that the operator must make room,
 * not 500 INTERNAL "failed unexpectedly"; the operator's log has the store's own words. The
 * disk fills for real, as in test/cli/disk-full.test.ts: the store's connection is capped at the
 * pages it holds (PRAGMA max_page_count), so the next page SQLite needs is refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../src/store/store.js';
import { FIXTURES } from '../helpers/cli.js';
import { call, multipart, startServer, type TestServer } from './helpers.js';

let s: TestServer;
let raw: SqliteStore['raw'];

beforeAll(async () => {
  // The write runs on this thread, on the connection capped below (a job thread has its own).
  s = await startServer({ offload: false });
  raw = (s.backend.store as SqliteStore).raw;
  const policies = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, ...multipart('file', 'policies.csv', readFileSync(join(FIXTURES, 'policies.csv'))) });
  expect(policies.json()).toEqual({ imported: 520, failed: 0, errors: [] });
  const clock = await call(s.app, 'PUT', '/v1/clock', { key: s.keys.operator, body: { date: '2026-10-31' } });
  expect(clock.status).toBe(200);
});
afterAll(async () => {
  await s.close();
});

const MESSAGE =
  "The service's store has no room left on its disk (a problem of the service's set-up, not of this request): what this request was writing was rolled back, " +
  'and the store is as its last commit left it (an advance keeps the days it lived: GET /clock shows the date reached). ' +
  "Try again once the operator has freed some space (the operator's log has the details under this request id).";

describe('a write on a full disk', () => {
  it('POST /v1/collections/execute: 503 STORE_UNAVAILABLE saying so, nothing queued; with room again it queues the month', async () => {
    const limit = raw.pragma('max_page_count', { simple: true }) as number;
    raw.pragma(`max_page_count = ${raw.pragma('page_count', { simple: true }) as number}`);
    let full;
    try {
      full = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, body: { period_month: '2026-11' } });
    } finally {
      raw.pragma(`max_page_count = ${limit}`);
    }
    expect(full.status).toBe(503);
    expect(full.json()).toEqual({ error: { code: 'STORE_UNAVAILABLE', message: MESSAGE, request_id: full.headers['x-request-id'] } });
    // No Retry-After: a busy store gets none either, and room comes back when the operator makes it.
    expect(full.headers['retry-after']).toBeUndefined();
    // The operator's log has the store's words (which disk, what to do) under the request id.
    const logged = s.logs.filter((l) => l.includes(` error ${String(full.headers['x-request-id'])}: `));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(
      "PremiaError: A disk premia writes to is full (SQLite: database or disk is full): the store's, or that of the temporary directory (TMPDIR) its large sorts use. " +
        'What was being written was rolled back: the store is as its last commit left it. Free some space there, then run the command again.',
    );
    expect(raw.prepare('select count(*) from executions').pluck().get()).toBe(0);
    expect(raw.prepare('select count(*) from collections').pluck().get()).toBe(0);

    const again = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, body: { period_month: '2026-11' } });
    expect(again.status).toBe(202);
    expect(again.json().policies_queued).toBe(520);
  });
});
