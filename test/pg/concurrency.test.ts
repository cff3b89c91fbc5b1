/**
 * Two premia on one PostgreSQL database (two backends, each with its own connection pool, as two
 * processes would have): what must happen once happens once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { FIXED_NOW, fixtureMonth, readDownload } from '../helpers/local.js';
import { freshDatabase, noPg, pg } from './db.js';

const opened: LocalBackend[] = [];
afterAll(async () => {
  for (const b of opened) await b.close();
});

async function two(url: string): Promise<[LocalBackend, LocalBackend]> {
  const a = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
  const b = await openLocalBackend({ path: url, seed: 1, now: FIXED_NOW });
  opened.push(a, b);
  return [a, b];
}

describe.skipIf(noPg)(`two premia on one PostgreSQL database${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  it('advancing the clock from both at once: each day runs once, the same outcome as one advance', async () => {
    const url = await freshDatabase('race_clock');
    const [a, b] = await two(url);
    await fixtureMonth(a, { advance: false });
    const waits: string[] = [];
    const [ra, rb] = await Promise.all([
      a.advanceClock({ to: '2026-11-30' }, { onWait: (h) => waits.push(`a waited for ${h.from}..${h.to}`) }),
      b.advanceClock({ to: '2026-11-30' }, { onWait: (h) => waits.push(`b waited for ${h.from}..${h.to}`) }),
    ]);
    // One lived the 30 days; the other (which waited for it, or came after) found nothing left to do.
    expect([ra.days.length, rb.days.length].sort((x, y) => x - y)).toEqual([0, 30]);
    expect(waits.length).toBeLessThanOrEqual(1);
    expect((await a.getClock()).date).toBe('2026-11-30');

    // The reference: the same month by one advance on a store of its own.
    const solo = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    opened.push(solo);
    await fixtureMonth(solo);
    const want = await readDownload(await solo.exportAttempts('2026-11', 'csv'));
    expect(want.trimEnd().split('\n').length).toBeGreaterThan(100);
    expect(await readDownload(await b.exportAttempts('2026-11', 'csv'))).toBe(want);
  });

  it('settling the same period from both at once: exactly one statement, the other refused', async () => {
    const url = await freshDatabase('race_settle');
    const [a, b] = await two(url);
    await fixtureMonth(a);
    await a.advanceClock({ to: '2026-12-02' });
    const outcomes = await Promise.allSettled([a.createSettlement('2026-11'), b.createSettlement('2026-11'), a.createSettlement('2026-11'), b.createSettlement('2026-11')]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost.map((o) => (o.reason as { code: string }).code)).toEqual(['SETTLEMENT_EXISTS', 'SETTLEMENT_EXISTS', 'SETTLEMENT_EXISTS']);
    const list = await b.listSettlements({});
    expect(list.data.map((s) => s.settlement_number)).toEqual(['SETTLE-2026-11-001']);
  });
});
