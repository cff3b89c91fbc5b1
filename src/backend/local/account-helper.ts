/**
 * The engine's helper (engine/ports.ts EngineHelper): another process that opens half the
 * accounts of a large working set that has no image (the first advance of a store, or after a
 * bank import), as the simulated bank and the engine's summaries open them, while the engine
 * opens the other half (issue 13). Only for the simulated bank on a SQLite file store: the helper
 * reads the store on its own read-only connection (account-helper-worker.ts).
 *
 * A process rather than a thread: the helper's own working set (~250 MB at a million policies)
 * goes back to the system when it exits, where a worker thread's stayed with the C allocator for
 * the rest of the advance (the 1M month peaked at ~950 MiB with a helper thread, ~800 MiB with no
 * helper). What it is given and what it answers (the accounts as image blocks, ~64 MB at 1M)
 * pass through a temporary file both hold open and nobody can see: removed from its directory
 * before anything is written to it, so nothing of a client's data outlives the two processes.
 * Only a few bytes go over the IPC channel, which the engine's thread does not read while it
 * opens its own half.
 */
import { fork } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workerModule } from '../../lib/worker-module.js';
import type { CustomerRefs, EngineHelper } from '../../engine/ports.js';
import type { Store } from '../../store/store.js';

/** The file descriptor the helper finds the exchange file on (stdio index). */
export const EXCHANGE_FD = 4;

/**
 * What the helper is given, at the start of the exchange file: a header (HEADER_INTS Int32:
 * today, the count, the bytes of the customer ids), the client ids (Int32), then the customer
 * ids joined by newlines (identifiers hold none), UTF-8.
 */
export const HEADER_INTS = 3;

/**
 * What the helper answers over IPC: where its blocks are in the exchange file (from byte `at`,
 * `length` bytes; block k at `offsets[k]` from there, a multiple of 8, `sizes[k]` bytes long).
 */
export type AccountHelperOut = { type: 'blocks'; at: number; length: number; offsets: number[]; sizes: number[] } | { type: 'failed'; message: string };

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

/** `length` bytes of the exchange file `fd` from byte `at` (the helper's and the engine's reads). */
export function readExchange(fd: number, at: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let got = 0; got < length; ) {
    const n = readSync(fd, out, got, length - got, at + got);
    if (n === 0) throw new Error("the account helper's exchange file is shorter than it should be");
    got += n;
  }
  return out;
}

/** The input of the exchange file for `customers` as of `today`. */
function input(customers: CustomerRefs, today: number): Buffer {
  const ids = Buffer.from(customers.customerId.join('\n'), 'utf8');
  const n = customers.customerId.length;
  const head = new Int32Array(HEADER_INTS + n);
  head[0] = today;
  head[1] = n;
  head[2] = ids.length;
  for (let k = 0; k < n; k++) head[HEADER_INTS + k] = customers.clientId[k]!;
  return Buffer.concat([Buffer.from(head.buffer, head.byteOffset, head.byteLength), ids]);
}

/** A helper on `store`, when it is a SQLite file store (undefined otherwise); `minAccounts`: see EngineHelper. */
export function accountHelper(store: Store, minAccounts?: number): EngineHelper | undefined {
  const module = helperModule();
  if (store.kind !== 'sqlite' || store.path === ':memory:' || store.path === '' || module === null) return undefined;
  const path = store.path;
  return {
    minAccounts,
    openAccounts(customers: CustomerRefs, today: number): Promise<Uint8Array[]> {
      // Made here and let go of once written: the closures below live as long as the process
      // handle, and would keep the customers' ids with them.
      let given: Buffer | null = input(customers, today);
      let exchange: ReturnType<typeof exchangeFile> | undefined;
      let child: ReturnType<typeof fork> | undefined;
      // Whatever fails here (no temporary directory, no process) rejects: the engine then opens
      // this half itself.
      return new Promise<Uint8Array[]>((resolve, reject) => {
        exchange = exchangeFile();
        const fd = exchange.fd;
        writeSync(fd, given!, 0, given!.length, 0);
        given = null;
        // Nothing on stdout (premia's own output); errors on stderr; no flags of this process's
        // (a test runner's, a profiler's) carried over.
        const stdio = ['ignore', 'ignore', 'inherit', 'ipc', fd] as const;
        child = fork(fileURLToPath(module), [path], { stdio: [...stdio], execArgv: [] });
        child.once('message', (m: AccountHelperOut) => {
          if (m.type === 'failed') {
            reject(new Error(`the account helper failed: ${m.message}`));
            return;
          }
          try {
            // One buffer of its own (offset 0): the blocks keep the 8-byte alignment their views need.
            const all = readExchange(fd, m.at, m.length);
            resolve(m.sizes.map((size, k) => all.subarray(m.offsets[k], m.offsets[k]! + size)));
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
          if (child.exitCode === null && child.signalCode === null) child.kill();
        }
        if (exchange) {
          closeSync(exchange.fd);
          exchange.remove();
        }
      });
    },
  };
}
