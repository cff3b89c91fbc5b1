/**
 * The engine's threads on SQLite file stores (issue 13): days handed over to the day writer
 * (store/day-writer.ts) while the next is lived, and half the accounts of a large first load
 * opened by the helper (backend/local/account-helper.ts). The month they make is byte for byte
 * the month of a store that commits each day before the next is lived and opens every account
 * itself, and a write by someone else in the middle of an advance is seen exactly as before:
 * after the day reported when it happened.
 *
 * Both threads run compiled code (dist/), which `npm test` builds first. The fixture book is small:
 * its advances of more than one day hand their days over only as PREMIA_DAY_WRITER=1 tells them
 * to (by default from 65,536 queued collections), which every test here sets.
 */
import Database from 'better-sqlite3';
import { mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { accountHelper } from '../../src/backend/local/account-helper.js';
import { simulatedBankOn } from '../../src/backend/local/engine.js';
import type { LocalBackend } from '../../src/backend/local/index.js';
import type { AdvanceOptions } from '../../src/backend/types.js';
import type { IncomeAnalysis } from '../../src/engine/income.js';
import { loadState } from '../../src/engine/load.js';
import type { AttemptColumns, HelperAnswer, UpdateColumns } from '../../src/engine/ports.js';
import { encodeAccounts } from '../../src/engine/image.js';
import { AccountSummaries, analysisDay } from '../../src/engine/summary.js';
import type { EngineState } from '../../src/engine/state.js';
import { engineStore } from '../../src/store/repos/engine.js';
import { DayPipeline } from '../../src/store/repos/engine-pipeline.js';
import type { Store } from '../../src/store/store.js';
import { dayNumber } from '../../src/domain/period.js';
import { tempDir } from '../helpers/cli.js';
import { accountsOf, replaying } from '../helpers/image.js';
import { allCollections, fixtureMonth, localBackend, readDownload } from '../helpers/local.js';

const tmp = tempDir('premia-pipeline-');
afterAll(() => tmp.cleanup());
const open: LocalBackend[] = [];
beforeEach(() => {
  process.env.PREMIA_DAY_WRITER = '1';
  // Days in parts (engine/day.ts eveningAndDay): the fixture book's first business day in ~60.
  process.env.PREMIA_DAY_PART_ACCOUNTS = '7';
});
afterEach(async () => {
  delete process.env.PREMIA_DAY_WRITER;
  delete process.env.PREMIA_DAY_PART_ACCOUNTS;
  for (const b of open.splice(0)) await b.close();
});

let files = 0;
/** The fixture book queued for November on a new file store. */
async function book(options: { aloneOnThread?: boolean } = {}): Promise<LocalBackend> {
  const b = await localBackend({ path: join(tmp.dir, `store-${++files}.db`), seed: 1, aloneOnThread: options.aloneOnThread });
  open.push(b);
  await fixtureMonth(b, { advance: false });
  return b;
}

/** Run `fn` with days committed one by one on the store's connection (no day writer). */
async function withoutWriter<T>(fn: () => Promise<T>): Promise<T> {
  const before = process.env.PREMIA_DAY_WRITER;
  process.env.PREMIA_DAY_WRITER = '0';
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.PREMIA_DAY_WRITER;
    else process.env.PREMIA_DAY_WRITER = before;
  }
}

async function month(b: LocalBackend, options: AdvanceOptions = {}) {
  await b.advanceClock({ to: '2026-11-30' }, options);
  return {
    attempts: await readDownload(await b.exportAttempts('2026-11', 'csv')),
    collections: JSON.stringify(await allCollections(b, '2026-11')),
  };
}

/** Cancel a policy from another connection, at once (as another process would). */
function cancelElsewhere(file: string, policyNumber: string): void {
  const other = new Database(file, { timeout: 10_000 });
  try {
    other.exec('begin immediate');
    other.prepare("update policies set status = 'cancelled' where policy_number = ?").run(policyNumber);
    other.prepare("update collections set status = 'CANCELLED' where policy_number = ? and period_month = '2026-11'").run(policyNumber);
    other.exec('commit');
  } finally {
    other.close();
  }
}

/** Whether the store would hand `days` over to its day writer (beginDays), asked and ended at once. */
async function takesDaysOver(store: Store, days: number, pipeline: boolean): Promise<boolean> {
  const engine = engineStore(store);
  try {
    return await engine.beginDays(days, pipeline);
  } finally {
    await engine.endDays();
  }
}

/** Every account's columns (analysis.ts), its income analysis made first (the helper makes those of its half). */
function analysed(s: EngineState): Map<string, unknown[]> {
  const scratch = {} as IncomeAnalysis;
  for (let i = 0; i < s.accounts.size; i++) s.summaries.analysis(s.accounts, i, scratch);
  return accountsOf(s);
}

describe("the engine's threads", () => {
  it('a month whose days are handed over to the writer is the month committed day by day', async () => {
    const handed = await book();
    if (handed.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    // A file store hands its days over (the writer starts).
    const probe = engineStore(handed.store);
    expect(await probe.beginDays(2, true)).toBe(true);
    await probe.endDays();
    const one = await month(handed);
    const plain = await withoutWriter(async () => month(await book()));
    expect(one.attempts.trimEnd().split('\n').length).toBeGreaterThan(500);
    expect(one.attempts).toBe(plain.attempts);
    expect(one.collections).toBe(plain.collections);
  });

  it('a quiet Sunday handed to the writer moves the clock alone, and the month is the same', async () => {
    const plain = await withoutWriter(async () => month(await book()));
    const b = await book();
    if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    const raw = b.store.raw;
    // As many queued as a one-day advance with no image hands its day to the writer for.
    const queued = raw.prepare("select policies_queued from executions where status = 'processing'").pluck().get() as number;
    raw.prepare("update executions set policies_queued = 65536 where status = 'processing'").run();
    expect(await takesDaysOver(b.store, 1, true)).toBe(true);
    const sunday = await b.advanceClock({ days: 1 });
    expect(sunday.days.map((d) => [d.date, d.attempts])).toEqual([['2026-11-01', 0]]);
    expect(raw.prepare("select value from meta where key = 'clock_date'").pluck().get()).toBe('2026-11-01');
    expect(raw.prepare('select (select count(*) from engine_image_head) + (select count(*) from plan_batches)').pluck().get()).toBe(0);
    raw.prepare("update executions set policies_queued = ? where status = 'processing'").run(queued);
    const lived = await month(b);
    expect(lived.attempts).toBe(plain.attempts);
    expect(lived.collections).toBe(plain.collections);
  });

  it('an advance of more than one day is handed over from 65,536 queued collections, or when PREMIA_DAY_WRITER=1 says so', async () => {
    const b = await book();
    if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    const handsOver = (days: number) => takesDaysOver(b.store, days, true);
    expect(await handsOver(30)).toBe(true);
    delete process.env.PREMIA_DAY_WRITER;
    // The fixture book's 520 collections: the thread's start costs more than their days write.
    expect(await handsOver(30)).toBe(false);
    expect(await handsOver(2)).toBe(false);
    const queued = b.store.raw.prepare("update executions set policies_queued = ? where status = 'processing'");
    queued.run(65_535);
    expect(await handsOver(30)).toBe(false);
    queued.run(65_536);
    expect(await handsOver(30)).toBe(true);
    // Never when the advance asks for its days to commit on this connection (the crash tests).
    expect(await takesDaysOver(b.store, 30, false)).toBe(false);
  });

  it('one day is handed over only when the debits submitted for it are many (1 MiB of plan batches as stored)', async () => {
    const b = await book();
    if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    // To a business day (the Sunday before passes without a load, and plans nothing: load.ts loadCanWait).
    await b.advanceClock({ to: '2026-11-02' });
    const raw = b.store.raw;
    const clock = raw.prepare("select value from meta where key = 'clock_date'").pluck().get() as string;
    const planned = raw.prepare('select coalesce(sum(length(data)), 0) from plan_batches where plan_day = ?').pluck();
    // The fixture book's plans for 3 November: a few KiB.
    expect(planned.get(clock)).toBeGreaterThan(0);
    expect(planned.get(clock)).toBeLessThan(64 * 1024);
    const handsOver = (days: number, pipeline: boolean) => takesDaysOver(b.store, days, pipeline);
    expect(await handsOver(1, true)).toBe(false);
    expect(await handsOver(2, true)).toBe(true);
    // Plans for the next day reaching 1 MiB (a stand-in batch, removed below).
    const filler = raw.prepare('insert into plan_batches (client_id, plan_day, data) values ((select min(id) from clients), ?, ?)');
    filler.run(clock, Buffer.alloc(1024 * 1024 - Number(planned.get(clock)) - 1));
    expect(await handsOver(1, true)).toBe(false);
    filler.run(clock, Buffer.alloc(1));
    expect(await handsOver(1, true)).toBe(true);
    // Never when the advance asks for its days to commit on this connection (the crash tests).
    expect(await handsOver(1, false)).toBe(false);
    // A day's plans are those made on the clock's date: the same bytes a day earlier count for nothing.
    raw.prepare("update plan_batches set plan_day = '2026-10-31' where plan_day = ? and length(data) >= 1024").run(clock);
    expect(await handsOver(1, true)).toBe(false);
  });

  it('one day is handed over when its load cannot come from the image alone and 65,536 collections or more are queued', async () => {
    const b = await book();
    if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    await b.advanceClock({ to: '2026-11-02' });
    const raw = b.store.raw;
    const handsOver = () => takesDaysOver(b.store, 1, true);
    const queued = (n: number) => raw.prepare("update executions set policies_queued = ? where status = 'processing'").run(n);
    const processing = raw.prepare("select count(*) from executions where status = 'processing'").pluck().get() as number;
    expect(processing).toBe(1);
    // The image kept by that advance is as of today, with today's inputs: a light day, however large the run.
    queued(1_000_000);
    expect(await handsOver()).toBe(false);
    // A run changed since (the inputs' version moved): the load reads every customer and keeps them all.
    raw.prepare('update engine_inputs set version = version + 1').run();
    expect(await handsOver()).toBe(true);
    queued(65_535);
    expect(await handsOver()).toBe(false);
    queued(65_536);
    expect(await handsOver()).toBe(true);
    // No image at all (a store's first advance).
    raw.prepare('delete from engine_image_head').run();
    expect(await handsOver()).toBe(true);
    queued(100);
    expect(await handsOver()).toBe(false);
  });

  it("days a connection writes alone on its thread skip foreign key checks, which come back after; a shared one's keep them", async () => {
    const b = await book();
    if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    const raw = b.store.raw;
    const keys = () => raw.pragma('foreign_keys', { simple: true });
    const during = async (options: { aloneOnThread?: boolean }, days: number) => {
      const engine = engineStore(b.store, options);
      try {
        return { handed: await engine.beginDays(days, true), keys: keys() };
      } finally {
        await engine.endDays();
      }
    };
    expect(keys()).toBe(1);
    // One day of the fixture book: written on this connection, alone on its thread (the CLI's).
    expect(await during({ aloneOnThread: true }, 1)).toEqual({ handed: false, keys: 0 });
    expect(keys()).toBe(1);
    // Days handed over to the writer: this connection only reads, and keeps its checks.
    expect(await during({ aloneOnThread: true }, 2)).toEqual({ handed: true, keys: 1 });
    // A connection the server's requests share with the advance keeps them.
    expect(await during({}, 1)).toEqual({ handed: false, keys: 1 });
    expect(keys()).toBe(1);
    // A store opened with the checks off (none here does) is left so.
    raw.pragma('foreign_keys = OFF');
    expect(await during({ aloneOnThread: true }, 1)).toEqual({ handed: false, keys: 0 });
    expect(keys()).toBe(0);
    raw.pragma('foreign_keys = ON');
  });

  it('a month whose days are written without foreign key checks (alone on the thread) is the month written with them', async () => {
    const alone = await withoutWriter(async () => month(await book({ aloneOnThread: true })));
    const shared = await withoutWriter(async () => month(await book()));
    expect(alone.attempts.trimEnd().split('\n').length).toBeGreaterThan(500);
    expect(alone).toEqual(shared);
  });

  it('a writer that writes a day before the one before is reported (alone on its thread) makes the same month, and stops where asked', async () => {
    // The CLI and the server's job thread: the writer waits for the report in the day's transaction.
    const plain = await withoutWriter(async () => month(await book()));
    const alone = await month(await book({ aloneOnThread: true }));
    expect(alone.attempts).toBe(plain.attempts);
    expect(alone.collections).toBe(plain.collections);

    // A stop asked for while 10 November is reported: the day after, written meanwhile, rolls back.
    const tenth = await withoutWriter(async () => {
      const b = await book();
      await b.advanceClock({ to: '2026-11-10' });
      return readDownload(await b.exportAttempts('2026-11', 'csv'));
    });
    const b = await book({ aloneOnThread: true });
    const stop = new AbortController();
    const stopped = await b.advanceClock(
      { to: '2026-11-30' },
      {
        signal: stop.signal,
        onDay: (day) => {
          if (day.date !== '2026-11-10') return;
          stop.abort();
          // The reporting takes a while: the writer has written the 11th by the time it ends.
          const until = Date.now() + 200;
          while (Date.now() < until);
        },
      },
    );
    expect(stopped.days.at(-1)!.date).toBe('2026-11-10');
    expect((await b.getClock()).date).toBe('2026-11-10');
    expect(await readDownload(await b.exportAttempts('2026-11', 'csv'))).toBe(tenth);
  });

  it('a stop asked for while the day that closes a period is with the writer ends the advance as asked, not as a failure', async () => {
    // December queued too: after November's close the advance waits for it to commit, to learn
    // what lapsed. A stop asked for while the 27th is reported drops the 28th to the 30th, written
    // meanwhile (a weekend is lived and committed with the day after it: the 30th closes the month).
    const b = await book({ aloneOnThread: true });
    await b.executeCollections({ period_month: '2026-12' });
    const stop = new AbortController();
    const stopped = await b.advanceClock(
      { to: '2026-12-31' },
      {
        signal: stop.signal,
        onDay: (day) => {
          if (day.date !== '2026-11-27') return;
          stop.abort();
          const until = Date.now() + 200;
          while (Date.now() < until);
        },
      },
    );
    expect(stopped.days.at(-1)!.date).toBe('2026-11-27');
    expect((await b.getClock()).date).toBe('2026-11-27');
    expect((await b.getExecution((await allCollections(b, '2026-11'))[0]!.execution_id)).status).toBe('processing');
  });

  it("the image a handed-over month keeps, streamed to the writer, is the image of the month committed day by day", async () => {
    const image = (b: LocalBackend) => {
      if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
      return b.store.raw.prepare('select wake, client_id, customers, collections, hex(data) as data from engine_image order by block').all() as Array<{ data: string }>;
    };
    // Mid-month, sleeping customers wake on many days: a block per client and wake day.
    const handed = await book();
    await handed.advanceClock({ to: '2026-11-04' });
    const plain = await withoutWriter(async () => {
      const b = await book();
      await b.advanceClock({ to: '2026-11-04' });
      return b;
    });
    const kept = image(handed);
    // More blocks than are ever in flight to the writer at once (engine-pipeline.ts IMAGE_WINDOW).
    expect(kept.length).toBeGreaterThan(8);
    expect(kept).toEqual(image(plain));
  });

  it("a writer whose thread ends unasked fails the advance, saying so, where it waited for good before", async () => {
    const b = await book();
    if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    const raw = b.store.raw;
    const clock = () => raw.prepare("select value from meta where key = 'clock_date'").pluck().get();
    const before = clock();
    // The writer's thread ends as soon as it is ready, with no error of its own (as a native
    // fault or a terminate leaves it): every day the advance hands over goes nowhere.
    const start = DayPipeline.start.bind(DayPipeline);
    const spy = vi.spyOn(DayPipeline, 'start').mockImplementation(async (...args) => {
      const pipeline = await start(...args);
      const worker = (pipeline as unknown as { worker: Worker }).worker;
      await new Promise<void>((resolve) => worker.on('message', (m: { type: string }) => void (m.type === 'ready' && resolve())));
      await worker.terminate();
      return pipeline;
    });
    onTestFinished(() => spy.mockRestore());
    const advance = b.advanceClock({ to: '2026-11-30' });
    await expect(advance).rejects.toThrow("the day writer's thread ended unexpectedly (exit code 1): the advance stopped after the last day it wrote (premia clock show says which)");
    expect(spy).toHaveBeenCalledTimes(1);
    expect(clock()).toBe(before);
    expect(raw.prepare('select count(*) from attempts').pluck().get()).toBe(0);
    // Nothing is left half-done: the next advance, with a writer that lives, makes the month.
    spy.mockRestore();
    const again = await month(b);
    const plain = await withoutWriter(async () => month(await book()));
    expect(again.attempts).toBe(plain.attempts);
  });

  it("a day handed over after the writer's thread ended fails at once, its period's lapses too", async () => {
    const b = await book();
    if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    let worker: { terminate(): Promise<number> } | null = null;
    const start = DayPipeline.start.bind(DayPipeline);
    const spy = vi.spyOn(DayPipeline, 'start').mockImplementation(async (...args) => {
      const pipeline = await start(...args);
      worker = (pipeline as unknown as { worker: { terminate(): Promise<number> } }).worker;
      return pipeline;
    });
    onTestFinished(() => spy.mockRestore());
    const store = engineStore(b.store);
    expect(await store.beginDays(3, true)).toBe(true);
    const none = { n: 0 } as AttemptColumns & UpdateColumns;
    try {
      await store.runDay(async (unit) => unit.moveClock('2026-11-01'));
      expect(await store.settle!('one')).toBe(1);
      // The thread ends while the next day is lived, before any of it is handed over: its first
      // part, then its close and the rest, go to nothing that will ever answer them.
      const lapsed = await store.runDay(async (unit) => {
        await worker!.terminate();
        unit.handPart!('2026-11-02', none, none);
        const l = unit.closePeriod!('2026-11', 2, '2026-11-02', Date.UTC(2026, 10, 2));
        await unit.moveClock('2026-11-02');
        return { l };
      });
      await expect(lapsed.l).rejects.toThrow("the day writer's thread ended unexpectedly (exit code 1)");
      await expect(store.settle!('one')).rejects.toThrow("the day writer's thread ended unexpectedly (exit code 1)");
    } finally {
      await store.endDays();
    }
    expect(b.store.raw.prepare("select value from meta where key = 'clock_date'").pluck().get()).toBe('2026-11-01');
  });

  it('a handed-over day whose image cannot be made does not commit, and the advance hears why', async () => {
    const b = await book();
    if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    const clock = () => (b.store.kind === 'sqlite' ? b.store.raw.prepare("select value from meta where key = 'clock_date'").pluck().get() : null);
    const before = clock();
    const store = engineStore(b.store);
    expect(await store.beginDays(2, true)).toBe(true);
    const data = new Uint8Array(64).fill(7);
    function* blocks() {
      for (let k = 0; k < 20; k++) {
        if (k === 12) throw new Error('the image failed at block 12');
        yield { wake: 20_800, clientId: 1, customers: 1, collections: 0, data };
      }
    }
    try {
      await store.runDay(async (unit) => {
        await unit.writeImage!('2026-11-01', 'tag', 0, null, blocks());
        await unit.moveClock('2026-11-01');
      });
      await expect(store.settle!('one')).rejects.toThrow('the image failed at block 12');
    } finally {
      await store.endDays();
    }
    expect(clock()).toBe(before);
    expect(b.store.raw.prepare('select count(*) from engine_image').pluck().get()).toBe(0);
  });

  it("a day handed in parts commits whole, its parts' attempts first; one whose unit fails after a part leaves nothing", async () => {
    const b = await book();
    if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    const raw = b.store.raw;
    const ids = raw.prepare("select id from collections where period_month = '2026-11' order by id limit 3").pluck().all() as number[];
    const attemptsOf = (cols: number[], amount: number) => ({
      n: cols.length,
      clientId: Int32Array.from(cols, () => 1),
      collectionId: Int32Array.from(cols),
      period: new Uint8Array(cols.length),
      periods: ['2026-11'],
      amount: Float64Array.from(cols, () => amount),
      reason: new Uint8Array(cols.length),
    });
    const noUpdates = { n: 0, id: new Int32Array(0), collected: new Float64Array(0), status: new Uint8Array(0), first: new Int32Array(0), last: new Int32Array(0), attempts: new Int32Array(0), failed: new Int32Array(0), failure: new Uint8Array(0) };
    const stored = () => raw.prepare('select collection_id, date, amount from attempts order by id').all();
    const clock = () => raw.prepare("select value from meta where key = 'clock_date'").pluck().get();
    const store = engineStore(b.store);
    expect(await store.beginDays(2, true)).toBe(true);
    try {
      // The unit that loads holds the store's write lock to its end: it takes no parts.
      await store.runDay(async (unit) => {
        await unit.readWorld();
        expect(() => unit.handPart!('2026-11-01', attemptsOf([ids[0]!], 100), noUpdates)).toThrow('a unit that loads the working set hands no parts');
      });
      // A part, then the unit fails: the writer, which began the day on the part, drops it.
      await expect(
        store.runDay(async (unit) => {
          unit.handPart!('2026-11-01', attemptsOf([ids[0]!], 100), noUpdates);
          await unit.moveClock('2026-11-01');
          throw new Error('the day failed');
        }),
      ).rejects.toThrow('the day failed');
      expect(await store.settle!('one')).toBe(0);
    } finally {
      await store.endDays();
    }
    expect(clock()).toBe('2026-10-31');
    expect(stored()).toEqual([]);

    const again = engineStore(b.store);
    expect(await again.beginDays(2, true)).toBe(true);
    try {
      await again.runDay(async (unit) => void (await unit.readWorld()));
      await again.runDay(async (unit) => {
        const first = attemptsOf([ids[0]!, ids[1]!], 100);
        unit.handPart!('2026-11-01', first, noUpdates);
        // Shared with the writer's thread, not transferred: nothing of the engine's is detached
        // (a first detached buffer would throw away the engine's optimized code: engine-days.ts sharedOps).
        expect([first.collectionId.byteLength, first.amount.byteLength, first.reason.byteLength]).toEqual([8, 16, 2]);
        expect(Array.from(first.collectionId)).toEqual([ids[0], ids[1]]);
        unit.handPart!('2026-11-01', attemptsOf([ids[2]!], 200), noUpdates);
        await unit.insertAttemptColumns('2026-11-01', attemptsOf([], 0));
        await unit.moveClock('2026-11-01');
      });
      expect(await again.settle!('one')).toBe(1);
    } finally {
      await again.endDays();
    }
    expect(clock()).toBe('2026-11-01');
    expect(stored()).toEqual([
      { collection_id: ids[0], date: '2026-11-01', amount: 100 },
      { collection_id: ids[1], date: '2026-11-01', amount: 100 },
      { collection_id: ids[2], date: '2026-11-01', amount: 200 },
    ]);
  });

  it('a write by someone else while days are handed over is seen after the day reported then', async () => {
    const run = async (b: LocalBackend) => {
      if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
      const file = b.store.path;
      return month(b, { onDay: (day) => void (day.date === '2026-11-05' && cancelElsewhere(file, 'POL-2026034')) });
    };
    const handed = await run(await book());
    const plain = await withoutWriter(async () => run(await book()));
    expect(handed.attempts).toBe(plain.attempts);
    expect(handed.collections).toBe(plain.collections);
    // Left alone, POL-2026034 is debited on 2026-11-27: cancelled on the 5th, never.
    expect(handed.attempts.split('\n').filter((l) => l.includes(',POL-2026034,'))).toEqual([]);
    expect(JSON.parse(handed.collections).find((c: { policy_number: string }) => c.policy_number === 'POL-2026034').collection_status).toBe('CANCELLED');
  });

  it("the writer's baseline is taken while the load holds the store's write lock (its thread may start after the load): nothing commits in between", async () => {
    const b = await book();
    if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    const file = b.store.path;
    const original = Object.getOwnPropertyDescriptor(DayPipeline.prototype, 'askBaseline')!.value as (this: DayPipeline) => Promise<void>;
    const seen: string[] = [];
    // The first baseline is asked for only once the advance waits for it (as when the writer's
    // thread starts after the load is done): another connection then tries to write.
    const spy = vi.spyOn(DayPipeline.prototype, 'askBaseline').mockImplementation(function (this: DayPipeline) {
      if (seen.length > 0) return original.call(this);
      const late: PromiseLike<void> = {
        then: (resolve, reject) => {
          const other = new Database(file, { timeout: 0 });
          try {
            other.exec('begin immediate');
            other.exec('rollback');
            seen.push('written');
          } catch (e) {
            seen.push((e as { code?: string }).code ?? String(e));
          } finally {
            other.close();
          }
          return original.call(this).then(resolve, reject);
        },
      };
      return late as Promise<void>;
    });
    onTestFinished(() => spy.mockRestore());
    const handed = await month(b);
    spy.mockRestore();
    expect(seen).toEqual(['SQLITE_BUSY']);
    const plain = await withoutWriter(async () => month(await book()));
    expect(handed.attempts).toBe(plain.attempts);
    expect(handed.collections).toBe(plain.collections);
  });

  it('the helper opens accounts as the bank and the summaries do', async () => {
    const b = await book();
    const bank = simulatedBankOn(b.store);
    const helper = accountHelper(b.store, 1)!;
    expect(helper).toBeDefined();
    const last = 0x7fffffff;
    const { helped, replayed } = await engineStore(b.store).runDay(async (unit) => ({
      helped: await loadState(unit, bank, last, { helper }),
      replayed: await loadState(replaying(unit), bank, last),
    }));
    expect(helped.accounts.size).toBe(400);
    expect(analysed(helped)).toEqual(analysed(replayed));
    // A helper that fails: the bank opens its half itself.
    const failing = { minCollections: 1, openLaterHalf: () => ({ answer: Promise.reject(new Error('the helper is gone')), cancel() {} }) };
    const fallen = await engineStore(b.store).runDay((unit) => loadState(unit, bank, last, { helper: failing }));
    expect(analysed(fallen)).toEqual(analysed(replayed));
    // A helper whose customers are not the ones the engine read (the store changed under it, a
    // helper of another version): not taken, the bank opens that half itself.
    const real = helper.openLaterHalf('2026-11', dayNumber('2026-10-31')).answer;
    const skewed = async (skew: (a: HelperAnswer) => HelperAnswer) => {
      const other = { minCollections: 1, openLaterHalf: () => ({ answer: real.then(skew), cancel() {} }) };
      return analysed(await engineStore(b.store).runDay((unit) => loadState(unit, bank, last, { helper: other })));
    };
    expect(await skewed((a) => ({ ...a, customers: a.customers + 1 }))).toEqual(analysed(replayed));
    // The later half's accounts in the reverse order: as many, every one opened right, but each
    // in another customer's place.
    const laterHalf = Array.from({ length: 200 }, (_, j) => 399 - j);
    const later = { clientId: laterHalf.map((i) => replayed.accounts.clientId[i]!), customerId: laterHalf.map((i) => replayed.accounts.customerIdOf(i)) };
    const today = dayNumber('2026-10-31');
    const summaries = new AccountSummaries(200, analysisDay(today), replayed.settings.calendar);
    const reversed = await bank.openAccounts(later, today, summaries.postedDays(today));
    const reversedBlocks = [...encodeAccounts(reversed, summaries)].map((block) => block.data.slice());
    // The customer ids copied as the account set keeps them, or (a bank whose accounts cannot)
    // as strings: the same bytes.
    const asStrings = Object.create(reversed, { customerIdInto: { value: undefined } }) as typeof reversed;
    expect([...encodeAccounts(asStrings, summaries)].map((block) => block.data.slice())).toEqual(reversedBlocks);
    expect(await skewed((a) => ({ ...a, blocks: reversedBlocks }))).toEqual(analysed(replayed));
  });

  it("the helper opens from the engine's image the accounts of a month queued after the last, as the engine does", async () => {
    const b = await book();
    await b.advanceClock({ to: '2026-11-30' });
    await b.executeCollections({ period_month: '2026-12' });
    const bank = simulatedBankOn(b.store);
    const last = 0x7fffffff;
    const failing = { minCollections: 1, openLaterHalf: () => ({ answer: Promise.reject(new Error('the helper is gone')), cancel() {} }) };
    const { helped, alone, fallen, replayed } = await engineStore(b.store).runDay(async (unit) => ({
      helped: await loadState(unit, bank, last, { helper: accountHelper(b.store, 1) }),
      alone: await loadState(unit, bank, last),
      fallen: await loadState(unit, bank, last, { helper: failing }),
      replayed: await loadState(replaying(unit), bank, last),
    }));
    // The engine opened its half from the image and the helper the other; without a helper, the
    // engine all of them; with one that failed, its half from the image and the other by replay
    // (premia's November debits then read for those customers).
    expect([helped.accounts.size, helped.resumed, alone.resumed, fallen.resumed, replayed.resumed]).toEqual([400, 400, 400, 200, 0]);
    expect(analysed(helped)).toEqual(analysed(replayed));
    expect(analysed(alone)).toEqual(analysed(replayed));
    expect(analysed(fallen)).toEqual(analysed(replayed));
  });

  it('the helper process leaves no file behind, and one that cannot open the store says why', async () => {
    const b = await book();
    // A temporary directory of this test's own: the system's is shared with the test files that
    // run beside this one, whose advances make (and at once remove) exchange directories there.
    const own = join(tmp.dir, 'helper-tmp');
    mkdirSync(own);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = own;
    onTestFinished(() => {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    });
    expect(tmpdir()).toBe(own);
    const exchanges = () => readdirSync(tmpdir()).filter((name) => name.startsWith('premia-helper-'));
    expect(exchanges()).toEqual([]);
    const { customers, blocks } = await accountHelper(b.store, 1)!.openLaterHalf('2026-11', dayNumber('2026-10-31')).answer;
    expect(customers).toBe(400);
    expect(blocks.map((d) => d.byteOffset % 8)).toEqual(blocks.map(() => 0));
    expect(blocks.reduce((n, d) => n + new Uint32Array(d.buffer, d.byteOffset, 1)[0]!, 0)).toBe(200);
    expect(exchanges()).toEqual([]);
    const missing = { ...b.store, path: join(tmp.dir, 'missing.db') } as Store;
    await expect(accountHelper(missing, 1)!.openLaterHalf('2026-11', dayNumber('2026-10-31')).answer).rejects.toThrow(/^the account helper failed: .*missing\.db/);
    expect(exchanges()).toEqual([]);
    // Cancelled while it works: it stops, and leaves nothing behind either.
    const cancelled = accountHelper(b.store, 1)!.openLaterHalf('2026-11', dayNumber('2026-10-31'));
    cancelled.cancel();
    await expect(cancelled.answer).rejects.toThrow(/^the account helper stopped \(SIGTERM\)/);
    expect(exchanges()).toEqual([]);
  });
});
