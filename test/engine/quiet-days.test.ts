/**
 * Days that change nothing but the clock (issue 13: "a day with little activity should cost
 * little"): an advance whose days are all quiet (no business day, no month's end, no evening
 * planning a debit: day.ts quietThrough), with no run taking debits on the day itself and no
 * image the next load would use, moves the clock without loading the working set (load.ts
 * loadCanWait). The next advance loads it as those days left it: the month is the same, row for
 * row, however it was advanced.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalBackend } from '../../src/backend/local/index.js';
import { ZA_CALENDAR } from '../../src/domain/calendar.js';
import { dayNumber } from '../../src/domain/period.js';
import { quietThrough } from '../../src/engine/day.js';
import { FIXTURES } from '../helpers/cli.js';
import { allCollections, fileUpload, fixtureMonth, localBackend, readDownload } from '../helpers/local.js';

const d = dayNumber;

const open: LocalBackend[] = [];
afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});

async function book(strategy?: string): Promise<LocalBackend> {
  const b = await localBackend();
  open.push(b);
  await fixtureMonth(b, { advance: false, strategy });
  return b;
}

function rawOf(b: LocalBackend) {
  if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
  return b.store.raw;
}

/** The image's date (null: none kept), and how many plan batches the store holds. */
function kept(b: LocalBackend): { image: string | null; plans: number } {
  const raw = rawOf(b);
  const image = (raw.prepare('select as_of from engine_image_head').pluck().get() as string | undefined) ?? null;
  return { image, plans: raw.prepare('select count(*) from plan_batches').pluck().get() as number };
}

async function month(b: LocalBackend) {
  return {
    attempts: await readDownload(await b.exportAttempts('2026-11', 'csv')),
    collections: JSON.stringify(await allCollections(b, '2026-11')),
  };
}

describe('quiet days', () => {
  it('are the days after a date up to another with no business day, no month end and no evening planning one', () => {
    // 2026-11-07 and 08: a weekend; 2026-10-31: a Saturday that ends its month; 2026-12-16: a holiday (a Wednesday).
    expect(quietThrough(ZA_CALENDAR, 0, d('2026-11-06'), d('2026-11-08'))).toBe(true);
    expect(quietThrough(ZA_CALENDAR, 0, d('2026-11-06'), d('2026-11-07'))).toBe(true);
    expect(quietThrough(ZA_CALENDAR, 0, d('2026-11-07'), d('2026-11-08'))).toBe(true);
    expect(quietThrough(ZA_CALENDAR, 0, d('2026-11-06'), d('2026-11-09'))).toBe(false); // the Monday
    expect(quietThrough(ZA_CALENDAR, 0, d('2026-11-06'), d('2026-11-06'))).toBe(false); // no day at all
    expect(quietThrough(ZA_CALENDAR, 0, d('2026-10-30'), d('2026-10-31'))).toBe(false); // October closes
    expect(quietThrough(ZA_CALENDAR, 0, d('2026-10-31'), d('2026-11-01'))).toBe(true);
    expect(quietThrough(ZA_CALENDAR, 0, d('2026-12-15'), d('2026-12-16'))).toBe(true);
    // With a day of lead, the evening of the Saturday plans the Monday: not quiet.
    expect(quietThrough(ZA_CALENDAR, 1, d('2026-11-06'), d('2026-11-07'))).toBe(true); // Friday's evening: for Sunday
    expect(quietThrough(ZA_CALENDAR, 1, d('2026-11-06'), d('2026-11-08'))).toBe(false);
    expect(quietThrough(ZA_CALENDAR, 1, d('2026-11-07'), d('2026-11-08'))).toBe(false);
    // Good Friday 2027-03-26 and Family Day, Monday 29 March: four quiet days, three with a day of lead.
    expect(quietThrough(ZA_CALENDAR, 0, d('2027-03-25'), d('2027-03-29'))).toBe(true);
    expect(quietThrough(ZA_CALENDAR, 1, d('2027-03-25'), d('2027-03-28'))).toBe(true);
    expect(quietThrough(ZA_CALENDAR, 1, d('2027-03-25'), d('2027-03-29'))).toBe(false);
  });

  it('pass without the working set before the month is loaded, and the month is the same row for row', async () => {
    const once = await book();
    await once.advanceClock({ to: '2026-11-30' });
    const expected = await month(once);

    const daily = await book();
    const before = kept(daily);
    expect(before).toEqual({ image: null, plans: 0 });
    // Sunday 1 November: the clock moves, nothing else (no image, no plans: the next load makes them).
    const sunday = await daily.advanceClock({ days: 1 });
    expect(sunday.days).toEqual([{ date: '2026-11-01', attempts: 0, succeeded: 0, failed: 0, collected: 0, closed_period: null, lapsed_policies: 0 }]);
    expect(kept(daily)).toEqual({ image: null, plans: 0 });
    expect((await daily.getClock()).date).toBe('2026-11-01');
    // Monday loads, plans its debits on the Sunday's evening, lives the day and keeps the image.
    await daily.advanceClock({ days: 1 });
    const monday = kept(daily);
    expect(monday.image).toBe('2026-11-02');
    expect(monday.plans).toBeGreaterThan(0);
    for (let k = 2; k < 30; k++) await daily.advanceClock({ days: 1 });
    const lived = await month(daily);
    expect(lived.attempts.split('\n').length).toBeGreaterThan(400);
    expect(lived).toEqual(expected);
  });

  it('are lived when the image is in use, a run takes debits on the day itself, or the day closes a month', async () => {
    // The image as of Friday 6 November: the Saturday is lived, and the image follows the clock.
    const withImage = await book();
    await withImage.advanceClock({ to: '2026-11-06' });
    await withImage.advanceClock({ days: 1 });
    expect(kept(withImage).image).toBe('2026-11-07');

    // The oracle takes debits on the day itself: its Sunday is lived.
    const oracle = await book('oracle');
    await oracle.advanceClock({ days: 1 });
    expect(kept(oracle).image).toBe('2026-11-01');

    // Saturday 31 October closes October: lived.
    const close = await localBackend();
    open.push(close);
    await close.setClock('2026-10-30');
    await close.importPolicies(fileUpload(join(FIXTURES, 'policies.csv')));
    await close.executeCollections({ period_month: '2026-11' });
    await close.advanceClock({ days: 1 });
    expect(kept(close).image).toBe('2026-10-31');
  });
});
