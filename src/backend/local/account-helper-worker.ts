/**
 * The account helper's worker (account-helper.ts): opens the accounts it is given on a
 * read-only connection to the store, as the engine's load would (the simulated bank replays them
 * to the clock's date, reporting their days to the engine's summaries, whose income analyses it
 * then makes), and sends them back as image blocks (engine/image.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { encodeAccounts } from '../../engine/image.js';
import type { IncomeAnalysis } from '../../engine/income.js';
import { engineSettings } from '../../engine/settings.js';
import { AccountSummaries, analysisDay } from '../../engine/summary.js';
import { getAllMeta } from '../../store/repos/meta.js';
import { openStore } from '../../store/store.js';
import type { AccountHelperData, AccountHelperOut } from './account-helper.js';
import { simulatedBankOn } from './engine.js';

const data = workerData as AccountHelperData;
const post = (m: AccountHelperOut, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(m, transfer);

try {
  const store = await openStore({ path: data.path, create: false, readonly: true });
  try {
    const settings = engineSettings(await getAllMeta(store.db));
    const customers = { clientId: data.clientIds, customerId: data.customerIds.split('\n') };
    const summaries = new AccountSummaries(customers.customerId.length, analysisDay(data.today), settings.calendar);
    const accounts = await simulatedBankOn(store).openAccounts(customers, data.today, summaries.postedDays(data.today));
    const scratch = {} as IncomeAnalysis;
    for (let i = 0; i < accounts.size; i++) summaries.analysis(accounts, i, scratch);
    const blocks: Uint8Array[] = [];
    for (const b of encodeAccounts(accounts, summaries)) blocks.push(b.data.slice());
    post({ type: 'blocks', blocks }, blocks.map((b) => b.buffer as ArrayBuffer));
  } finally {
    await store.close();
  }
} catch (e) {
  post({ type: 'failed', message: (e as Error).message });
}
