/**
 * A day lived with the evening before it, its rows handed in parts as they become final
 * (engine/day.ts eveningAndDay, issue 13), against the evening and the day lived one after the
 * other (planAll, sleepIdle, liveDay): the same plans, the same attempts in the same order, the
 * same collection updates, the same accounts awake, every day of the fixture month.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simulatedBankOn } from '../../src/backend/local/engine.js';
import type { LocalBackend } from '../../src/backend/local/index.js';
import { dayNumber, type IsoDate } from '../../src/domain/period.js';
import { sleepIdle } from '../../src/engine/awake.js';
import { DayRunner, eveningAndDay, liveDay, planAll, quietDays, type DayOutcome } from '../../src/engine/day.js';
import { orderBy, updateColumns, type DayPlans } from '../../src/engine/day-rows.js';
import { loadState } from '../../src/engine/load.js';
import type { AttemptColumns, UpdateColumns } from '../../src/engine/ports.js';
import type { EngineState } from '../../src/engine/state.js';
import { engineStore } from '../../src/store/repos/engine.js';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { fileUpload, localBackend } from '../helpers/local.js';

const tmp = tempDir('premia-day-parts-');
afterAll(() => tmp.cleanup());
const open: LocalBackend[] = [];
afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});

let files = 0;

/**
 * Two copies of the working set of the fixture book queued for November, as of `from`: the
 * fixture bank imported or not; the policy numbers shuffled (a customer's policies far apart in
 * policy_number order, and accounts, numbered as their first collection comes, no longer in the
 * order their attempts are stored in); advanced to `from` first (the working set then comes
 * from the engine's image, its accounts in the order of its blocks).
 */
async function twoStates(book: { bank: boolean; shuffled: boolean; from: IsoDate }): Promise<[EngineState, EngineState]> {
  const b = await localBackend({ path: join(tmp.dir, `store-${++files}.db`), seed: 1 });
  open.push(b);
  await b.setClock('2026-10-31');
  let policies = join(FIXTURES, 'policies.csv');
  if (book.shuffled) {
    const [head, ...rows] = readFileSync(policies, 'utf8').trimEnd().split('\n');
    const numbers = rows.map((r) => r.split(',')[2]!);
    // Row r takes the number of row 7r mod n (n = 520, prime to 7).
    policies = join(tmp.dir, `shuffled-${files}.csv`);
    writeFileSync(policies, [head, ...rows.map((r, k) => r.replace(numbers[k]!, numbers[(7 * k) % rows.length]!))].join('\n') + '\n');
  }
  await b.importPolicies(fileUpload(policies));
  if (book.bank) await b.importBankTransactions(fileUpload(join(FIXTURES, 'bank-transactions.csv')));
  await b.executeCollections({ period_month: '2026-11' });
  if (book.from !== '2026-10-31') await b.advanceClock({ to: book.from });
  const load = () => engineStore(b.store).runDay((unit) => loadState(unit, simulatedBankOn(b.store), dayNumber('2026-11-30')));
  const [one, other] = [await load(), await load()];
  // From the image: its evening is made (eveningDone); from the collections it is to be made.
  expect(one.eveningDone).toBe(book.from !== '2026-10-31');
  return [one, other];
}

/** The attempts as rows (collection id, client, period, amount, reason). */
function attemptRows(parts: AttemptColumns[]): number[][] {
  const out: number[][] = [];
  for (const a of parts) for (let k = 0; k < a.n; k++) out.push([a.collectionId[k]!, a.clientId[k]!, a.period[k]!, a.amount[k]!, a.reason[k]!]);
  return out;
}

/** The updates as rows (id, collected, status, first, last, attempts, failed, failure). */
function updateRows(parts: UpdateColumns[]): number[][] {
  const out: number[][] = [];
  for (const u of parts) {
    for (let k = 0; k < u.n; k++) out.push([u.id[k]!, u.collected[k]!, u.status[k]!, u.first[k]!, u.last[k]!, u.attempts[k]!, u.failed[k]!, u.failure[k]!]);
  }
  return out;
}

/** The collections the day changed and not yet handed, in rowid order (as writeDay hands them). */
function restUpdates(s: EngineState): UpdateColumns {
  const cs = s.cols;
  const order = orderBy(s.dirty.length, (j) => cs.rowid[s.dirty[j]!]!);
  for (let k = 0; k < order.length; k++) order[k] = s.dirty[order[k]!]!;
  for (const c of s.dirty) cs.dirty[c] = 0;
  s.dirty.length = 0;
  return updateColumns(cs, order, 0, order.length);
}

async function planRows(plans: DayPlans): Promise<Array<[number, number[][]]>> {
  const out: Array<[number, number[][]]> = [];
  for (const [client, buffer] of plans.byClient) out.push([client, (await buffer.batches()).map((b) => Array.from(b))]);
  return out;
}

const books = [
  { name: 'generated accounts', bank: false, shuffled: false, from: '2026-10-31', largest: 100, parts: 5 },
  { name: 'the fixture bank imported', bank: true, shuffled: false, from: '2026-10-31', largest: 100, parts: 5 },
  { name: 'policy numbers shuffled', bank: false, shuffled: true, from: '2026-10-31', largest: 10, parts: 5 },
  { name: "from the engine's image mid-month", bank: false, shuffled: true, from: '2026-11-05', largest: 1, parts: 1 },
] as const;

/** The sleeping accounts on the wake list of each day, as a comparable list. */
function wakeLists(s: EngineState): Array<[number, number[]]> {
  return [...s.wakes.entries()].map(([day, list]): [number, number[]] => [day, list.filter((i) => s.wakeDay[i] === day).sort((a, b) => a - b)]).filter(([, l]) => l.length > 0).sort((a, b) => a[0] - b[0]);
}

describe('a day lived with its evening, its rows in parts', () => {
  for (const book of books) {
    for (const chained of [false, true]) {
      it(`gives the plans, rows and accounts awake of the evening and the day one after the other (${book.name}${chained ? ', a weekend with the day after it' : ''})`, async () => {
        const [one, fused] = await twoStates(book);
        const runOne = new DayRunner(one);
        const runFused = new DayRunner(fused);
        let parts = 0;
        let largest = 0;
        let chains = 0;
        const end = dayNumber('2026-11-30');
        for (let D = dayNumber(book.from); D < end; ) {
          const quiet = chained ? quietDays(fused, D, end) : 0;
          if (quiet > 0) chains++;
          // The evenings and days one after the other (the first evening made already when the
          // working set came from the image); the quiet days' summaries kept.
          const evening = D > dayNumber(book.from) || !one.eveningDone;
          const plans: Array<DayPlans | null> = [];
          const quietSummaries: Array<Map<number, unknown>> = [];
          let day!: DayOutcome;
          for (let k = 0; k <= quiet; k++) {
            const first = k > 0 || evening;
            plans.push(first ? planAll(one, D + k, D + k + 1 + one.settings.leadDays) : null);
            if (first && one.canSleep) sleepIdle(one, D + k);
            day = liveDay(one, runOne, D + k + 1);
            if (k < quiet) {
              expect(day.attempts.n).toBe(0);
              expect(one.dirty.length).toBe(0);
              quietSummaries.push(day.summaries);
            }
          }
          const updates = restUpdates(one);
          // All at once, a part every 3 accounts.
          const handed: { attempts: AttemptColumns[]; updates: UpdateColumns[] } = { attempts: [], updates: [] };
          const both = await eveningAndDay(
            fused,
            runFused,
            D,
            evening,
            {
              every: 3,
              hand: (a, u) => {
                handed.attempts.push(a);
                handed.updates.push(u);
              },
            },
            quiet,
          );
          handed.attempts.push(both.out.attempts);
          handed.updates.push(restUpdates(fused));
          if (handed.attempts.length > 2) parts++;
          largest = Math.max(largest, handed.attempts.length - 1);

          expect(attemptRows(handed.attempts)).toEqual(attemptRows([day.attempts]));
          expect(updateRows(handed.updates)).toEqual(updateRows([updates]));
          expect(both.out.summaries).toEqual(day.summaries);
          expect(both.quietDays).toEqual(quietSummaries);
          for (let k = 0; k <= quiet; k++) expect(await planRows(both.evenings[k]!)).toEqual(plans[k] ? await planRows(plans[k]!) : []);
          expect(Array.from(fused.active.subarray(0, fused.activeCount))).toEqual(Array.from(one.active.subarray(0, one.activeCount)));
          expect(Array.from(fused.wakeDay)).toEqual(Array.from(one.wakeDay));
          expect(wakeLists(fused)).toEqual(wakeLists(one));
          D += quiet + 1;
        }
        expect(largest).toBeGreaterThan(book.largest);
        expect(parts).toBeGreaterThan(book.parts);
        // November 2026's weekends, each lived with the day after it: the 1st, 7th-8th, 14th-15th,
        // 21st-22nd and 28th-29th (the last with the 30th, which closes the month).
        if (chained) expect(chains).toBe(book.from === '2026-10-31' ? 5 : 4);
      });
    }
  }
});

describe('the size of a part', () => {
  it('is at least one account: parts of 0 accounts come as parts of 1, with the same rows', async () => {
    const book = books[0];
    const [one, other] = await twoStates(book);
    const D = dayNumber(book.from);
    // Sunday the 1st lived whole, then the first business day (Monday the 2nd) in parts.
    const live = async (s: EngineState, every: number) => {
      const runner = new DayRunner(s);
      await eveningAndDay(s, runner, D, true);
      const handed: AttemptColumns[] = [];
      const out = await eveningAndDay(s, runner, D + 1, true, { every, hand: (a) => handed.push(a) });
      handed.push(out.out.attempts);
      return { parts: handed.length, attempts: attemptRows(handed), active: s.activeCount };
    };
    const zero = await live(one, 0);
    const single = await live(other, 1);
    expect(zero).toEqual(single);
    expect(zero.parts).toBeGreaterThan(10);
    expect(zero.attempts.length).toBeGreaterThan(100);
  });
});
