/**
 * The engine's helper (engine/ports.ts EngineHelper): another process that opens the later half
 * of the accounts of a large working set read from the collections (the first advance of a
 * store, after a bank import, or a month's first advance after its run was queued, the accounts
 * then from the engine's image), as the simulated bank and the engine's summaries open them,
 * while the engine reads its collections and opens the first half (issue 13). Only for the simulated bank
 * on a SQLite file store: the helper reads the store on its own read-only connection
 * (account-helper-worker.ts), its customers too, so that it starts with the load.
 *
 * A process rather than a thread: the helper's own working set (~250 MB at a million policies)
 * goes back to the system when it exits, where a worker thread's stays with the C allocator for
 * the rest of the advance and raises its peak above an advance with no helper. What it answers
 * (the accounts as image blocks, ~64 MB at 1M, and the generated profiles it drew, which the
 * engine's bank copies) passes through a temporary file both hold open and nobody can see:
 * removed from its directory before anything is written to it, so nothing of a client's data
 * outlives the two processes.
 * Only a few bytes go over the IPC channel, which the engine's thread does not read while it
 * opens its own half.
 */
import { fork } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmdirSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workerModule } from '../../lib/worker-module.js';
import type { Period } from '../../domain/period.js';
import type { EngineHelper, HelperAnswer, HelperJob } from '../../engine/ports.js';
import type { Store } from '../../store/store.js';

/** The file descriptor the helper finds the exchange file on (stdio index). */
export const EXCHANGE_FD = 4;

/**
 * What the helper answers over IPC: the customers it found, how many of its half it opened from the
 * engine's image, and where its blocks are in the
 * exchange file (`length` bytes from its start; block k at `offsets[k]`, a multiple of 8,
 * `sizes[k]` bytes long), and the bank's own part (HelperAnswer.bank: the accounts' generated
 * profiles) at `bank.offset`.
 */
export type AccountHelperOut =
  | { type: 'blocks'; customers: number; resumed: number; length: number; offsets: number[]; sizes: number[]; bank?: { offset: number; size: number } }
  | { type: 'failed'; message: string };

/** The helper's compiled module, or null (from TypeScript sources it is taken from dist/, which `npm test` builds first). */
function helperModule(): URL | null {
  return workerModule(import.meta.url, 'backend/local', 'account-helper-worker.js', 'PREMIA_ACCOUNT_HELPER');
}

/** A file open for reading and writing, already gone from its (private, temporary) directory where the system allows. */
function exchangeFile(): { fd: number; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'premia-helper-'));
  const path = join(dir, 'exchange');
  const fd = openSync(path, 'w+', 0o600);
  const remove = () => {
    try {
      unlinkSync(path);
    } catch {
      // gone already
    }
    try {
      rmdirSync(dir);
    } catch {
      // gone already
    }
  };
  remove(); // where an open file cannot be removed (Windows), it is removed once closed
  return { fd, remove };
}

/** `length` bytes of the exchange file `fd` from byte `at` (the engine's read of the answer). */
function readExchange(fd: number, at: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let got = 0; got < length; ) {
    const n = readSync(fd, out, got, length - got, at + got);
    if (n === 0) throw new Error("the account helper's exchange file is shorter than it should be");
    got += n;
  }
  return out;
}

/** A helper on `store`, when it is a SQLite file store (undefined otherwise); `minCollections`: see EngineHelper. */
export function accountHelper(store: Store, minCollections?: number): EngineHelper | undefined {
  const module = helperModule();
  if (store.kind !== 'sqlite' || store.path === ':memory:' || store.path === '' || module === null) return undefined;
  const path = store.path;
  return {
    minCollections,
    openLaterHalf(firstOpen: Period, today: number, fromImage = false): HelperJob {
      let exchange: ReturnType<typeof exchangeFile> | undefined;
      let child: ReturnType<typeof fork> | undefined;
      const stop = () => {
        if (child && child.exitCode === null && child.signalCode === null) child.kill();
      };
      // Whatever fails here (no temporary directory, no process) rejects: the engine then opens
      // this half itself.
      const answer = new Promise<HelperAnswer>((resolve, reject) => {
        exchange = exchangeFile();
        const fd = exchange.fd;
        // Nothing on stdout (premia's own output); errors on stderr; no flags of this process's
        // (a test runner's, a profiler's) carried over.
        const stdio = ['ignore', 'ignore', 'inherit', 'ipc', fd] as const;
        child = fork(fileURLToPath(module), [path, firstOpen, String(today), fromImage ? 'image' : 'replay'], { stdio: [...stdio], execArgv: [] });
        child.once('message', (m: AccountHelperOut) => {
          if (m.type === 'failed') {
            reject(new Error(`the account helper failed: ${m.message}`));
            return;
          }
          try {
            // One buffer of its own (offset 0): the blocks keep the 8-byte alignment their views need;
            // the bank's part in another, so that neither keeps the other from being freed.
            const all = readExchange(fd, 0, m.bank ? m.bank.offset : m.length);
            const bank = m.bank ? readExchange(fd, m.bank.offset, m.bank.size) : undefined;
            resolve({ customers: m.customers, resumed: m.resumed, blocks: m.sizes.map((size, k) => all.subarray(m.offsets[k], m.offsets[k]! + size)), bank });
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        });
        child.once('error', reject);
        // After its messages (the channel is closed by then).
        child.once('close', (code, signal) => reject(new Error(`the account helper stopped (${signal ?? `exit code ${code}`})`)));
      }).finally(() => {
        if (child) {
          // Its handle lives until its exit is seen, and with it these listeners, which hold the
          // promise and so its answer (~64 MB at 1M): the engine's thread may not look for a while.
          child.removeAllListeners('message').removeAllListeners('close').removeAllListeners('error');
          child.on('error', () => {}); // a late one (its kill below) is nobody's concern now
          // It exits once disconnected (or at once, if it is still working: the advance gave up).
          if (child.connected) child.disconnect();
          stop();
        }
        if (exchange) {
          closeSync(exchange.fd);
          exchange.remove();
        }
      });
      answer.catch(() => {}); // a failure is seen by whoever awaits the answer; a cancelled job's by nobody
      return { answer, cancel: stop };
    },
  };
}
