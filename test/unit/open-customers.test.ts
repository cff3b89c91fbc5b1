/**
 * openCustomers (store/repos/engine.ts): the customers the engine's helper finds for itself must
 * be the engine's load order exactly (else the engine drops the helper's answer and opens every
 * account itself, slower but right, so no month would show the difference).
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openCustomers } from '../../src/store/repos/engine.js';

function collections(rows: Array<[id: number, client: number, customer: string, period: string]>): Database.Database {
  const db = new Database(':memory:');
  db.exec('create table clients (id integer primary key); create table collections (id integer primary key, client_id integer, customer_id text, period_month text)');
  db.exec('insert into clients (id) values (1), (2)');
  const insert = db.prepare('insert into collections values (?, ?, ?, ?)');
  db.transaction(() => {
    for (const r of rows) insert.run(...r);
  })();
  return db;
}

describe('the open collections’ customers, each once, in the order of their first collection', () => {
  it('skips closed periods and unknown clients; a customer is known per client', () => {
    const db = collections([
      [1, 1, 'A', '2026-10'],
      [2, 1, 'B', '2026-11'],
      [3, 2, 'A', '2026-11'],
      [4, 1, 'A', '2026-11'],
      [5, 1, 'B', '2026-11'],
      [6, 9, 'X', '2026-11'],
      [7, 2, 'A', '2026-12'],
      [8, 1, 'C', '2026-12'],
    ]);
    const c = openCustomers(db, '2026-11');
    expect([c.clientId, c.customerId]).toEqual([
      [1, 2, 1, 1],
      ['B', 'A', 'A', 'C'],
    ]);
    expect(openCustomers(db, '2027-01').customerId).toEqual([]);
  });

  it('across chunks of 65,536 rows, as a group by ordered by the first id gives them', () => {
    const rows: Array<[number, number, string, string]> = [];
    for (let id = 1; id <= 150_000; id++) rows.push([id, 1 + (id % 2), `C${(id * 7919) % 90_001}`, id % 11 === 0 ? '2026-10' : '2026-11']);
    const db = collections(rows);
    const grouped = db
      .prepare(
        `select client_id, customer_id from collections where period_month >= '2026-11' and client_id in (select id from clients)
         group by client_id, customer_id order by min(id)`,
      )
      .raw(true)
      .all() as Array<[number, string]>;
    const c = openCustomers(db, '2026-11');
    expect(grouped.length).toBeGreaterThan(80_000);
    expect(c.clientId).toEqual(grouped.map((r) => r[0]));
    expect(c.customerId).toEqual(grouped.map((r) => r[1]));
  });
});
