/**
 * Before the first collections run, the clock, the bank's seed and the calendar are refused while
 * a clock advance runs (it would live the rest of its days on another clock or seed). On
 * PostgreSQL "an advance runs" is its lock, held in any process on any machine and lost by a
 * holder that dies: judged by the meta row as on SQLite (a row written once, never renewed, left
 * behind by a kill -9), an advance in the same process (`premia serve` with its writes on the
 * request thread) was taken for one gone, and a clock set went through under it and was then
 * lost to the advance's next day; and a dead holder on another machine was "running" for ten
 * minutes.
 *
 * The advance is held through the engine's own claim (what `clock advance` holds for its whole
 * run) until the test lets it go: nothing here depends on timing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { openPgStore } from '../../src/store/pg-store.js';
import { pgEngineStore } from '../../src/store/repos/engine-pg.js';
import { FIXED_NOW } from '../helpers/local.js';
import { freshDatabase, noPg, onDatabase, pg } from './db.js';

const closing: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const c of closing.reverse()) await c.close().catch(() => undefined);
});

async function backend(url: string): Promise<LocalBackend> {
  const b = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
  closing.push(b);
  return b;
}

const error = (p: Promise<unknown>) => p.then(() => null, (e: { code?: string; message?: string }) => `${e.code}: ${e.message}`);

describe.skipIf(noPg)(`changes refused while a clock advance runs, on PostgreSQL${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  it('an advance of this very process: the clock, the seed and the calendar are refused until it ends', async () => {
    const url = await freshDatabase('refuse_same');
    const b = await backend(url);
    await b.setClock('2026-10-31');
    const store = await openPgStore({ url, create: false, busyTimeoutMs: 30_000 });
    closing.push(store);
    const engine = pgEngineStore(store);
    const claim = await engine.claimAdvance(() => '2026-11-30');
    let released = false;
    try {
      const running = `A clock advance is running on this store (from 2026-10-31 to 2026-11-30, process ${process.pid}), so`;
      const after = "cannot change now: it would change under that advance's days. Nothing changed; run this again once the advance has finished ('premia clock' shows where it stopped).";
      expect(await error(b.setClock('2026-11-05'))).toBe(`CONFLICT: ${running} the clock ${after}`);
      expect(await error(b.seedBank(9))).toBe(`CONFLICT: ${running} the bank's seed ${after}`);
      expect(await error(b.admin.settings.set('calendar', 'none'))).toBe(`CONFLICT: ${running} the calendar ${after}`);
      expect(await onDatabase(url, "select key, value from meta where key in ('clock_date', 'seed', 'calendar') order by key")).toEqual([
        { key: 'clock_date', value: '2026-10-31' },
        { key: 'seed', value: '1' },
      ]);
      await engine.releaseAdvance(claim);
      released = true;
    } finally {
      if (!released) await engine.releaseAdvance(claim).catch(() => undefined);
    }
    // The advance over: each goes through.
    expect((await b.setClock('2026-11-05')).date).toBe('2026-11-05');
    expect((await b.seedBank(9)).seed).toBe(9);
    expect((await b.admin.settings.set('calendar', 'none')).setting.value).toBe('none');
  });

  it("the row of an advance killed on another machine, its lock gone with it: the clock is set at once", async () => {
    const url = await freshDatabase('refuse_stale');
    const b = await backend(url);
    await b.setClock('2026-10-31');
    const lease = { token: 'f'.repeat(24), host: 'another-machine', pid: 4242, from: '2026-10-31', to: '2026-11-30', started_at: Date.now(), renewed_at: Date.now() };
    await onDatabase(url, "insert into meta (key, value) values ('advance_lease', $1)", [JSON.stringify(lease)]);
    expect(await b.setClock('2026-11-05')).toEqual({ date: '2026-11-05', locked: false, seed: 1 });
  });
});
