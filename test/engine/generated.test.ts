import { describe, expect, it } from 'vitest';
import { generatedAccount, generatedProfile } from '../../src/bank/generated.js';
import { DayActivity } from '../../src/bank/types.js';
import { ZA_CALENDAR } from '../../src/domain/calendar.js';
import { dayNumber } from '../../src/domain/period.js';

const EPOCH = dayNumber('2026-08-01');

describe('generated accounts', () => {
  it('are a pure function of seed, customer and day', () => {
    const a = generatedAccount(7, 'C123', EPOCH, ZA_CALENDAR);
    const b = generatedAccount(7, 'C123', EPOCH, ZA_CALENDAR);
    const other = generatedAccount(8, 'C123', EPOCH, ZA_CALENDAR);
    const x = new DayActivity();
    const y = new DayActivity();
    const days = Array.from({ length: 120 }, (_, k) => EPOCH + k);
    const dump = (acc: typeof a, out: DayActivity) =>
      days.map((d) => {
        acc.dayActivity(d, out);
        return JSON.stringify([out.credits.slice(0, out.creditCount), out.debits.slice(0, out.debitCount), out.events.slice(0, out.eventCount)]);
      });
    expect(dump(a, x)).toEqual(dump(b, y));
    expect(dump(a, x)).not.toEqual(dump(other, y));
  });

  it('nothing happens before the account opens', () => {
    const acc = generatedAccount(1, 'C1', EPOCH, ZA_CALENDAR);
    const out = new DayActivity();
    acc.dayActivity(EPOCH - 1, out);
    expect(out.empty).toBe(true);
    expect(acc.credits(EPOCH - 40, EPOCH - 1)).toEqual([]);
  });

  it('the mix over 20 000 customers is realistic and varied', () => {
    const kinds: Record<string, number> = {};
    const afford: Record<string, number> = {};
    let events = 0;
    let payOn25 = 0;
    let monthlyFixed = 0;
    const N = 20_000;
    for (let i = 0; i < N; i++) {
      const p = generatedProfile(1, `C${i}`, EPOCH);
      kinds[p.kind] = (kinds[p.kind] ?? 0) + 1;
      afford[p.affordability] = (afford[p.affordability] ?? 0) + 1;
      if (p.kind === 'monthly_fixed_day') {
        monthlyFixed++;
        if (p.payDom === 25) payOn25++;
      }
      // an event within the first six months of collections
      if (p.event !== null && p.eventDay < EPOCH + 9 * 31) events++;
    }
    const share = (n: number | undefined) => (n ?? 0) / N;
    expect(share(kinds.monthly_fixed_day)).toBeCloseTo(0.3, 1);
    expect(share(kinds.monthly_last_business_day)).toBeCloseTo(0.14, 1);
    expect(share(kinds.twice_monthly)).toBeCloseTo(0.12, 1);
    expect(share(kinds.fortnightly)).toBeCloseTo(0.1, 1);
    expect(share(kinds.weekly)).toBeCloseTo(0.1, 1);
    expect(share(kinds.irregular)).toBeCloseTo(0.18, 1);
    expect(share(kinds.none)).toBeCloseTo(0.06, 1);
    expect(share(afford.comfortable)).toBeCloseTo(0.55, 1);
    expect(share(afford.tight)).toBeCloseTo(0.3, 1);
    expect(share(afford.short)).toBeCloseTo(0.15, 1);
    expect(payOn25 / monthlyFixed).toBeCloseTo(0.6, 1);
    expect(share(events)).toBeGreaterThan(0.03);
    expect(share(events)).toBeLessThan(0.12);
  });

  it('covers the three months before the first collections period with activity', () => {
    let withCredits = 0;
    for (let i = 0; i < 500; i++) {
      const acc = generatedAccount(3, `C${i}`, EPOCH, ZA_CALENDAR);
      if (acc.credits(EPOCH, EPOCH + 91).length > 0) withCredits++;
    }
    expect(withCredits).toBeGreaterThan(440); // all but the no-income customers (some of those get transfers)
  });
});
