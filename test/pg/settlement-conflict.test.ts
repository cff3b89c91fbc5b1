/**
 * A statement made at the same time as another, by a write that skipped the store's writer lock,
 * fails on one of the settlements table's unique guards (the id, the number, the seq, the
 * payment reference, one live statement per period). Each is recognised on both stores, and
 * `createSettlement` answers 409 SETTLEMENT_EXISTS when the period now has a live statement, or
 * tries again when the other statement was another period's, never 500 INTERNAL (the race below
 * provokes the second; the first is the path test/pg/concurrency.test.ts and serve.test.ts race).
 */
import { createRequire } from 'node:module';
import type { Client as PgClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { settlementUniqueConflict } from '../../src/store/repos/settlements.js';
import { FIXED_NOW, textUpload } from '../helpers/local.js';
import { freshDatabase, noPg, pg } from './db.js';

const require = createRequire(import.meta.url);

const BOOK =
  'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n' +
  'C1,R1,POL-1,LIFE_STANDARD,10.00\nC2,R2,POL-2,LIFE_STANDARD,20.00\nC3,R3,POL-3,LIFE_STANDARD,30.00\n';

/** A small book, November executed and lived through: ready to settle. */
async function closedMonth(path: string): Promise<LocalBackend> {
  const b = await openLocalBackend({ path, seed: 1, now: FIXED_NOW });
  await b.setClock('2026-10-31');
  expect((await b.importPolicies(textUpload('book.csv', BOOK))).imported).toBe(3);
  await b.executeCollections({ period_month: '2026-11' });
  await b.advanceClock({ to: '2026-12-01' });
  return b;
}

/** What inserting `row` into settlements fails with (null: it did not fail). */
async function insertError(b: LocalBackend, row: Record<string, unknown>): Promise<unknown> {
  return b.store.transaction((trx) => trx.insertInto('settlements').values(row as never).execute()).then(
    () => null,
    (e: unknown) => e,
  );
}

async function guardsOn(b: LocalBackend): Promise<Array<string | null>> {
  const made = await b.createSettlement('2026-11');
  expect(made.status).toBe('pending');
  const row = (await b.store.db.selectFrom('settlements').selectAll().executeTakeFirstOrThrow()) as Record<string, unknown>;
  const { id: _id, ...noId } = row;
  const event = (await b.store.db.selectFrom('settlement_events').selectAll().executeTakeFirstOrThrow()) as Record<string, unknown>;
  const errors = [
    // the same id, nothing else shared (a disputed statement is not live)
    await insertError(b, { ...row, seq: 91, settlement_number: 'X-91', payment_reference: 'REF-91', status: 'disputed' }),
    await insertError(b, { ...noId, seq: 92, settlement_number: 'X-92', status: 'disputed' }), // the payment reference
    await insertError(b, { ...noId, seq: 93, payment_reference: 'REF-93', status: 'disputed' }), // the number
    await insertError(b, { ...noId, settlement_number: 'X-94', payment_reference: 'REF-94', status: 'disputed' }), // the seq
    await insertError(b, { ...noId, seq: 95, settlement_number: 'X-95', payment_reference: 'REF-95' }), // a second live one
    // another table's unique violation is none of these
    await b.store.transaction((trx) => trx.insertInto('settlement_events').values(event as never).execute()).then(() => null, (e: unknown) => e),
  ];
  for (const e of errors) expect(e).not.toBeNull();
  return errors.map(settlementUniqueConflict);
}

describe('the unique guards of settlements, provoked directly', () => {
  it('SQLite: each is recognised by name, another table’s is not', async () => {
    const lite = await closedMonth(':memory:');
    try {
      expect(await guardsOn(lite)).toEqual(['id', 'reference', 'number', 'seq', 'live', null]);
    } finally {
      await lite.close();
    }
  });

  it.skipIf(noPg)(`PostgreSQL: each is recognised by its constraint, another table’s is not${noPg ? ` (skipped: ${pg.reason})` : ''}`, async () => {
    const post = await closedMonth(await freshDatabase('guards'));
    try {
      expect(await guardsOn(post)).toEqual(['id', 'reference', 'number', 'seq', 'live', null]);
    } finally {
      await post.close();
    }
  });
});

describe.skipIf(noPg)(`a statement racing one made without the writer lock (PostgreSQL)${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  let url: string;
  let post: LocalBackend;
  let raw: PgClient;

  beforeAll(async () => {
    url = await freshDatabase('race');
    post = await closedMonth(url);
  });
  afterAll(async () => {
    await raw?.end().catch(() => undefined);
    await post?.close();
  });

  /**
   * Insert a statement in an open transaction of a connection of its own (no writer lock: the
   * write that "missed" it), with the id premia's next statement will take; start
   * createSettlement, wait until it waits on that transaction (its id sync reads the ids from a
   * snapshot without the row), commit, and return what createSettlement gave: its insert then
   * meets the committed row on settlements_pkey.
   */
  async function raceAgainst(period: string, number: string, reference: string): Promise<unknown> {
    const { Client } = require('pg') as typeof import('pg');
    raw = new Client({ connectionString: url });
    await raw.connect();
    await raw.query('begin');
    const clientId = Number((await raw.query<{ client_id: string }>('select client_id from collections limit 1')).rows[0]!.client_id);
    await raw.query(
      `insert into settlements (id, client_id, period_month, seq, settlement_number, total_collections, distribution_fee,
         collections_fee, total_fees, vat, period_net, collections_count, payment_date, payment_reference, status,
         created_at, updated_at, previously_paid)
       values ((select coalesce(max(id), 0) + 1 from settlements), $1, $2, 1, $3, 0, 0, 0, 0, 0, 0, 0, '2026-12-10', $4, 'pending', 0, 0, 0)`,
      [clientId, period, number, reference],
    );
    const outcome = post.createSettlement('2026-11').then(
      (s) => ({ settled: s }),
      (e: unknown) => ({ error: e }),
    );
    // Event-driven: until the statement's insert waits on the uncommitted row (or it finished).
    let finished = false;
    void outcome.then(() => (finished = true));
    for (;;) {
      const waiting = await raw.query<{ n: string }>(
        "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pg_backend_pid() = any(pg_blocking_pids(pid))",
      );
      if (Number(waiting.rows[0]!.n) > 0 || finished) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(finished).toBe(false);
    await raw.query('commit');
    await raw.end();
    return outcome;
  }

  it('another period took the id: tried again and made, not 500', async () => {
    const outcome = (await raceAgainst('2026-10', 'SETTLE-2026-10-RACE', 'RACE-REF-2')) as { settled?: { settlement_number: string; total_collections: number; status: string } };
    expect(outcome.settled).toBeDefined();
    expect(outcome.settled!.status).toBe('pending');
    expect(outcome.settled!.settlement_number).toBe('SETTLE-2026-11-001');
    const all = (await post.listSettlements({})).data.map((s) => [s.settlement_number, s.status]).sort();
    expect(all).toEqual([
      ['SETTLE-2026-10-RACE', 'pending'],
      ['SETTLE-2026-11-001', 'pending'],
    ]);
  });
});
