/**
 * Loading the engine's working set (state.ts): from the engine's image when nothing else changed
 * its inputs (only the customers that wake before the advance ends), else from the open
 * collections, with the accounts the image holds and the others replayed (image.ts).
 */
import { CustomerNumbers } from '../domain/customer.js';
import { isRetryable, type FailureReason } from '../domain/debit-outcome.js';
import { dayNumber, firstOpenPeriod, fromDayNumber, type IsoDate, type Period } from '../domain/period.js';
import { catchUp, catchUpAccount, sleepUntil } from './awake.js';
import { STATUS_BY_CODE } from '../domain/collection.js';
import { failureCode } from '../domain/debit-outcome.js';
import { CollectionSet, dayOrNone } from './collection-set.js';
import { quietThrough } from './day.js';
import { copyCollection, copySummaries, decodeBlock, imageTag, imageUse, keepFromBlock } from './image.js';
import type { IncomeAnalysis } from './income.js';
import type { Bank, BankAccounts, DayUnit, EngineHelper, HelperAnswer, HelperJob, KeptAccounts } from './ports.js';
import { engineSettings, type EngineSettings } from './settings.js';
import { EngineState } from './state.js';
import { strategyCode, takesDebitsOnTheDay } from './strategies.js';
import { AccountSummaries, analysisDay } from './summary.js';

/**
 * Load the working set as of the clock's date, in `unit`, for an advance whose last day is
 * `lastDay` (a day number: the image's customers waking after it are not read). `helper`: a
 * process that may open half the accounts; `world`: the world as the caller already read it in
 * this unit (else read here).
 */
export async function loadState(unit: DayUnit, bank: Bank, lastDay: number, options: { helper?: EngineHelper; world?: UnitWorld } = {}): Promise<EngineState> {
  const world = options.world ?? (await unit.readWorld());
  const settings = engineSettings(world.settings);
  const { tag, image, use } = await imageNow(unit, bank, world, settings);
  const state =
    use === 'all' ? await loadFromImage(unit, bank, world.today, settings, lastDay) : await loadFromCollections(unit, bank, world.today, settings, use === 'accounts', options.helper);
  state.imageTag = tag;
  state.inputsVersion = image?.inputs ?? -1;
  return state;
}

/** What a day's unit reads of the world (DayUnit.readWorld). */
type UnitWorld = Awaited<ReturnType<DayUnit['readWorld']>>;

/** The tag the working set is kept under (image.ts; '' when not kept), the image's head, and how a load may use it. */
async function imageNow(unit: DayUnit, bank: Bank, world: UnitWorld, settings: EngineSettings) {
  const tag = bank.resumes === true && unit.readImageHead ? imageTag(world.settings, settings.calendar) : '';
  const image = tag !== '' ? await unit.readImageHead!() : null;
  const use = image === null ? 'none' : imageUse(image.head, image.inputs, world.today, tag);
  return { tag, image, use };
}

/**
 * Whether the days after the clock's date (`world`: as the unit read it) up to `to` (a day
 * number) may pass without the working set, the clock alone moving: every one of them quiet, no
 * evening among them planning a debit
 * (day.ts quietThrough), no run of an open period taking debits on the day itself (the oracle),
 * and no image the next load would use (passing them would leave it behind: that load would
 * replay every account). Nothing is then lost or changed: the next advance loads the working set
 * as it would have been at the end of these days (the bank's accounts replayed through them) and
 * makes the evening of the last, as after a stop (advance.ts). A cron job advancing one day at a
 * time pays nothing for a weekend before the month's first load.
 */
export async function loadCanWait(unit: DayUnit, bank: Bank, world: UnitWorld, to: number): Promise<boolean> {
  if (unit.openStrategies === undefined) return false;
  const settings = engineSettings(world.settings);
  const today = dayNumber(world.today);
  if (!quietThrough(settings.calendar, settings.leadDays, today, to)) return false;
  const strategies = await unit.openStrategies(firstOpenPeriod(world.today));
  if (strategies.some((name) => takesDebitsOnTheDay(name))) return false;
  return (await imageNow(unit, bank, world, settings)).use === 'none';
}

/**
 * The customers being loaded, in load order, with their collections' first column; `numbers`,
 * when they were read from the collections: customer k is number k there (its lookup by id).
 */
class Customers {
  readonly clientId: number[];
  readonly customerId: string[];
  readonly firstCol: number[] = [];

  constructor(readonly numbers: CustomerNumbers | null = null) {
    this.clientId = numbers?.clientId ?? [];
    this.customerId = numbers?.customerId ?? [];
  }

  add(clientId: number, customerId: string, firstCol: number): void {
    this.clientId.push(clientId);
    this.customerId.push(customerId);
    this.firstCol.push(firstCol);
  }
}

/**
 * Copy `rows` (collection r of customer customerOf[r], policy number policyNumbers[r]) into
 * `cols` grouped by customer, in customer order, each customer's collections in policy_number
 * order; sets each customer's first column, each collection's account and their ranks
 * (collection-set.ts rankByPolicy: the policy numbers are not kept).
 */
function groupByCustomer(rows: CollectionSet, policyNumbers: readonly string[], customerOf: Int32Array, customers: Customers, cols: CollectionSet): void {
  const n = customers.customerId.length;
  const first = new Int32Array(n + 1);
  for (let r = 0; r < rows.n; r++) first[customerOf[r]! + 1]!++;
  for (let k = 0; k < n; k++) first[k + 1]! += first[k]!;
  const at = first.slice(0, n);
  const order = new Int32Array(Math.max(1, rows.n));
  for (let r = 0; r < rows.n; r++) {
    const k = customerOf[r]!;
    // Insertion in policy_number order among the customer's few collections.
    let j = at[k]!++;
    const number = policyNumbers[r]!;
    while (j > first[k]! && policyNumbers[order[j - 1]!]! > number) {
      order[j] = order[j - 1]!;
      j--;
    }
    order[j] = r;
  }
  for (const p of rows.periods) cols.periodIndex(p.period);
  for (let c = 0; c < rows.n; c++) {
    const r = order[c]!;
    cols.rowid[c] = rows.rowid[r]!;
    cols.account[c] = customerOf[r]!;
    cols.period[c] = rows.period[r]!;
    cols.strategy[c] = rows.strategy[r]!;
    cols.due[c] = rows.due[r]!;
    cols.collected[c] = rows.collected[r]!;
    cols.status[c] = rows.status[r]!;
    cols.firstDay[c] = rows.firstDay[r]!;
    cols.lastDay[c] = rows.lastDay[r]!;
    cols.attempts[c] = rows.attempts[r]!;
    cols.failed[c] = rows.failed[r]!;
    cols.failure[c] = rows.failure[r]!;
    cols.blocked[c] = rows.blocked[r]!;
  }
  cols.n = rows.n;
  for (let k = 0; k < n; k++) customers.firstCol[k] = first[k]!;
  // The columns in the rows' order: the order attempts are stored in, usually.
  const byRow = new Int32Array(rows.n);
  for (let c = 0; c < rows.n; c++) byRow[order[c]!] = c;
  cols.rankByPolicy(
    (c) => customers.clientId[cols.account[c]!]!,
    (c) => policyNumbers[order[c]!]!,
    byRow,
  );
}

/** The state of `customers` (collections in `cols`, ranked, accounts opened), every account active. */
function assemble(today: IsoDate, settings: EngineSettings, accounts: BankAccounts, summaries: AccountSummaries, cols: CollectionSet, customers: Customers): EngineState {
  const n = customers.customerId.length;
  const state = new EngineState(today, settings, accounts, summaries, cols, n);
  for (let k = 0; k < n; k++) {
    const start = customers.firstCol[k]!;
    const end = k + 1 < n ? customers.firstCol[k + 1]! : cols.n;
    state.colStart[k] = start;
    state.colCount[k] = end - start;
    for (let c = start; c < end; c++) if (state.planners[cols.strategy[c]!]!.debitsOnDay !== undefined) state.hasDayDebits[k] = 1;
  }
  return state;
}

/**
 * The open collections of periods from `firstOpen` on into `cols`, grouped by customer (customers
 * in the order they first come, each one's collections in policy_number order: the order the bank
 * takes debits), ranked. Its temporaries (a second set of columns, the policy numbers) are gone
 * once it returns.
 */
async function readOpenCollections(unit: DayUnit, firstOpen: Period, cols: CollectionSet): Promise<Customers> {
  const numbers = new CustomerNumbers(cols.capacity);
  const customers = new Customers(numbers);
  const rows = new CollectionSet(cols.capacity);
  const policyNumbers: string[] = [];
  const customerOf = new Int32Array(Math.max(1, cols.capacity));
  await unit.loadOpenCollections(firstOpen, (r) => {
    const c = rows.n++;
    customerOf[c] = numbers.number(r.clientId, r.customerId);
    rows.rowid[c] = r.id;
    policyNumbers[c] = r.policyNumber;
    rows.period[c] = rows.periodIndex(r.period);
    rows.strategy[c] = strategyCode(r.strategy);
    rows.due[c] = r.due;
    rows.collected[c] = r.collected;
    rows.status[c] = STATUS_BY_CODE.indexOf(r.status);
    rows.firstDay[c] = dayOrNone(r.firstAttempt);
    rows.lastDay[c] = dayOrNone(r.lastAttempt);
    rows.attempts[c] = r.attempts;
    rows.failed[c] = r.failed;
    rows.failure[c] = failureCode(r.lastFailure);
    rows.blocked[c] = r.status === 'CANCELLED' || r.policyStatus !== 'active' || (r.lastFailure !== null && !isRetryable(r.lastFailure)) ? 1 : 0;
  });
  groupByCustomer(rows, policyNumbers, customerOf, customers, cols);
  return customers;
}

/**
 * The working set from the open collections (in (client, customer, policy_number) order) and
 * their submitted debits; the accounts from the image when `fromImage` (as kept: a sleeping one
 * is then brought up to today), the others replayed by the bank.
 */
async function loadFromCollections(
  unit: DayUnit,
  bank: Bank,
  today: IsoDate,
  settings: EngineSettings,
  fromImage: boolean,
  helper: EngineHelper | undefined,
): Promise<EngineState> {
  const todayDay = dayNumber(today);
  // Open collections: those of periods whose last day has not run.
  const firstOpen = firstOpenPeriod(today);
  const cols = new CollectionSet(await unit.countOpenCollections(firstOpen));
  // A large working set: a helper opens the later half of its accounts (from the image, when it
  // holds them), starting now, while this thread reads the collections and then opens the first half.
  const helped = helper !== undefined && bank.resumes === true && cols.capacity >= (helper.minCollections ?? HELPED);
  const job = helped ? helper.openLaterHalf(firstOpen, todayDay, fromImage) : null;
  try {
    const customers = await readOpenCollections(unit, firstOpen, cols);

    // Debits submitted for the days after today (planned at most leadDays + 1 days ago). Read
    // before the accounts are opened: the rowid map and the replay's temporaries never coexist.
    if (cols.n > 0) {
      // Collections were read in customer order, not rowid order: find them by rowid (a map made
      // for the first debit: a new period has none).
      let byRowid: Map<number, number> | null = null;
      await unit.loadSubmittedDebits(fromDayNumber(todayDay - 1 - Math.max(2, settings.leadDays)), (p) => {
        if (p.day <= todayDay) return;
        if (byRowid === null) {
          byRowid = new Map<number, number>();
          for (let c = 0; c < cols.n; c++) byRowid.set(cols.rowid[c]!, c);
        }
        const c = byRowid.get(p.collection);
        if (c !== undefined) cols.addPending(c, p.day, p.amount);
      });
    }

    // Account k is customer k (client customers.clientId[k], customer customers.customerId[k]).
    const n = customers.customerId.length;
    const summaries = new AccountSummaries(n, analysisDay(todayDay), settings.calendar);
    // The accounts the image holds open from there; the others (or all, without a usable image)
    // are replayed by the bank.
    const byHelper = job !== null && n >= 2;
    // Customer k's account as kept (balance NaN: the bank opens it), when anything is.
    const kept: KeptAccounts | null = fromImage || byHelper ? { balance: new Float64Array(n).fill(Number.NaN), lastLived: new Int32Array(n) } : null;
    let found = 0;
    if (fromImage && n > 0) {
      const index = customers.numbers!;
      // With a helper, the later half is its to open (from the image too).
      const upTo = byHelper ? n >> 1 : n;
      const find = (clientId: number, customerId: string) => {
        const k = index.find(clientId, customerId);
        return k < upTo ? k : -1;
      };
      await unit.readImageBlocks!(null, (data) => {
        found += keepFromBlock(data, summaries, find, kept!);
      });
    }
    // The helper opens the later half while the bank opens the first.
    const help = byHelper ? helpedAccounts(job, customers, summaries, kept!, todayDay) : null;
    const given = help !== null ? help.kept : found > 0 ? kept! : undefined;
    const accounts = await bank.openAccounts(customers, todayDay, summaries.postedDays(todayDay), given);
    const state = assemble(today, settings, accounts, summaries, cols, customers);
    state.resumed = found + (help?.resumed() ?? 0);
    // Every account of the working set is active: those the image kept asleep are brought up to
    // today (the helper's are there already).
    if (found > 0) for (let k = 0; k < n; k++) catchUp(state, k, todayDay);
    return state;
  } finally {
    job?.cancel(); // a no-op once its answer came; else (too few customers, a failure) not wanted
  }
}

/**
 * Open collections from which a helper (another process) opens half of the accounts: where its
 * start and its answer's handover cost less than the half it opens (issue 13, 2026-12-04, pairs
 * alternated: without it 100k and 175k books were quicker, 2.94 against 3.14 s and 4.42 against
 * 4.53 s, each for ~1.1 s less CPU; with it a 200k book was, 4.96 against 5.18 s).
 */
const HELPED = 200_000;

/**
 * The accounts of the later half of `customers` as `job` opens them, given to the bank as kept
 * once it has opened the first half (meanwhile this thread brings the first half's accounts that
 * the image kept up to `today` and makes their income analyses; the helper did the same for its
 * half), or not kept after all (the bank opens them itself) when the helper failed or found other
 * customers than those read here. The first half as in `kept` (those the image holds, from there).
 */
function helpedAccounts(job: HelperJob, customers: Customers, summaries: AccountSummaries, kept: KeptAccounts, today: number): { kept: KeptAccounts; resumed(): number } {
  const n = customers.customerId.length;
  const from = n >> 1;
  // Let go of once awaited: the closure below lives as long as the accounts, and the blocks the
  // answer holds (~64 MB at 1M) would with it.
  let answer: Promise<HelperAnswer> | null = job.answer;
  let bank: Uint8Array | null = null;
  const { balance, lastLived } = kept;
  /** How many of its half the helper opened from the image (once taken). */
  let resumed = 0;
  const helped: KeptAccounts = {
    balance,
    lastLived,
    pending: {
      from,
      async ready(opened) {
        const scratch = {} as IncomeAnalysis;
        const outcomes: Array<FailureReason | null> = [];
        for (let k = 0; k < from; k++) {
          catchUpAccount(opened, summaries, outcomes, k, today);
          summaries.analysis(opened, k, scratch);
        }
        let got: HelperAnswer;
        const waited = answer!;
        answer = null;
        try {
          got = await waited;
        } catch {
          return false; // the helper failed: the bank opens its half itself
        }
        if (got.customers !== n) return false;
        // Its customers are the ones read here, every one, before anything is taken from it.
        const blocks = got.blocks.map((data) => decodeBlock(data, summaries));
        let k = from;
        for (const b of blocks) {
          for (let j = 0; j < b.n; j++, k++) if (k >= n || b.clientId[j] !== customers.clientId[k] || b.customerIds[j] !== customers.customerId[k]) return false;
        }
        if (k !== n) return false;
        const columns = summaries.columns();
        k = from;
        for (const b of blocks) {
          for (let j = 0; j < b.n; j++) {
            balance[k + j] = b.balance[j]!;
            lastLived[k + j] = b.lastLived[j]!;
          }
          copySummaries(b, 0, columns, k, b.n);
          k += b.n;
        }
        bank = got.bank ?? null;
        resumed = got.resumed ?? 0;
        return true;
      },
      bankState() {
        const state = bank;
        bank = null;
        return state;
      },
    },
  };
  return { kept: helped, resumed: () => resumed };
}

/**
 * The working set from the image alone (nothing else changed the engine's inputs since it was
 * kept): the customers waking by `lastDay`, their collections and accounts as kept. Those waking
 * tomorrow are active (brought up to today); the others sleep until their day.
 */
async function loadFromImage(unit: DayUnit, bank: Bank, today: IsoDate, settings: EngineSettings, lastDay: number): Promise<EngineState> {
  const todayDay = dayNumber(today);
  const openFrom = dayNumber(`${firstOpenPeriod(today)}-01`);
  const counts = await unit.countImage!(lastDay);
  const cols = new CollectionSet(counts.collections);
  const summaries = new AccountSummaries(counts.customers, analysisDay(todayDay), settings.calendar);
  const customers = new Customers();
  const balance = new Float64Array(Math.max(1, counts.customers));
  const lastLived = new Int32Array(Math.max(1, counts.customers));
  const wake = new Int32Array(Math.max(1, counts.customers));
  const columns = summaries.columns();
  await unit.readImageBlocks!(lastDay, (data) => {
    const b = decodeBlock(data, summaries);
    copySummaries(b, 0, columns, customers.customerId.length, b.n);
    let q = 0;
    for (let j = 0; j < b.n; j++) {
      const k = customers.customerId.length;
      customers.add(b.clientId[j]!, b.customerIds[j]!, cols.n);
      balance[k] = b.balance[j]!;
      lastLived[k] = b.lastLived[j]!;
      wake[k] = b.wake[j]!;
      for (let end = q + b.colCount[j]!; q < end; q++) {
        // A sleeping customer's record can hold collections of a period closed since: gone.
        if (b.collections.periodFirst[q]! < openFrom) continue;
        const c = cols.n++;
        copyCollection(b, q, cols, c);
        cols.account[c] = k;
      }
    }
  });
  const accounts = await bank.openAccounts(customers, todayDay, summaries.postedDays(todayDay), { balance, lastLived });
  const state = assemble(today, settings, accounts, summaries, cols, customers);
  const n = customers.customerId.length;
  state.resumed = n;
  state.consumed = lastDay;
  let keep = 0;
  for (let k = 0; k < n; k++) {
    const w = wake[k]!;
    if (w <= todayDay + 1) {
      catchUp(state, k, todayDay);
      state.active[keep++] = k;
      continue;
    }
    sleepUntil(state, k, w);
  }
  state.activeCount = keep;
  return state;
}
