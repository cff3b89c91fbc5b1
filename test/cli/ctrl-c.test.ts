/**
 * Ctrl-C during long work, in-process: the command's SIGINT handler listens on an emitter the
 * test owns (the binary uses `process`), and the test "presses Ctrl-C" at an exact point (after
 * a given day, in the middle of a file), so each outcome is exact. test/e2e/terminal.test.ts
 * presses the real keys on a pseudo-terminal.
 */
import { EventEmitter } from 'node:events';
import { copyFileSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { groupedCents } from '../helpers/grouped.js';
import type { AdvanceOptions, AdvanceTarget, Backend } from '../../src/backend/types.js';
import type { CliContext } from '../../src/cli/context.js';
import { catchCtrlC } from '../../src/cli/interrupt.js';
import { FIXTURES, runCli, tempDir, type CliOptions } from '../helpers/cli.js';
import { remoteEnv } from '../helpers/remote.js';

const tmp = tempDir('premia-ctrl-c-');
afterAll(() => tmp.cleanup());

const cli = (db: string, args: string[], options: Partial<CliOptions> = {}) =>
  runCli(['--db', db, ...args], { cwd: tmp.dir, ...options, env: { NO_COLOR: '1', ...options.env } });

/** The backend of the context, with `change` applied to it (a Proxy: every other call goes through). */
function wrapBackend(ctx: CliContext, change: (b: Backend) => Partial<Backend>): void {
  const open = ctx.backend;
  ctx.backend = async (globals, options) => {
    const b = await open(globals, options);
    const changed = change(b);
    return new Proxy(b, {
      get(target, prop, receiver) {
        if (Object.hasOwn(changed, prop)) return changed[prop as keyof Backend];
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
}

/** Do `act` once the advance has committed `date` (where the command hears of the day). */
function afterDay(date: string, act: () => void) {
  return (ctx: CliContext) =>
    wrapBackend(ctx, (b) => ({
      advanceClock: (target: AdvanceTarget, options?: AdvanceOptions) =>
        b.advanceClock(target, {
          ...options,
          onDay: (day, index, total) => {
            options?.onDay?.(day, index, total);
            if (day.date === date) act();
          },
        }),
    }));
}

/** Press Ctrl-C once the advance has committed `date`. */
const ctrlCAfter = (date: string, signals: EventEmitter) => afterDay(date, () => signals.emit('SIGINT'));

// The README's month queued, the clock on 2026-10-31.
let base: string;
beforeAll(async () => {
  base = join(tmp.dir, 'base.db');
  for (const args of [
    ['--seed', '1', 'clock', 'set', '2026-10-31'],
    ['policies', 'import', join(FIXTURES, 'policies.csv')],
    ['bank', 'import', join(FIXTURES, 'bank-transactions.csv')],
    ['collections', 'execute', '--period', '2026-11'],
  ]) {
    expect((await cli(base, args)).code).toBe(0);
  }
});

let copies = 0;
function copyOfBase(): string {
  const db = join(tmp.dir, `store-${++copies}.db`);
  copyFileSync(base, db);
  return db;
}

const attempts = async (db: string) => (await cli(db, ['collections', 'attempts', '--period', '2026-11'])).stdout;
const collections = async (db: string) => (await cli(db, ['--json', 'collections', 'list', '--period', '2026-11', '--limit', '10000'])).stdout;

describe('clock advance', () => {
  it('stops after the day being committed, says what was done, exits 130; advancing again ends where an uninterrupted run ends', async () => {
    const straight = copyOfBase();
    expect((await cli(straight, ['clock', 'advance', '--to', '2026-11-30'])).code).toBe(0);

    const db = copyOfBase();
    const signals = new EventEmitter();
    const r = await cli(db, ['--json', 'clock', 'advance', '--to', '2026-11-30'], { signals, prepare: ctrlCAfter('2026-11-03', signals) });
    expect(r.code).toBe(130);
    const result = r.json();
    expect(result.days.map((d: { date: string }) => d.date)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
    expect([result.from, result.to]).toEqual(['2026-10-31', '2026-11-03']);
    const collected = result.days.reduce((s: number, d: { collected: number }) => s + Math.round(d.collected * 100), 0);
    expect(collected).toBeGreaterThan(0);
    const amount = groupedCents(collected);
    expect(r.stderr).toBe(
      'Ctrl-C: stopping after the day in progress (press Ctrl-C again to quit at once).\n' +
        `{"error":{"code":"CANCELLED","message":"Stopped by Ctrl-C after 2026-11-03: 3 of 30 days lived, ${amount} collected; the clock is at 2026-11-03.","request_id":null}}\n`,
    );
    expect(signals.listenerCount('SIGINT')).toBe(0);

    // The clock is at the reported day, and no later day has an attempt.
    expect((await cli(db, ['--json', 'clock'])).json().date).toBe('2026-11-03');
    const partial = (await attempts(db)).split('\n').slice(1, -1);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.filter((l) => l.split(',')[3]! > '2026-11-03')).toEqual([]);

    expect((await cli(db, ['clock', 'advance', '--to', '2026-11-30'])).code).toBe(0);
    expect(await attempts(db)).toBe(await attempts(straight));
    expect(await collections(db)).toBe(await collections(straight));
  });

  it('with --idempotency-key: the stop is no answer to keep, so a rerun with the key finishes the advance', async () => {
    const db = copyOfBase();
    const signals = new EventEmitter();
    const args = ['--json', 'clock', 'advance', '--to', '2026-11-30', '--idempotency-key', 'nightly-1'];
    const stopped = await cli(db, args, { signals, prepare: ctrlCAfter('2026-11-02', signals) });
    expect(stopped.code).toBe(130);
    const rerun = await cli(db, args);
    expect(rerun.code).toBe(0);
    expect([rerun.json().from, rerun.json().to, rerun.json().days.length]).toEqual(['2026-11-02', '2026-11-30', 28]);
    // Done now, the key answers with this run's result.
    const again = await cli(db, args);
    expect([again.code, again.stdout]).toEqual([0, rerun.stdout]);
  });

  it('in words: the days lived so far, then the stop (one day: "1 of 30 days")', async () => {
    const db = copyOfBase();
    const signals = new EventEmitter();
    const r = await cli(db, ['clock', 'advance', '--to', '2026-11-30'], { signals, prepare: ctrlCAfter('2026-11-01', signals) });
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/^date +attempts +succeeded +failed +collected +closed\n2026-11-01 +\d+ +\d+ +\d+ +[\d.]+ *\n$/);
    expect(r.stderr).toMatch(/\nStopped by Ctrl-C after 2026-11-01: 1 of 30 days lived, [\d,.]+ collected; the clock is at 2026-11-01\.\n$/);
  });

  it('after --days N, names the --to that finishes the advance (the same --days again would go N days past the stop)', async () => {
    const straight = copyOfBase();
    expect((await cli(straight, ['clock', 'advance', '--to', '2026-11-30'])).code).toBe(0);

    const db = copyOfBase();
    const signals = new EventEmitter();
    const r = await cli(db, ['clock', 'advance', '--days', '30'], { signals, prepare: ctrlCAfter('2026-11-02', signals) });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(
      /\nStopped by Ctrl-C after 2026-11-02: 2 of 30 days lived, [\d,.]+ collected; the clock is at 2026-11-02\. To finish this advance, run 'premia clock advance --to 2026-11-30' \(--days would count from 2026-11-02\)\.\n$/,
    );
    // What it names finishes the advance exactly: the uninterrupted run's results.
    const rest = await cli(db, ['--json', 'clock', 'advance', '--to', '2026-11-30']);
    expect([rest.code, rest.json().from, rest.json().to]).toEqual([0, '2026-11-02', '2026-11-30']);
    expect(await collections(db)).toBe(await collections(straight));
  });

  it('once the work is done, one Ctrl-C is let pass (the command ends with its own code and words), a second has its default effect', async () => {
    const signals = new EventEmitter();
    const r = await cli(copyOfBase(), ['clock', 'advance', '--days', '2'], { signals });
    expect(r.code).toBe(0);
    expect(signals.listenerCount('SIGINT')).toBe(1);
    signals.emit('SIGINT');
    expect(signals.listenerCount('SIGINT')).toBe(0);
  });
});

/** A CSV of `rows` policies, in `chunks` pieces; Ctrl-C is pressed once `after` pieces have been read. */
function bookInPieces(rows: number, chunks: number, after: number, signals: EventEmitter): Readable {
  const per = Math.ceil(rows / chunks);
  async function* pieces() {
    yield 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';
    for (let c = 0; c < chunks; c++) {
      if (c === after) signals.emit('SIGINT');
      let text = '';
      for (let i = c * per + 1; i <= Math.min(rows, (c + 1) * per); i++) text += `C${i},R${i},P${String(i).padStart(7, '0')},FUNERAL,${50 + (i % 200)}.00\n`;
      yield Buffer.from(text);
    }
  }
  return Readable.from(pieces(), { objectMode: false });
}

describe('imports', () => {
  afterEach(() => {
    delete process.env.PREMIA_IMPORT_THREADS;
  });

  it.each([
    ['on this thread', '0', 10_000, 5, 3],
    ['on this thread, once rows have gone into the new store', '0', 60_000, 12, 10],
    ['through the reading thread (a file over 4 MiB)', undefined, 90_000, 12, 10],
  ])('policies import %s: rolled back whole, "nothing was imported", exit 130', async (_how, threads, rows, chunks, after) => {
    if (threads !== undefined) process.env.PREMIA_IMPORT_THREADS = threads;
    const db = join(tmp.dir, `import-${rows}.db`);
    const signals = new EventEmitter();
    const r = await cli(db, ['--seed', '1', 'policies', 'import', '-'], {
      signals,
      prepare: (ctx) => {
        ctx.stdin = bookInPieces(rows, chunks, after, signals);
      },
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('Stopped by Ctrl-C: nothing was imported (the import was rolled back whole).\n');
    // The store the stopped import made held nothing: it is gone, -wal and -shm with it.
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith(`import-${rows}.db`))).toEqual([]);
    // The same book imports whole afterwards: no row of the stopped import was kept.
    const again = await cli(db, ['--json', 'policies', 'import', '-'], { prepare: (ctx) => (ctx.stdin = bookInPieces(rows, chunks, -1, new EventEmitter())) });
    expect(again.json()).toEqual({ imported: rows, failed: 0, errors: [] });
  });

  it('bank import: rolled back whole too', async () => {
    const db = join(tmp.dir, 'bank.db');
    const signals = new EventEmitter();
    async function* pieces(ctrlCAt: number) {
      yield 'customer_id,date,amount,description\n';
      for (let c = 0; c < 4; c++) {
        if (c === ctrlCAt) signals.emit('SIGINT');
        let text = '';
        for (let i = 0; i < 500; i++) text += `C${c * 500 + i},2026-10-25,1500.00,SALARY\n`;
        yield Buffer.from(text);
      }
    }
    const r = await cli(db, ['--seed', '1', 'bank', 'import', '-'], { signals, prepare: (ctx) => (ctx.stdin = Readable.from(pieces(2))) });
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('Stopped by Ctrl-C: nothing was imported (the import was rolled back whole).\n');
    // The same rows import whole afterwards: none is a duplicate of a kept one.
    const again = await cli(db, ['--json', 'bank', 'import', '-'], { prepare: (ctx) => (ctx.stdin = Readable.from(pieces(-1))) });
    expect(again.json()).toEqual({ imported: 2000, failed: 0, errors: [] });
  });

  // A terminal with nothing typed yet, or a stalled pipe: no chunk comes, and Ctrl-C must not wait for one.
  it.each([
    ['policies', 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,LIFE,10.00\n'],
    ['bank', 'customer_id,date,amount,description\nC1,2026-10-25,1500.00,SALARY\n'],
  ])('%s import from a stdin that sends nothing more: Ctrl-C stops the wait, rolled back whole, exit 130', async (what, text) => {
    const db = join(tmp.dir, `waiting-${what}.db`);
    const signals = new EventEmitter();
    const stdin = new PassThrough();
    stdin.write(text); // and never ended
    const r = await cli(db, ['--seed', '1', what, 'import', '-'], {
      signals,
      prepare: (ctx) => {
        ctx.stdin = stdin;
        // Pressed once the import listens for it and has read all there is: it waits for more.
        signals.on('newListener', (event) => {
          if (event !== 'SIGINT') return;
          const press = () => (stdin.readableLength === 0 ? setTimeout(() => signals.emit('SIGINT'), 50) : setTimeout(press, 10));
          press();
        });
      },
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('Stopped by Ctrl-C: nothing was imported (the import was rolled back whole).\n');
    // The same rows import afterwards: none was kept.
    expect((await cli(db, ['--json', what, 'import', '-'], { stdin: text })).json()).toEqual({ imported: 1, failed: 0, errors: [] });
  }); // before the fix it waited for the input for ever (the suite's timeout ends it)
});

describe('simulate', () => {
  it('--months 3 stops after the day it was pressed in and says how far it got', async () => {
    const signals = new EventEmitter();
    const db = join(tmp.dir, 'sim.db');
    const r = await runCli(['--db', db, 'simulate', '--months', '3', '--out', join(tmp.dir, 'sim')], { cwd: tmp.dir, signals, prepare: ctrlCAfter('2026-11-05', signals) });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'Ctrl-C: stopping after the day in progress (press Ctrl-C again to quit at once).\n' +
        `Stopped by Ctrl-C on 2026-11-05, in month 1 of 3 (2026-11): no month was completed; the store ${db} is at 2026-11-05 ` +
        '(premia clock advance carries it on by hand; simulate starts only on a new store).\n',
    );
    expect((await cli(db, ['--json', 'clock'])).json().date).toBe('2026-11-05');
    // As said: the month carries on by hand; simulate itself refuses the store.
    expect((await cli(db, ['--yes', '--json', 'clock', 'advance', '--to', '2026-11-30'])).json().to).toBe('2026-11-30');
    const again = await cli(db, ['simulate']);
    expect([again.code, again.stderr]).toEqual([6, expect.stringContaining(`The store ${db} already has a collections run; simulate needs a new store`)]);
  });

  // The stop is said as a status line is: a control character of the store's name was written raw.
  it('names the store with its control characters escaped', async () => {
    const signals = new EventEmitter();
    const db = join(tmp.dir, 'sim\u001b[2J.db');
    const r = await runCli(['--db', db, 'simulate', '--out', join(tmp.dir, 'sim-escaped')], { cwd: tmp.dir, signals, prepare: ctrlCAfter('2026-11-02', signals) });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      130,
      '',
      'Ctrl-C: stopping after the day in progress (press Ctrl-C again to quit at once).\n' +
        `Stopped by Ctrl-C on 2026-11-02, in month 1 of 1 (2026-11): no month was completed; the store ${tmp.dir}/sim\\u001b[2J.db is at 2026-11-02 ` +
        '(premia clock advance carries it on by hand; simulate starts only on a new store).\n',
    ]);
  });
});

describe('remote mode', () => {
  let hung: Server;
  let arrived: (path: string) => void;
  beforeAll(async () => {
    // A service that takes the request and never answers (a long advance on a big book).
    hung = createServer((req) => {
      req.resume();
      arrived(`${req.method} ${req.url}`);
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    hung.closeAllConnections();
    await new Promise((resolve) => hung.close(resolve));
  });

  it.each([
    [['--yes', 'clock', 'advance', '--days', '30'], 'POST /v1/clock/advance', "Ctrl-C: no longer waiting for the service.\nStopped by Ctrl-C: premia stopped waiting for the service, which may still finish the advance; 'premia clock' shows the date it has reached.\n"],
    [['policies', 'import', join(FIXTURES, 'policies.csv')], 'POST /v1/policies/import', 'Stopped by Ctrl-C: premia stopped waiting for POST /v1/policies/import; the service may still finish it.\n'],
  ])('%j: the request is abandoned, exit 130, saying the service may still finish it', async (args, request, stderr) => {
    const signals = new EventEmitter();
    arrived = (seen) => {
      if (seen === request) signals.emit('SIGINT');
    };
    const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/v1`;
    const r = await runCli(args, { cwd: tmp.dir, signals, env: { ...remoteEnv(url, 'pmk_test'), NO_COLOR: '1' } });
    expect(r.code).toBe(130);
    expect(r.stderr).toBe(stderr);
  });
});

describe('catchCtrlC', () => {
  it('the first Ctrl-C aborts and removes every SIGINT listener, so a second one has the default effect (the process ends at once)', () => {
    const signals = new EventEmitter();
    const other = () => {};
    signals.on('SIGINT', other); // e.g. a spinner library's cursor restorer
    let stopping = 0;
    const ctrlC = catchCtrlC({ signals }, () => stopping++);
    expect(ctrlC.signal.aborted).toBe(false);
    signals.emit('SIGINT');
    expect([ctrlC.signal.aborted, stopping, signals.listenerCount('SIGINT')]).toEqual([true, 1, 0]);
    ctrlC.release();
    expect(signals.listenerCount('SIGINT')).toBe(0); // stopped by Ctrl-C: nothing is let pass any more
  });

  it('release() removes its own listener, leaves the others, and lets the next Ctrl-C pass once', () => {
    const signals = new EventEmitter();
    const other = () => {};
    signals.on('SIGINT', other);
    let stopping = 0;
    const ctrlC = catchCtrlC({ signals }, () => stopping++);
    ctrlC.release();
    expect(signals.listeners('SIGINT')[0]).toBe(other);
    expect(signals.listenerCount('SIGINT')).toBe(2);
    signals.emit('SIGINT');
    expect([ctrlC.signal.aborted, stopping, signals.listeners('SIGINT')]).toEqual([false, 0, [other]]);
  });
});

describe('an advance that fails after some days committed', () => {
  it('says where the clock is and the --to that finishes it (a rerun of --days would go too far)', async () => {
    const db = copyOfBase();
    const failing = afterDay('2026-11-02', () => {
      throw new Error('the disk is full');
    });
    const r = await cli(db, ['clock', 'advance', '--days', '5'], { prepare: failing });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "premia: 2 days of this advance committed before it stopped: the clock is at 2026-11-02. To finish this advance, run 'premia clock advance --to 2026-11-05' (--days would count from 2026-11-02).\n",
    );
    expect((await cli(db, ['--json', 'clock'])).json()).toMatchObject({ date: '2026-11-02' });
    // --json keeps stderr to the error body alone.
    const db2 = copyOfBase();
    const j = await cli(db2, ['--json', 'clock', 'advance', '--days', '5'], { prepare: failing });
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stderr).error.code).toBe('INTERNAL');
  });
});

describe('db copy between two store files', () => {
  it('a Ctrl-C delivered while the copy runs stops it and rolls it back: the store copied over holds what it held', async () => {
    // The operator meant to back the live store up, wrote --from and --to the wrong way round
    // with --yes, and pressed Ctrl-C at once. A real Ctrl-C reaches premia as an event of the
    // loop (process 'SIGINT'), not in the middle of a synchronous call: here it is sent from the
    // loop's next turn once the first table has been written. A copy that never gave the loop a
    // turn saw it only when done, and replaced the live store (exit 0).
    const live = copyOfBase();
    const backup = join(tmp.dir, 'backup.db');
    expect((await cli(backup, ['--seed', '1', 'clock', 'set', '2026-10-31'])).code).toBe(0);
    const before = (await cli(live, ['policies', 'list', '--format', 'csv'])).stdout;
    const signals = new EventEmitter();
    const r = await cli(live, ['--yes', 'db', 'copy', '--from', backup, '--to', live], {
      signals,
      prepare: (ctx) => {
        const copy = ctx.copyStore;
        ctx.copyStore = (request) => {
          let pressed = false;
          return copy({
            ...request,
            onTable: (table, rows) => {
              request.onTable?.(table, rows);
              if (!pressed) setImmediate(() => signals.emit('SIGINT'));
              pressed = true;
            },
          });
        };
      },
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Stopped by Ctrl-C: nothing was copied (the copy was rolled back whole); ${live} holds what it held before.\n`);
    expect((await cli(live, ['policies', 'list', '--format', 'csv'])).stdout).toBe(before);
    expect(before.split('\n')).toHaveLength(522);
  });
});
