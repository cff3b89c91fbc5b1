/**
 * The collections engine, run by the virtual clock. `advance` lives through each day after the
 * clock's date up to the target, each day one unit of work of the store: a crash or kill leaves
 * the store at the end of the last whole day, and advancing again resumes from there with no
 * debit repeated or lost (a day's attempts, collection updates, new plans and the clock move
 * commit together).
 *
 * A day D:
 *  1. every customer with open collections lives through D (credits, premia's debits planned for
 *     D in policy_number order, other debits: see bank/ledger.ts), and the outcomes update the
 *     collections;
 *  2. when D is the last day of a month, that period closes: its runs complete, the lapse rule
 *     runs (domain/lapse.ts) and the bank keeps the balances of its accounts;
 *  3. each strategy plans the debits of the action date D + 1 + leadDays from what the engine
 *     has seen up to the end of D.
 *
 * On a store that takes a day's rows as they are made (DayUnit.handPart: SQLite's day writer),
 * step 3 of day D is made in D + 1's unit, fused with D + 1 (day.ts eveningAndDay), so that the
 * writer begins on D + 1 while it is lived; the advance's last day and a period's last day keep
 * theirs. A stop or crash between the two leaves the store at D without D's plans: the next
 * advance makes them, the same, before it lives D + 1 (as for collections queued since). Days
 * no debit can be made on (day.ts quietDays: a weekend) are lived in the unit of the day after
 * them, each account through them and their evenings in turn. An advance whose days are all
 * such days (none planning a debit), before any image the next load could use, moves the clock
 * alone (load.ts loadCanWait): the next advance loads as those days left the accounts.
 *
 * The working set is kept in memory for the whole advance (state.ts) and loaded again when
 * anything else wrote to the store in between. One advance runs at a time per store (the store's
 * claim, renewed every day).
 */
import { resolveAdvanceTarget, type AdvanceTargetInput } from '../domain/advance.js';
import { dayNumber, fromDayNumber, lastDay, periodOf, type IsoDate } from '../domain/period.js';
import { closePeriod, DayRunner, emptySummary, eveningAndDay, insertPlans, liveDay, planAll, quietDays, writeDay, type DayOutcome, type DaySummary } from './day.js';
import type { AdvanceClaim, AdvanceHolder, AttemptColumns, Bank, EngineHelper, EngineStore, UpdateColumns } from './ports.js';
import { sleepIdle } from './awake.js';
import { encodeImage } from './image.js';
import { loadCanWait, loadState } from './load.js';
import { advanceInShards, livesInShards } from './shards.js';
import type { EngineState } from './state.js';

export type { DaySummary };

export interface AdvanceResult {
  from: IsoDate;
  to: IsoDate;
  days: DaySummary[];
}

/** Hooks for the edges of a run (memory tuning, diagnostics, fault injection), given by the wiring. */
export interface EngineHooks {
  /**
   * The working set was loaded: `collections` open collections in memory, `resumed` of its
   * accounts opened from the state the last advance kept (the others replayed).
   */
  loaded?(collections: number, resumed: number): void;
  /** Inside a day's unit, just before it commits (the crash tests kill the process here). */
  beforeCommit?(date: IsoDate): void;
  /** Inside a shard's unit of a day lived in shards, just before it commits (shards.ts). */
  beforeShardCommit?(date: IsoDate, shard: number): void;
  /** Day `date` has committed (reported in order; a day writer may be writing the next meanwhile). */
  dayDone?(date: IsoDate): void;
  /** The advance has ended (normally or not). */
  finished?(): void;
}

export interface AdvanceRun {
  /** The client whose days are reported (every client's collections are collected). */
  clientId: number;
  /** The wall clock: its time of day stamps a day's writes (the date is the virtual clock's). */
  now: () => Date;
  /** Called after each day has committed. */
  onDay?: (day: DaySummary, index: number, total: number) => void;
  /** Called once when another advance holds the store and this one waits for it. */
  onWait?: (holder: AdvanceHolder) => void;
  /** Checked between days: when aborted, the advance ends after the day just committed. */
  signal?: AbortSignal;
  /**
   * Once this advance holds the store (after waiting for any other), before its first day: may
   * refuse the range it resolved (throw), nothing done.
   */
  beforeDays?: (from: IsoDate, to: IsoDate) => Promise<void>;
  hooks?: EngineHooks;
}

/** The engine: a store and a bank, as its ports. */
export interface Engine {
  store: EngineStore;
  bank: Bank;
  /** Another thread that may open half the accounts of a large working set with no image. */
  helper?: EngineHelper;
}

/** Live through the days after the clock's date up to the target. */
export async function advance(engine: Engine, target: AdvanceTargetInput, run: AdvanceRun): Promise<AdvanceResult> {
  const { store } = engine;
  // A bad target is refused at once (the clock only moves forward, so what is refused now stays
  // refused); the range itself is resolved once this advance holds the claim, from the clock's
  // date in that same unit (another advance may be running).
  resolveAdvanceTarget(await store.readClock(), target);
  const claim = await store.claimAdvance((today) => resolveAdvanceTarget(today, target), run.onWait);
  try {
    await run.beforeDays?.(claim.from, claim.to);
    if (await livesInShards(store)) {
      // The days in customer shards, with any other worker on the store (shards.ts).
      const days = await advanceInShards(engine, claim, {
        clientId: run.clientId,
        now: run.now,
        signal: run.signal,
        beforeCommit: (date) => run.hooks?.beforeCommit?.(date),
        hooks: { beforeShardCommit: (date, shard) => run.hooks?.beforeShardCommit?.(date, shard) },
        onDay: (day, index, total) => {
          run.hooks?.dayDone?.(day.date);
          run.onDay?.(day, index, total);
        },
      });
      return { from: claim.from, to: await store.readClock(), days };
    }
    return await advanceHolding(engine, claim, run);
  } finally {
    try {
      await store.releaseAdvance(claim);
    } finally {
      run.hooks?.finished?.();
    }
  }
}

/** What a unit that only loaded the working set returns (a store taking a day's rows as they are made). */
const LOADED = Symbol('loaded');

/**
 * Accounts lived between the parts of a day handed to a store as they are made (DayUnit.handPart):
 * the first business day of a million-policy month comes in ~25 parts.
 */
const PART_ACCOUNTS = 32_768;

async function advanceHolding(engine: Engine, claim: AdvanceClaim, run: AdvanceRun): Promise<AdvanceResult> {
  const { store, bank } = engine;
  const { from, to } = claim;
  const hooks = run.hooks ?? {};
  const days: DaySummary[] = [];
  const total = dayNumber(to) - dayNumber(from);
  let state: EngineState | null = null;
  let runner: DayRunner | null = null;
  /** Whether the days up to `to` pass without the working set (none loaded meanwhile). */
  let waiting = false;
  /** Days lived and handed to the store, not yet known to have committed, in order. */
  const pending: Array<{ summary: DaySummary; lapsed: Promise<Map<number, number>>; before: DaySummary[] }> = [];
  // A store may take days over before they commit (another thread writes them while the next
  // is lived), but not when a hook must run just before a day commits (the crash tests).
  const pipelined = total > 0 && (await store.beginDays(total, hooks.beforeCommit === undefined));
  /**
   * Report the days committed, in order: those committed by now (waiting while too many are in
   * flight), or, when `all`, every day handed over that commits.
   */
  const collect = async (all: boolean): Promise<void> => {
    for (;;) {
      const committed = pipelined ? await store.settle!(all ? 'one' : 'room') : pending.length;
      if (committed === 0) return;
      for (let k = 0; k < committed; k++) {
        const p = pending.shift()!;
        p.summary.lapsed_policies = (await p.lapsed).get(run.clientId) ?? 0;
        // The days lived in the same unit before it (quiet days), then the day itself.
        for (const d of [...p.before, p.summary]) {
          hooks.dayDone?.(d.date);
          days.push(d);
          run.onDay?.(d, days.length, total);
        }
      }
      // A stop asked for while these days were reported: none after them commits.
      if (pipelined) store.reported!(run.signal?.aborted === true);
    }
  };
  const yieldAndCollect = async (): Promise<void> => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await collect(false);
  };
  try {
    for (;;) {
      // Between days the event loop runs (a day's work is synchronous): a Ctrl-C handler, a
      // server's other requests. A stop asked for meanwhile ends the advance here, after the
      // day just lived.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (run.signal?.aborted) break;
      let lived: (typeof pending)[number] | typeof LOADED | null;
      try {
        lived = await store.runDay(async (unit) => {
          if (unit.changedSinceLastDay && pipelined) {
            // Days handed over after something else wrote were not committed: they are lived
            // again from the last day that was, on the working set loaded again.
            await collect(true);
            pending.length = 0;
          }
          await unit.renewClaim(claim);
          const world = await unit.readWorld();
          const today = world.today;
          if (today >= to) return null; // moved meanwhile by something that does not take the claim
          const stale = state === null || unit.changedSinceLastDay || state.today !== today;
          // Days that change nothing but the clock pass without the working set (load.ts
          // loadCanWait), asked again whenever anything else wrote.
          if (unit.changedSinceLastDay) waiting = await loadCanWait(unit, bank, world, dayNumber(to));
          if (waiting) {
            state = null;
            runner = null;
            const date = fromDayNumber(dayNumber(today) + 1);
            await unit.moveClock(date);
            hooks.beforeCommit?.(date);
            return { summary: emptySummary(date), lapsed: Promise.resolve(new Map<number, number>()), before: [] };
          }
          if (stale) {
            state = await loadState(unit, bank, dayNumber(to), { helper: engine.helper, world });
            runner = new DayRunner(state);
            hooks.loaded?.(state.cols.n, state.resumed);
            // A store that takes a day's rows as they are made loads in a unit of its own; the
            // evening of the load's day (below) comes with the next day, in the next unit.
            if (unit.handPart !== undefined) {
              state.eveningPending = !state.eveningDone;
              return LOADED;
            }
          }
          const s: EngineState = state!;
          const todayDay = dayNumber(today);
          const lead = s.settings.leadDays;
          // Days no debit can be made on (a weekend) come in the same unit as the day after them.
          const quiet = unit.handPart !== undefined ? quietDays(s, todayDay, dayNumber(to)) : 0;
          const day = todayDay + 1 + quiet;
          const date = fromDayNumber(day);
          const stampMs = day * 86_400_000 + (run.now().getTime() % 86_400_000);

          let out: DayOutcome;
          const before: DaySummary[] = [];
          if (unit.handPart !== undefined) {
            // The evening before (when not made yet) and the day, the day's rows handed as they
            // become final (the writer begins on them while the rest is lived).
            const evening = s.eveningPending;
            s.eveningPending = false;
            const hand = unit.handPart.bind(unit);
            const parts = { every: unit.partAccounts ?? PART_ACCOUNTS, hand: (attempts: AttemptColumns, updates: UpdateColumns) => hand(date, attempts, updates) };
            const fused = await eveningAndDay(s, runner!, todayDay, evening, parts, quiet);
            for (let k = 0; k <= quiet; k++) if (k > 0 || evening) await insertPlans(unit, fused.evenings[k]!, todayDay + k);
            fused.quietDays.forEach((m, k) => before.push(m.get(run.clientId) ?? emptySummary(fromDayNumber(todayDay + 1 + k))));
            out = fused.out;
          } else {
            if (stale && !s.eveningDone) {
              // Plans for the first action day that can still be planned, for collections queued
              // since the last planning. Existing plans stand; the same state gives the same plans
              // (and none at all when the state is the image of this evening, planning done).
              await insertPlans(unit, planAll(s, todayDay, todayDay + 1 + lead), todayDay);
              if (s.canSleep) sleepIdle(s, todayDay);
            }
            out = liveDay(s, runner!, day);
          }
          await writeDay(unit, s, day, out);
          // The writer waits for each day it has committed to be reported before it writes the
          // next: report them between the parts of a long day too.
          if (pipelined) await yieldAndCollect();
          let closed: string | null = null;
          let lapsed = Promise.resolve(new Map<number, number>());
          if (date === lastDay(periodOf(date))) {
            closed = periodOf(date);
            lapsed = (await closePeriod(unit, s, closed, stampMs)).lapsed;
          }
          if (unit.handPart !== undefined && date !== to && closed === null) {
            // This evening comes with tomorrow, in the next unit (eveningAndDay): the advance's
            // last day and a period's last day keep theirs (the image is of a planned evening; the
            // lapses a close makes are known to the working set before the next planning).
            s.eveningPending = true;
          } else {
            await insertPlans(unit, planAll(s, day, day + 1 + lead), day);
            if (s.canSleep) sleepIdle(s, day);
          }
          if (pipelined) await yieldAndCollect();
          // The advance's last day keeps the working set, so that the next advance opens only
          // the customers with something to do, where they stand (image.ts).
          if (date === to && s.imageTag !== '' && unit.writeImage) await unit.writeImage(date, s.imageTag, s.inputsVersion, s.consumed, encodeImage(s, day));
          await unit.moveClock(date);
          s.today = date;
          hooks.beforeCommit?.(date);
          const mine = out.summaries.get(run.clientId) ?? emptySummary(date);
          mine.closed_period = closed;
          return { summary: mine, lapsed, before };
        });
      } catch (e) {
        state = null; // the day rolled back: what is in memory may be ahead of the store
        throw e;
      }
      if (lived === null) break;
      if (lived === LOADED) continue;
      pending.push(lived);
      await collect(false);
      const closed = lived.summary.closed_period;
      const s = state as EngineState | null; // set in the day above
      if (closed !== null && s !== null && s.cols.periods.some((p) => p.period > closed)) {
        // The close lapsed policies whose collections of later periods the working set holds:
        // those are debited no more, as after a load that follows the close (the lapse rule runs
        // as the day commits; the store says which collections it took).
        if (pipelined) await collect(true);
        // Not committed (a stop asked for while earlier days were reported, or a write by someone
        // else): nothing lapsed, and the next day, if any, loads the store again.
        if (pending.includes(lived)) continue;
        if ([...(await lived.lapsed).values()].some((n) => n > 0)) s.cols.blockIds(await store.lapsedCollections(closed));
      }
    }
    await collect(true);
  } finally {
    if (total > 0) await store.endDays();
  }
  return { from, to: await store.readClock(), days };
}
