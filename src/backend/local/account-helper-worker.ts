/**
 * The account helper's process (account-helper.ts): opens the accounts it is given on a
 * read-only connection to the store, as the engine's load would (the simulated bank replays them
 * to the clock's date, reporting their days to the engine's summaries, whose income analyses it
 * then makes), and answers them as image blocks (engine/image.ts), written after what it was
 * given in the exchange file it inherits. It exits when the engine disconnects (it has the
 * answer, or the advance stopped or died).
 */
import { writeSync } from 'node:fs';
import { encodeAccounts } from '../../engine/image.js';
import type { IncomeAnalysis } from '../../engine/income.js';
import { engineSettings } from '../../engine/settings.js';
import { AccountSummaries, analysisDay } from '../../engine/summary.js';
import { getAllMeta } from '../../store/repos/meta.js';
import { openStore } from '../../store/store.js';
import { EXCHANGE_FD, HEADER_INTS, readExchange, type AccountHelperOut } from './account-helper.js';
import { simulatedBankOn } from './engine.js';

/** The answer, unless the engine has gone (disconnected: this process is on its way out). */
const post = (m: AccountHelperOut) => {
  if (process.connected) process.send!(m);
};
process.once('disconnect', () => process.exit(0));
// Ctrl-C at a terminal reaches the whole process group: the engine stops after the day it is
// living, and that day's load needs this half.
process.on('SIGINT', () => {});

const read = (at: number, length: number) => readExchange(EXCHANGE_FD, at, length);

async function open(path: string): Promise<void> {
  try {
    const head = new Int32Array(read(0, 4 * HEADER_INTS).buffer);
    const [today, n, idBytes] = [head[0]!, head[1]!, head[2]!];
    const clientIds = new Int32Array(read(4 * HEADER_INTS, 4 * n).buffer);
    const inputEnd = 4 * (HEADER_INTS + n) + idBytes;
    const customerIds = Buffer.from(read(4 * (HEADER_INTS + n), idBytes)).toString('utf8').split('\n');
    const store = await openStore({ path, create: false, readonly: true });
    try {
      const settings = engineSettings(await getAllMeta(store.db));
      const customers = { clientId: clientIds, customerId: customerIds };
      const summaries = new AccountSummaries(customerIds.length, analysisDay(today), settings.calendar);
      const accounts = await simulatedBankOn(store).openAccounts(customers, today, summaries.postedDays(today));
      const scratch = {} as IncomeAnalysis;
      for (let i = 0; i < accounts.size; i++) summaries.analysis(accounts, i, scratch);
      // The answer from the first multiple of 8 after the input, each block on a multiple of 8.
      const at = inputEnd + ((8 - (inputEnd % 8)) % 8);
      const offsets: number[] = [];
      const sizes: number[] = [];
      let length = 0;
      for (const b of encodeAccounts(accounts, summaries)) {
        length += (8 - (length % 8)) % 8;
        for (let put = 0; put < b.data.length; ) put += writeSync(EXCHANGE_FD, b.data, put, b.data.length - put, at + length + put);
        offsets.push(length);
        sizes.push(b.data.length);
        length += b.data.length;
      }
      post({ type: 'blocks', at, length, offsets, sizes });
    } finally {
      await store.close();
    }
  } catch (e) {
    post({ type: 'failed', message: (e as Error).message });
  }
}

void open(process.argv[2]!);
