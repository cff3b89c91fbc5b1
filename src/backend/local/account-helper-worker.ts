/**
 * The account helper's process (account-helper.ts): on a read-only connection to the store, finds
 * the working set's customers as the engine's load will, and opens the later half of their
 * accounts as the load would (the simulated bank replays them to the clock's date, reporting
 * their days to the engine's summaries, whose income analyses it then makes; asked to, it opens
 * those the engine's image holds from there and brings them up to that date), and answers them
 * as image blocks (engine/image.ts) written to the exchange file it inherits. It exits when the
 * engine disconnects (it has the answer, or the advance stopped or died).
 */
import { writeSync } from 'node:fs';
import type { FailureReason } from '../../domain/debit-outcome.js';
import type { Period } from '../../domain/period.js';
import type { KeptAccounts } from '../../engine/ports.js';
import { catchUpAccount } from '../../engine/awake.js';
import { encodeAccounts, keepFromBlock } from '../../engine/image.js';
import type { IncomeAnalysis } from '../../engine/income.js';
import { engineSettings } from '../../engine/settings.js';
import { AccountSummaries, analysisDay } from '../../engine/summary.js';
import { getAllMeta } from '../../store/repos/meta.js';
import { openStore } from '../../store/store.js';
import { openCustomers, readImageBlocksOn } from '../../store/repos/engine.js';
import { EXCHANGE_FD, type AccountHelperOut } from './account-helper.js';
import { SimulatedBank } from '../../bank/simulated.js';
import { bankStore } from '../../store/repos/bank.js';

/**
 * The answer, unless the engine has gone: disconnected, or killed while this process was busy
 * (the channel then fails as it is written: EPIPE), this process just ends, quietly.
 */
const post = (m: AccountHelperOut) => {
  if (!process.connected) process.exit(0);
  process.send!(m, undefined, undefined, (e) => {
    if (e) process.exit(0);
  });
};
process.once('disconnect', () => process.exit(0));
// The channel's own errors (the engine gone mid-write) end it the same way, not with a stack.
process.on('error', () => process.exit(0));
// Ctrl-C at a terminal reaches the whole process group: the engine stops after the day it is
// living, and that day's load needs this half.
process.on('SIGINT', () => {});

async function open(path: string, firstOpen: Period, today: number, fromImage: boolean): Promise<void> {
  try {
    const store = await openStore({ path, create: false, readonly: true });
    try {
      if (store.kind !== 'sqlite') throw new Error('the account helper works on a SQLite store');
      const settings = engineSettings(await getAllMeta(store.db));
      const all = openCustomers(store.raw, firstOpen);
      const from = all.customerId.length >> 1;
      const customers = { clientId: all.clientId.slice(from), customerId: all.customerId.slice(from) };
      const n = customers.customerId.length;
      const summaries = new AccountSummaries(n, analysisDay(today), settings.calendar);
      // The accounts the engine's image holds, as kept (the engine checked that it is the one to use).
      let kept: KeptAccounts | undefined;
      let resumed = 0;
      if (fromImage) {
        const balance = new Float64Array(n).fill(Number.NaN);
        const lastLived = new Int32Array(n);
        kept = { balance, lastLived };
        const find = (clientId: number, customerId: string) => all.find(clientId, customerId) - from;
        readImageBlocksOn(store.raw, (data) => {
          resumed += keepFromBlock(data, summaries, find, kept!);
        });
        if (resumed === 0) kept = undefined;
      }
      // The simulated bank itself (the helper is for it alone): its accounts give their profiles.
      const accounts = await new SimulatedBank(bankStore(store)).openAccounts(customers, today, summaries.postedDays(today), kept);
      // Those opened as kept, brought up to today as the engine brings up a sleeping account.
      if (kept) {
        const outcomes: Array<FailureReason | null> = [];
        for (let i = 0; i < n; i++) catchUpAccount(accounts, summaries, outcomes, i, today);
      }
      const scratch = {} as IncomeAnalysis;
      for (let i = 0; i < accounts.size; i++) summaries.analysis(accounts, i, scratch);
      // The answer from the file's start, each block on a multiple of 8.
      const offsets: number[] = [];
      const sizes: number[] = [];
      let length = 0;
      const put = (data: Uint8Array): number => {
        length += (8 - (length % 8)) % 8;
        const at = length;
        for (let done = 0; done < data.length; ) done += writeSync(EXCHANGE_FD, data, done, data.length - done, at + done);
        length += data.length;
        return at;
      };
      for (const b of encodeAccounts(accounts, summaries)) {
        offsets.push(put(b.data));
        sizes.push(b.data.length);
      }
      // Their generated profiles too: the engine's bank copies them rather than drawing them again.
      const profiles = accounts.drawnProfiles();
      const bank = { offset: put(profiles), size: profiles.length };
      post({ type: 'blocks', customers: all.customerId.length, resumed, length, offsets, sizes, bank });
    } finally {
      await store.close();
    }
  } catch (e) {
    post({ type: 'failed', message: (e as Error).message });
  }
}

void open(process.argv[2]!, process.argv[3]!, Number(process.argv[4]), process.argv[5] === 'image');
