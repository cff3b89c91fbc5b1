/**
 * The engine's helper (engine/ports.ts EngineHelper): a worker thread that opens half the
 * accounts of a large working set that has no image (the first advance of a store, or after a
 * bank import), as the simulated bank and the engine's summaries open them, while the engine
 * opens the other half (issue 13). Only for the simulated bank on a SQLite file store: the worker
 * reads the store on its own read-only connection (account-helper-worker.ts).
 */
import { Worker } from 'node:worker_threads';
import { workerModule } from '../../lib/worker-module.js';
import type { CustomerRefs, EngineHelper } from '../../engine/ports.js';
import type { Store } from '../../store/store.js';

/** What the worker is started with. */
export interface AccountHelperData {
  path: string;
  clientIds: Int32Array;
  /** The customer ids, joined by newlines (identifiers hold none). */
  customerIds: string;
  today: number;
}

export type AccountHelperOut = { type: 'blocks'; blocks: Uint8Array[] } | { type: 'failed'; message: string };

/** The worker's compiled module, or null (from TypeScript sources it is taken from dist/, which `npm test` builds first). */
function helperModule(): URL | null {
  return workerModule(import.meta.url, 'backend/local', 'account-helper-worker.js', 'PREMIA_ACCOUNT_HELPER');
}

/** A helper on `store`, when it is a SQLite file store (undefined otherwise); `minAccounts`: see EngineHelper. */
export function accountHelper(store: Store, minAccounts?: number): EngineHelper | undefined {
  const module = helperModule();
  if (store.kind !== 'sqlite' || store.path === ':memory:' || store.path === '' || module === null) return undefined;
  const path = store.path;
  return {
    minAccounts,
    openAccounts(customers: CustomerRefs, today: number): Promise<Uint8Array[]> {
      const data: AccountHelperData = { path, clientIds: Int32Array.from(customers.clientId), customerIds: customers.customerId.join('\n'), today };
      const worker = new Worker(module, { workerData: data });
      return new Promise<Uint8Array[]>((resolve, reject) => {
        worker.once('message', (m: AccountHelperOut) => {
          if (m.type === 'blocks') resolve(m.blocks);
          else reject(new Error(`the account helper failed: ${m.message}`));
        });
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`the account helper stopped (exit code ${code})`)));
      }).finally(() => void worker.terminate());
    },
  };
}
