/**
 * The engine's day in customer shards (issue 14), for a store several processes share
 * (PostgreSQL): the advance opens the day after the clock's date in S shards (the store setting
 * `engine.shards`); the advancing process and any `premia engine work` process each claim a
 * pending shard, live that shard's customers through the day exactly as the whole working set is
 * lived (plans, the bank's day, attempts, collection updates, the period's close for those
 * accounts, the next plans) and commit it as one unit that also marks the shard done; once every
 * shard is done the advance closes the day (the period's runs and the lapse rule, the clock).
 *
 * A customer's day depends on that customer alone (its collections, its account, premia's debits
 * planned for it), so the shards can be lived anywhere and in any order: the attempts,
 * collections and plans are those one process gives. The store keeps other writes out from the
 * day's opening to its closing, so every shard sees the same inputs.
 *
 * A process keeps each shard's working set in memory between days (ShardCache) while the store's
 * engine inputs and settings stand and the shard was lived by it the day before; otherwise it
 * loads the shard (its customers' open collections, their accounts replayed) and plans what the
 * first evening of an advance plans, which is nothing new for collections already planned.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { dayNumber, fromDayNumber, lastDay, periodOf, type IsoDate } from '../domain/period.js';
import { sleepIdle } from './awake.js';
import { closePeriodAccounts, closePeriodRuns, DayRunner, emptySummary, insertPlans, liveDay, planAll, writeDay, type DaySummary } from './day.js';
import { imageTag } from './image.js';
import { loadState } from './load.js';
import type { AdvanceClaim, Bank, EngineStore, ShardedDays, ShardUnit } from './ports.js';
import { engineSettings, settingIn, SHARDS_KEY } from './settings.js';
import type { EngineState } from './state.js';

/** How long a process waits before it looks again for a shard to live or a day to close. */
const POLL_MS = 20;

/**
 * This process's own mark: processes in containers share a host name (host networking) and each
 * may be process 1 of its own namespace, and a worker's name is a lock of its own on the store.
 */
const PROCESS_MARK = randomBytes(4).toString('hex');

/**
 * This process, as the store records which worker lived a shard: its host, process id and a mark
 * of its own, so that two processes never take one name (the second one's join, an advance's
 * too, waited for the first's lock for good, saying nothing).
 */
export function workerName(): string {
  return `${hostname()}:${process.pid}:${PROCESS_MARK}`;
}

interface Kept {
  state: EngineState;
  runner: DayRunner;
  inputs: number;
  tag: string;
}

/** The shards' working sets a process has lived, by shard count and index, as of the day each stands at. */
export class ShardCache {
  private readonly kept = new Map<string, Kept>();

  /** The working set of shard `shard` of `shards` when it is current, taken out (put back once its day commits). */
  take(shards: number, shard: number, today: IsoDate, inputs: number, tag: string): Kept | null {
    const key = `${shards}/${shard}`;
    const k = this.kept.get(key);
    this.kept.delete(key);
    return k !== undefined && k.state.today === today && k.inputs === inputs && k.tag === tag ? k : null;
  }

  put(shards: number, shard: number, kept: Kept): void {
    this.kept.set(`${shards}/${shard}`, kept);
  }
}

/** Hooks of a shard's day (fault injection in the tests). */
export interface ShardHooks {
  /** Inside a shard's unit, just before it commits. */
  beforeShardCommit?(day: IsoDate, shard: number): void;
}

/** One shard's day's counts per client, as the store keeps them with the shard: [client, attempts, succeeded, failed, collected]. */
type ShardCounts = Array<[number, number, number, number, number]>;

/**
 * Live the claimed shard's customers through its day, in `unit`: the working set from `cache`
 * when current, else loaded. Returns the shard's summary (its counts per client, JSON) and the
 * working set to keep once the unit has committed.
 */
async function liveShard(unit: ShardUnit, bank: Bank, cache: ShardCache, hooks: ShardHooks): Promise<{ result: Kept; summary: string }> {
  const world = await unit.readWorld();
  const todayDay = dayNumber(world.today);
  const day = todayDay + 1;
  if (fromDayNumber(day) !== unit.day) throw new Error(`shard ${unit.shard} of ${unit.day} claimed while the clock is at ${world.today}`);
  const inputs = await unit.inputsVersion();
  const tag = imageTag(world.settings, engineSettings(world.settings).calendar);
  let kept = cache.take(unit.shards, unit.shard, world.today, inputs, tag);
  const fresh = kept === null;
  if (kept === null) {
    const state = await loadState(unit, bank, day, { world });
    kept = { state, runner: new DayRunner(state), inputs, tag };
  }
  const s = kept.state;
  const lead = s.settings.leadDays;
  if (fresh) {
    // What the first evening of an advance plans (existing plans stand: the same state gives the same plans).
    await insertPlans(unit, planAll(s, todayDay, todayDay + 1 + lead), todayDay);
    if (s.canSleep) sleepIdle(s, todayDay);
  }
  const out = liveDay(s, kept.runner, day);
  await writeDay(unit, s, day, out);
  if (unit.day === lastDay(periodOf(unit.day))) await closePeriodAccounts(s, periodOf(unit.day));
  await insertPlans(unit, planAll(s, day, day + 1 + lead), day);
  if (s.canSleep) sleepIdle(s, day);
  s.today = unit.day;
  const counts: ShardCounts = [...out.summaries].map(([client, d]) => [client, d.attempts, d.succeeded, d.failed, d.collected]);
  hooks.beforeShardCommit?.(unit.day, unit.shard);
  return { result: kept, summary: JSON.stringify(counts) };
}

/**
 * Claim and live one pending shard of the open day; keeps its working set in `cache` once it has
 * committed. False when no shard is pending.
 */
async function liveOneShard(sharded: ShardedDays, bank: Bank, cache: ShardCache, worker: string, hooks: ShardHooks): Promise<boolean> {
  let claimed: { shards: number; shard: number } | null = null;
  const done = await sharded.workShard(worker, async (unit) => {
    claimed = { shards: unit.shards, shard: unit.shard };
    return liveShard(unit, bank, cache, hooks);
  });
  if (done === null) return false;
  const c = claimed as { shards: number; shard: number } | null;
  if (c !== null) cache.put(c.shards, c.shard, done.result);
  return true;
}

/** Whether the store lives its days in shards: it can, and a day is open or more than one shard is set. */
export async function livesInShards(store: EngineStore): Promise<boolean> {
  const sharded = store.shards;
  if (sharded === undefined) return false;
  return (await sharded.openDay()) !== null || settingIn(await sharded.readSettings(), SHARDS_KEY) > 1;
}

export interface ShardedRun {
  clientId: number;
  now: () => Date;
  onDay?: (day: DaySummary, index: number, total: number) => void;
  signal?: AbortSignal;
  /** Just before a day's close commits (the crash tests). */
  beforeCommit?(date: IsoDate): void;
  hooks?: ShardHooks;
}

/**
 * The days of an advance holding `claim`, lived in shards: each day opened, its shards lived by
 * this process and any other worker, then closed. Returns the days lived, as `advance` does.
 */
export async function advanceInShards(engine: { store: EngineStore; bank: Bank }, claim: AdvanceClaim, run: ShardedRun): Promise<DaySummary[]> {
  const sharded = engine.store.shards!;
  const cache = new ShardCache();
  const worker = workerName();
  const days: DaySummary[] = [];
  const total = dayNumber(claim.to) - dayNumber(claim.from);
  const member = await sharded.join(worker);
  try {
    for (let today = dayNumber(claim.from); today < dayNumber(claim.to); today++) {
      // Between days the event loop runs: a Ctrl-C handler, a server's other requests.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (run.signal?.aborted) break;
      const summary = await liveDayInShards(sharded, engine.bank, cache, worker, claim, today + 1, run);
      days.push(summary);
      run.onDay?.(summary, days.length, total);
    }
  } finally {
    await member.leave();
  }
  return days;
}

/** Open `day`, live the shards this process can claim, wait for the others' and close the day. */
async function liveDayInShards(sharded: ShardedDays, bank: Bank, cache: ShardCache, worker: string, claim: AdvanceClaim, day: number, run: ShardedRun): Promise<DaySummary> {
  const date = fromDayNumber(day);
  await sharded.beginDay(claim, date, settingIn(await sharded.readSettings(), SHARDS_KEY));
  try {
    for (;;) {
      if (await liveOneShard(sharded, bank, cache, worker, run.hooks ?? {})) continue;
      if ((await sharded.unfinished(date)) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const stampMs = day * 86_400_000 + (run.now().getTime() % 86_400_000);
    return await sharded.endDay(claim, date, async (unit, summaries) => {
      const mine = emptySummary(date);
      for (const text of summaries) {
        for (const [client, attempts, succeeded, failed, collected] of JSON.parse(text) as ShardCounts) {
          if (client !== run.clientId) continue;
          mine.attempts += attempts;
          mine.succeeded += succeeded;
          mine.failed += failed;
          mine.collected = (mine.collected + collected) as DaySummary['collected'];
        }
      }
      if (date === lastDay(periodOf(date))) {
        const world = await unit.readWorld();
        mine.closed_period = periodOf(date);
        const { lapsed } = await closePeriodRuns(unit, engineSettings(world.settings).lapseAfterUnpaidPeriods, mine.closed_period, stampMs);
        mine.lapsed_policies = (await lapsed).get(run.clientId) ?? 0;
      }
      await unit.moveClock(date);
      run.beforeCommit?.(date);
      return mine;
    });
  } catch (e) {
    await sharded.abandonDay(claim);
    throw e;
  }
}

export interface WorkRun {
  /** Stop once the clock's date is this day or later (and no shard is pending). */
  until?: IsoDate;
  signal?: AbortSignal;
  /** Told of each shard lived. */
  onShard?: () => void;
  hooks?: ShardHooks;
}

/**
 * `premia engine work`: live the pending shards of the days other processes open, until stopped
 * (or until the clock reaches `until`). Returns how many shards this process lived.
 */
export async function workShards(engine: { store: EngineStore; bank: Bank }, run: WorkRun): Promise<number> {
  const sharded = engine.store.shards;
  if (sharded === undefined) throw new Error('this store does not live its days in shards');
  const cache = new ShardCache();
  const worker = workerName();
  let lived = 0;
  const member = await sharded.join(worker);
  try {
    for (;;) {
      if (run.signal?.aborted) break;
      if (await liveOneShard(sharded, engine.bank, cache, worker, run.hooks ?? {})) {
        lived++;
        run.onShard?.();
        continue;
      }
      if (run.until !== undefined && (await engine.store.readClock()) >= run.until) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    await member.leave();
  }
  return lived;
}
