/**
 * Local `--idempotency-key`: a write done in one transaction stores its answer in that
 * transaction. Stored after the commit, a process killed between the two (SIGKILL, SIGTERM, a
 * power cut) left the work done and the key unanswered, and the cron job's rerun with the key,
 * taking over the key of the dead process, did the work again: `settlements create` was refused
 * SETTLEMENT_EXISTS (exit 6) for the statement its first run made, `policies create`
 * DUPLICATE_POLICY. The kill is modelled exactly: nothing after the work's commit reaches the
 * store, and the claim is left to a process that is gone.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Admin, Backend } from '../../src/backend/types.js';
import { withIdempotency } from '../../src/cli/local-idempotency.js';
import { asCents } from '../../src/domain/money.js';
import { tempDir } from '../helpers/cli.js';
import { FIXED_NOW, fixtureMonth, localBackend } from '../helpers/local.js';

const tmp = tempDir('premia-idem-answer-');
const path = join(tmp.dir, 'store.db');
const LOCAL_CLIENT = 1;

beforeAll(async () => {
  const b = await localBackend({ path });
  try {
    await fixtureMonth(b); // November lived to its last day: closed, ready for its statement
  } finally {
    await b.close();
  }
});
afterAll(() => tmp.cleanup());

/** Run `write` under `key` in a process that is killed once its work has committed, then rerun it under the same key. */
async function killedThenRerun<T>(
  key: string,
  write: (b: Backend) => Promise<T>,
  stored: (b: Backend) => Promise<T>,
): Promise<{ rerun: T; stored: T; count: (sql: string) => number }> {
  const first = await localBackend({ path });
  try {
    const own = first.admin.idempotency;
    // Killed the moment the work has committed: nothing after it reaches the store.
    const records: Admin['idempotency'] = {
      ...own,
      answerInWork: async (...args) => {
        await own.answerInWork(...args);
        throw new Error('killed');
      },
      complete: () => Promise.reject(new Error('killed')),
      release: () => Promise.resolve(false),
    };
    await expect(write(withIdempotency(first, key, records, LOCAL_CLIENT, FIXED_NOW))).rejects.toThrow('killed');
  } finally {
    await first.close();
  }
  const gone = spawnSync(process.execPath, ['-e', '']).pid; // exited and reaped
  const db = new Database(path);
  try {
    db.prepare("update idempotency_keys set owner_pid = ?, owner_token = 'gone'").run(gone);
  } finally {
    db.close();
  }
  const again = await localBackend({ path });
  try {
    const rerun = await write(withIdempotency(again, key, again.admin.idempotency, LOCAL_CLIENT, FIXED_NOW));
    const count = (sql: string) => {
      const read = new Database(path, { readonly: true });
      try {
        return (read.prepare(sql).get() as { n: number }).n;
      } finally {
        read.close();
      }
    };
    return { rerun, stored: await stored(again), count };
  } finally {
    await again.close();
  }
}

describe('a keyed write killed after its commit, rerun with the key', () => {
  it('settlements create: the rerun answers with the statement the first run made, and there is one', async () => {
    const { rerun, stored, count } = await killedThenRerun(
      'nightly-settle',
      (b) => b.createSettlement('2026-11'),
      (b) => b.getSettlement('SETTLE-2026-11-001'),
    );
    expect(rerun).toEqual(stored);
    expect(rerun).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', period_month: '2026-11', status: 'pending' });
    expect(count("select count(*) as n from settlements where period_month = '2026-11'")).toBe(1);
    expect(count("select count(*) as n from idempotency_keys where status = 201")).toBe(1);
  });

  it('policies create: the rerun answers with the policy the first run made', async () => {
    const input = { customer_id: 'C900001', external_customer_ref: 'X-1', policy_number: 'POL-KILLED-1', product_code: 'LIFE', collection_amount: asCents(12_345) };
    const { rerun, stored, count } = await killedThenRerun(
      'nightly-policy',
      (b) => b.createPolicy(input),
      async (b) => {
        const { amount_history: _a, status_history: _s, ...policy } = await b.getPolicy('POL-KILLED-1');
        return policy;
      },
    );
    expect(rerun).toEqual(stored);
    expect(rerun).toMatchObject({ policy_number: 'POL-KILLED-1', collection_amount: 12_345, status: 'active' });
    expect(count("select count(*) as n from policies where policy_number = 'POL-KILLED-1'")).toBe(1);
  });
});
