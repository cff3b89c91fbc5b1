/**
 * One client's work must not disturb another's on a shared `premia serve` (audit of the
 * isolation between clients). Each case is an attack or a collision with client A's key while
 * client B (or the store) is busy or holds data of its own.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../src/store/store.js';
import { setClock } from '../helpers/seed-collections.js';
import { PERIOD, seedPeriod } from './fixture-period.js';
import { call, startServer, type TestServer } from './helpers.js';

let s: TestServer;

beforeAll(async () => {
  s = await startServer();
  await seedPeriod(s.backend.store);
  await setClock(s.backend.store, '2026-12-02');
});
afterAll(async () => {
  await s.close();
});

describe('a settlement preview while another connection writes', () => {
  it('is answered from a read: it never waits for the write lock that another client\'s import or advance holds', async () => {
    // The server's own connection gives up on a held lock quickly (its default is 30 s, during
    // which the thread that answers every client's requests would be stuck in SQLite's busy wait).
    const raw = (s.backend.store as SqliteStore).raw;
    const before = raw.pragma('busy_timeout', { simple: true }) as number;
    raw.pragma('busy_timeout = 50');
    // Another writer (the job thread running B's import, a CLI beside the server) holds the lock.
    const writer = new Database(s.dbPath, { timeout: 0 });
    writer.exec('begin immediate');
    try {
      const preview = await call(s.app, 'GET', `/v1/settlements/preview?period_month=${PERIOD}`, { key: s.keys.acme });
      expect(preview.status).toBe(200);
      expect(preview.json()).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', total_collections: 199.51, net_amount: 134.12, status: 'pending' });
    } finally {
      writer.exec('rollback');
      writer.close();
      raw.pragma(`busy_timeout = ${before}`);
    }
    // Nothing was stored by the preview: the statement is made by the POST, numbered 001.
    const made = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, body: { period_month: PERIOD } });
    expect(made.status).toBe(201);
    expect(made.json().settlement_number).toBe('SETTLE-2026-11-001');
  });
});
