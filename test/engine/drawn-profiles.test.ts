/**
 * The generated profiles the engine's helper process hands over with the accounts it opened
 * (bank/accounts.ts DrawnProfiles): an account set that opens the same accounts copies them and
 * gets the accounts it would have drawn itself, every day of their activity the same; a profile
 * that is not the account's (another customer, seed or first day) is drawn again instead.
 */
import { describe, expect, it } from 'vitest';
import { AccountSet, DrawnProfiles } from '../../src/bank/accounts.js';
import { PROFILE_INTS, PROFILE_REALS } from '../../src/bank/generated.js';
import { DayActivity } from '../../src/bank/types.js';
import { ZA_CALENDAR } from '../../src/domain/calendar.js';
import { dayNumber } from '../../src/domain/period.js';

const EPOCH = dayNumber('2026-08-01');
const N = 2_000;
const id = (k: number) => `C${1_000_000 + k}`;

function opened(seed: number, epoch: number, drawn?: DrawnProfiles): { set: AccountSet; drawnHere: number } {
  const set = new AccountSet(N + 1, null, ZA_CALENDAR);
  const add = set.book.add.bind(set.book);
  let drawnHere = 0;
  set.book.add = (...args) => {
    drawnHere++;
    return add(...args);
  };
  for (let k = 0; k < N; k++) set.add(1, id(k), null, seed, epoch, epoch, 0, drawn ?? null, k);
  return { set, drawnHere };
}

function profile(set: AccountSet, i: number): string {
  const ints = new Int32Array(PROFILE_INTS);
  const reals = new Float64Array(PROFILE_REALS);
  set.book.profileInto(i, ints, 0, reals, 0);
  return `${ints.join()}|${reals.join()}`;
}

describe('drawn profiles', () => {
  it('copied, they are the profiles drawn (keys of every sign among them), and the accounts live the same days', () => {
    const { set: there } = opened(7, EPOCH);
    const bytes = there.drawnProfiles();
    const { set: here, drawnHere } = opened(7, EPOCH, new DrawnProfiles(bytes));
    expect(drawnHere).toBe(0);
    // The keys (a profile's first integer) of about half the accounts are negative as stored.
    let negative = 0;
    for (let k = 0; k < N; k++) if (Number(profile(there, k).split(',')[0]) < 0) negative++;
    expect(negative).toBeGreaterThan(N / 4);
    const a = new DayActivity();
    const b = new DayActivity();
    // Differences are gathered and asserted once (an expect per account and day was ~0.4 s).
    const differ: string[] = [];
    const lived = (x: DayActivity) => JSON.stringify([x.creditCount, x.debitCount, x.credits.slice(0, x.creditCount), x.debits.slice(0, x.debitCount)]);
    for (let k = 0; k < N; k++) {
      if (profile(here, k) !== profile(there, k)) differ.push(`account ${k}: its profile`);
      for (let day = EPOCH; day < EPOCH + 120; day += 3) {
        there.book.dayActivity(k, day, a);
        here.book.dayActivity(k, day, b);
        if (lived(b) !== lived(a)) differ.push(`account ${k}, day ${day}: ${lived(b)}, not ${lived(a)}`);
      }
    }
    expect(differ.slice(0, 5)).toEqual([]);
  });

  it('another seed or first day: drawn again, as if none had come', () => {
    const bytes = opened(7, EPOCH).set.drawnProfiles();
    const plain = opened(8, EPOCH).set;
    const otherSeed = opened(8, EPOCH, new DrawnProfiles(bytes));
    expect(otherSeed.drawnHere).toBe(N);
    const otherDay = opened(7, EPOCH + 1, new DrawnProfiles(bytes));
    expect(otherDay.drawnHere).toBe(N);
    for (let k = 0; k < N; k += 97) expect(profile(otherSeed.set, k)).toBe(profile(plain, k));
  });

  it('bytes of another size are refused', () => {
    const bytes = opened(7, EPOCH).set.drawnProfiles();
    expect(() => new DrawnProfiles(bytes.subarray(0, bytes.length - 8))).toThrow('drawn profiles of an unexpected size');
  });
});
