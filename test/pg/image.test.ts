/**
 * The engine's image (engine/image.ts, issue 13) on PostgreSQL: kept as bytea at an advance's
 * end, read back by the next advance, it opens every account exactly as a replay does, the
 * triggers of the engine's inputs move its version, and the month lived day by day gives the
 * attempts of SQLite's month in one advance.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { asCents } from '../../src/domain/money.js';
import { FIXTURES } from '../helpers/cli.js';
import { accountsOf, loadBoth } from '../helpers/image.js';
import { FIXED_NOW, fileUpload, readDownload } from '../helpers/local.js';
import { freshDatabase, noPg, pg } from './db.js';

async function book(path: string): Promise<LocalBackend> {
  const b = await openLocalBackend({ path, seed: 1, now: FIXED_NOW });
  await b.setClock('2026-10-31');
  await b.importPolicies(fileUpload(join(FIXTURES, 'policies.csv')));
  await b.importBankTransactions(fileUpload(join(FIXTURES, 'bank-transactions.csv')));
  await b.executeCollections({ period_month: '2026-11' });
  return b;
}



describe.skipIf(noPg)(`the engine's image on PostgreSQL${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  const open: LocalBackend[] = [];
  afterAll(async () => {
    for (const b of open) await b.close();
  });

  it('opens every account as a replay does; day by day gives SQLite one-advance month', async () => {
    const post = await book(await freshDatabase('resume'));
    open.push(post);
    expect(post.store.kind).toBe('postgres');
    // Sunday 1 November passes without the working set (engine/load.ts loadCanWait): no image kept.
    await post.advanceClock({ days: 1 });
    expect((await loadBoth(post)).kept.resumed).toBe(0);
    await post.advanceClock({ to: '2026-11-05' });
    for (let d = 0; d < 3; d++) {
      const { kept, replayed } = await loadBoth(post);
      expect(kept.resumed).toBe(400);
      expect(kept.consumed).not.toBe(null);
      expect(replayed.resumed).toBe(0);
      expect(accountsOf(kept)).toEqual(accountsOf(replayed));
      await post.advanceClock({ days: 1 });
    }
    // A policy update moves the engine's inputs version (a statement trigger): the collections
    // are read afresh, the accounts still open from the image.
    await post.updatePolicy('POL-2026001', { collection_amount: asCents(15_000) });
    const changed = await loadBoth(post);
    expect([changed.kept.resumed, changed.kept.consumed]).toEqual([400, null]);
    expect(accountsOf(changed.kept)).toEqual(accountsOf(changed.replayed));
    await post.advanceClock({ to: '2026-11-30' });

    const lite = await book(':memory:');
    open.push(lite);
    await lite.advanceClock({ to: '2026-11-30' });
    const l = await readDownload(await lite.exportAttempts('2026-11', 'csv'));
    const p = await readDownload(await post.exportAttempts('2026-11', 'csv'));
    // The month's exact attempts are pinned by test/engine/determinism.test.ts (they follow the
    // strategies); here both stores must give the same bytes.
    expect(l.trimEnd().split('\n').length).toBeGreaterThan(500);
    expect(p).toBe(l);
  });
});
