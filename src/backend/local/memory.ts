/**
 * The engine's hooks at the edge of the process: memory tuning for large working sets, debug
 * logs, and fault injection for the crash tests. Read from the environment once, when the local
 * backend is made (docs/bank-and-clock.md, "The virtual clock": PREMIA_FAULT=kill-before-commit:YYYY-MM-DD kills the
 * process just before that day commits; kill-after-day:YYYY-MM-DD once that day has committed, days
 * still handed over to the store's writer; kill-in-shard:YYYY-MM-DD inside a shard of that day, stop-before-commit:YYYY-MM-DD stops it (SIGSTOP) just before that day commits (docs/postgresql.md); PREMIA_DEBUG_MEM logs the heap after the load and at the
 * end; PREMIA_DEBUG_HEAPSNAPSHOT=FILE writes a heap snapshot after the load).
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { EngineHooks } from '../../engine/advance.js';

export interface EngineOptions {
  /** Kill the process with SIGKILL just before this day commits. */
  killBeforeCommit?: string;
  /**
   * Kill the process with SIGKILL once this day has committed, as it is reported: unlike
   * killBeforeCommit it keeps the days handed over to the store's day writer, which may be writing
   * the next day at that moment (the path of every advance that asks for no fault).
   */
  killAfterDay?: string;
  /**
   * Stop the process (SIGSTOP) just before this day commits: a holder that stops answering with its
   * day's transaction open, as one frozen or on a machine cut off does (docs/postgresql.md).
   */
  stopBeforeCommit?: string;
  /** Kill the process with SIGKILL inside the first shard of this day it lives, before the shard commits (engine/shards.ts). */
  killInShard?: string;
  /** Throw just before this day commits (the day rolls back; the tests' failure in the middle of a month). */
  failBeforeCommit?: string;
  debugMemory?: boolean;
  heapSnapshot?: string;
}

export function engineOptionsFromEnv(env: NodeJS.ProcessEnv): EngineOptions {
  return {
    killBeforeCommit: /^kill-before-commit:(\d{4}-\d{2}-\d{2})$/.exec(env.PREMIA_FAULT ?? '')?.[1],
    killAfterDay: /^kill-after-day:(\d{4}-\d{2}-\d{2})$/.exec(env.PREMIA_FAULT ?? '')?.[1],
    stopBeforeCommit: /^stop-before-commit:(\d{4}-\d{2}-\d{2})$/.exec(env.PREMIA_FAULT ?? '')?.[1],
    killInShard: /^kill-in-shard:(\d{4}-\d{2}-\d{2})$/.exec(env.PREMIA_FAULT ?? '')?.[1],
    debugMemory: Boolean(env.PREMIA_DEBUG_MEM),
    heapSnapshot: env.PREMIA_DEBUG_HEAPSNAPSHOT || undefined,
  };
}

/** A working set this large is followed by a full collection (smaller ones are left to V8). */
const LARGE_WORKING_SET = 50_000;
/** Heap growth since the last full collection that triggers another. */
const HEAP_GROWTH = 96 << 20;

/** The hooks of one advance. */
export function engineHooks(options: EngineOptions): EngineHooks {
  /** The heap in use after the last full collection (0: none done, a small working set). */
  let heapAfterGc = 0;
  return {
    loaded(collections) {
      // Loading a million-policy month leaves over a hundred MB of temporaries behind, and V8
      // sizes its heap from that peak: without a full collection here the heap of a long advance
      // drifts up to several times its live set.
      if (collections >= LARGE_WORKING_SET) heapAfterGc = collectGarbage();
      if (options.debugMemory) memLog('after load');
      if (options.heapSnapshot) v8.writeHeapSnapshot(options.heapSnapshot);
    },
    // Only when a fault is asked for: a hook before each commit keeps the days from being
    // handed over to the store's writer before they commit (engine/advance.ts).
    beforeCommit:
      options.killBeforeCommit === undefined && options.failBeforeCommit === undefined && options.stopBeforeCommit === undefined
        ? undefined
        : (date) => {
            if (options.killBeforeCommit === date) process.kill(process.pid, 'SIGKILL');
            if (options.stopBeforeCommit === date) process.kill(process.pid, 'SIGSTOP');
            if (options.failBeforeCommit === date) throw new Error(`injected failure before ${date} commits`);
          },
    beforeShardCommit:
      options.killInShard === undefined
        ? undefined
        : (date) => {
            if (options.killInShard === date) process.kill(process.pid, 'SIGKILL');
          },
    dayDone(date) {
      if (options.killAfterDay === date) process.kill(process.pid, 'SIGKILL');
      if (options.debugMemory) memLog('day committed');
      // What a day allocates lives until its writes, so it reaches the old generation, and V8
      // (sized from the machine's memory, not the advance's) lets that garbage grow by hundreds
      // of MB before collecting it. A full collection when the heap has grown by HEAP_GROWTH
      // since the last one (every few days at 1M; tens of milliseconds each) keeps it flat.
      if (heapAfterGc > 0 && v8.getHeapStatistics().used_heap_size > heapAfterGc + HEAP_GROWTH) heapAfterGc = collectGarbage();
    },
    finished() {
      if (options.debugMemory) memLog('end of advance');
    },
  };
}

let fullGc: (() => void) | null | undefined;

/** A full garbage collection, where V8 allows one (it costs tens of milliseconds). Returns the heap in use after it. */
function collectGarbage(): number {
  if (fullGc === undefined) {
    fullGc = (globalThis as { gc?: () => void }).gc ?? null;
    if (fullGc === null) {
      try {
        v8.setFlagsFromString('--expose-gc');
        fullGc = runInNewContext('gc') as () => void;
      } catch {
        fullGc = null;
      }
    }
  }
  fullGc?.();
  return v8.getHeapStatistics().used_heap_size;
}

function memLog(what: string): void {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const cpu = process.cpuUsage();
  process.stderr.write(
    `[mem] ${what} at ${process.uptime().toFixed(2)} s (cpu ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s): ` +
      `heap ${(m.heapUsed / 1e6).toFixed(0)} MB, rss ${(m.rss / 1e6).toFixed(0)} MB, external ${(m.external / 1e6).toFixed(0)} MB\n`,
  );
}
