import { describe, expect, it } from 'vitest';
import { GeneratedBook, generatedAccount, generatedProfile } from '../../src/bank/generated.js';
import { applyDay, blockedReason, eventDays, type DayFacts, type PremiaDebits } from '../../src/bank/ledger.js';
import { DayActivity, type FailureReason } from '../../src/bank/types.js';
import { calendarOf, ZA_CALENDAR } from '../../src/domain/calendar.js';
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

  it("live a day in one step exactly as their day's activity under the account rules", () => {
    // Premia's debits of a day: a few amounts from a hash of (account, day), sometimes none.
    const premiaOn = (k: number): PremiaDebits => ({
      debitsFor(_balance, d, amounts) {
        const h = (k * 7919 + d * 104729) % 1000;
        if (h < 500) return 0;
        amounts[0] = 1_000 + h * 97;
        amounts[1] = 200 + h;
        return h < 800 ? 1 : 2;
      },
    });
    const book = new GeneratedBook(400, ZA_CALENDAR);
    for (let k = 0; k < 400; k++) book.add(5, `C${k}`, EPOCH);
    const activity = new DayActivity();
    const facts: DayFacts = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
    const fused: DayFacts = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
    const outcomes: Array<FailureReason | null> = [];
    const fusedOutcomes: Array<FailureReason | null> = [];
    let firstDifference: { k: number; day: number; fused: unknown[]; alone: unknown[] } | null = null;
    let checked = 0;
    for (let k = 0; k < 400; k++) {
      const ev = eventDays({ events: () => book.events(k) } as never);
      let balance = 0;
      let fusedBalance = 0;
      for (let day = EPOCH - 2; day < EPOCH + 400; day++) {
        const blocked = blockedReason(day, ev.closed, ev.frozen, ev.stopped);
        const premia = ZA_CALENDAR.isBusinessDay(day) ? premiaOn(k) : null;
        book.dayActivity(k, day, activity);
        balance = applyDay(activity, day, balance, blocked, premia, outcomes, facts, []);
        fusedBalance = book.liveDays(k, day, day, fusedBalance, blocked, premia, fusedOutcomes, fused, [], null);
        // Compared here and asserted once (an expect per day was most of the test's 8 s): the
        // first difference is kept whole, with its account and day.
        const same =
          fusedBalance === balance &&
          fused.credits === facts.credits &&
          fused.postedDebits === facts.postedDebits &&
          fused.collected === facts.collected &&
          fused.premiaDebits === facts.premiaDebits &&
          outcomes.slice(0, facts.premiaDebits).every((o, i) => fusedOutcomes[i] === o);
        if (!same) firstDifference ??= { k, day, fused: [fusedBalance, { ...fused }, fusedOutcomes.slice(0, fused.premiaDebits)], alone: [balance, { ...facts }, outcomes.slice(0, facts.premiaDebits)] };
        checked++;
      }
    }
    expect(firstDifference).toBeNull();
    expect(checked).toBe(400 * 402);
  });
});

describe('the next credit day of a generated account', () => {
  it('is the first day with a credit in its day-by-day activity, for every kind, range and calendar', () => {
    const activity = new DayActivity();
    let found = 0;
    // Mismatches are gathered and asserted once (an expect per range was ~0.75 s of the test).
    const wrong: string[] = [];
    for (const calendar of [ZA_CALENDAR, calendarOf('none')]) {
      const book = new GeneratedBook(300, calendar);
      for (let k = 0; k < 300; k++) book.add(9, `N${k}`, EPOCH);
      for (let k = 0; k < 300; k++) {
        // Each range's first credit day as the days themselves say.
        const creditDays: number[] = [];
        for (let day = EPOCH - 3; day < EPOCH + 430; day++) {
          book.dayActivity(k, day, activity);
          if (activity.creditCount > 0) creditDays.push(day);
        }
        for (let from = EPOCH - 3; from < EPOCH + 400; from += 7 + (k % 5)) {
          for (const span of [0, 1, 6, 20, 31]) {
            const to = from + span;
            const expected = creditDays.find((d) => d >= from && d <= to) ?? to + 1;
            const got = book.nextCreditDay(k, from, to);
            if (got !== expected) wrong.push(`${calendar === ZA_CALENDAR ? 'ZA' : 'none'} N${k} ${from}..${to}: ${got}, not ${expected}`);
            if (expected <= to) found++;
          }
        }
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(found).toBeGreaterThan(10_000);
  });
});

describe('the credits of a generated account', () => {
  it('are those its day-by-day activity posts, for every kind, range and calendar', () => {
    const activity = new DayActivity();
    const kinds = new Set<string>();
    let seen = 0;
    for (const calendar of [ZA_CALENDAR, calendarOf('none')]) {
      const book = new GeneratedBook(300, calendar);
      for (let k = 0; k < 300; k++) book.add(11, `K${k}`, EPOCH);
      for (let k = 0; k < 300; k++) {
        kinds.add(generatedProfile(11, `K${k}`, EPOCH).kind);
        const posted: Array<{ day: number; amount: number }> = [];
        for (let day = EPOCH - 3; day < EPOCH + 200; day++) {
          book.dayActivity(k, day, activity);
          for (let c = 0; c < activity.creditCount; c++) posted.push({ day, amount: activity.credits[c]! });
        }
        for (const [from, to] of [[EPOCH - 3, EPOCH + 89], [EPOCH + 40, EPOCH + 40], [EPOCH + 17, EPOCH + 199]] as const) {
          const expected = posted.filter((c) => c.day >= from && c.day <= to);
          expect(book.credits(k, from, to)).toEqual(expected);
          seen += expected.length;
        }
      }
    }
    expect([...kinds].sort()).toEqual(['fortnightly', 'irregular', 'monthly_fixed_day', 'monthly_last_business_day', 'none', 'twice_monthly', 'weekly']);
    expect(seen).toBeGreaterThan(5_000);
  });
});
