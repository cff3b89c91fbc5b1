/**
 * The monthly cycle of the spec, day by day, driven through a Backend (`premia simulate` runs
 * it on a local store). For each period P (the first given, then consecutive months):
 *   end of the month before P  import the bank file (if any), then the policies, the first time; queue
 *                              the run of P (so day 1 of P can already be planned);
 *   days 1..N of P             the engine lives through the month; on day 10 a deterministic
 *                              few policies change premium (effective the month after) and a
 *                              few cancel, so later months show amount changes and lapses;
 *   day 1 of P+1               the collections report of P (and the run of P+1 was queued the
 *                              evening before);
 *   day 2 of P+1               the settlement statement of P;
 *   day 3 of P+1               its export (and the month's summary page, when the caller makes one).
 * The caller has set the clock to the end of the month before the first period. The same seed
 * and inputs give the same figures; files are written by the caller (`io.save`).
 */
import { asCents } from '../domain/money.js';
import { PremiaError } from '../domain/errors.js';
import { describeCaseMismatches } from '../domain/customer-case.js';
import type { Backend, BankImportResult, BankImportRowError, Download, ImportRowError, PolicyPatch, Settlement, Upload } from '../backend/types.js';
import { hashString32 } from '../domain/hash.js';
import { plural } from '../domain/words.js';
import { lastDay, nextPeriod, type Period } from '../domain/period.js';
import { KeptDownload } from './kept-download.js';
import { readSummary, share, type PatternFigures, type SummaryFigures } from './month-figures.js';

/** Customers above this count are not each analysed for the per-pattern table. */
const PATTERN_SUMMARY_LIMIT = 20_000;

/** A row of the month's income-pattern table: the page's (month-figures.ts) without its rate, as simulate's JSON has always had it. */
export type PatternResult = Omit<PatternFigures, 'collection_rate'>;

export interface MonthSummary {
  period_month: Period;
  policies: number;
  by_status: Record<string, number>;
  due: number;
  collected: number;
  collection_rate_amount: number;
  collection_rate_count: number;
  attempts: number;
  failed_attempts: number;
  failed_attempts_per_policy: number;
  amount_changes: number;
  cancellations: number;
  lapsed_policies: number;
  by_income_pattern: PatternResult[] | null;
  settlement: Omit<Settlement, 'created_at' | 'paid_on' | 'paid_reference' | 'disputed_on' | 'dispute_reason'>;
  files: string[];
}

export interface SimulationSummary {
  seed: number;
  strategy: string;
  months: MonthSummary[];
}

export interface SimulationPlan {
  first: Period;
  months: number;
  strategy: string;
  /** The seed of the store (reported in the summary). */
  seed: number;
}

/** What the scenario reads, writes and tells, given by the caller. */
export interface SimulationIo {
  /** The policy CSV: its name as given, and how to open it. */
  policies: { name: string; open: () => Promise<Upload> };
  /** The bank transactions CSV; null: generated accounts only. */
  bank: { name: string; open: () => Promise<Upload> } | null;
  /** Before day 1 of the month after `period`: make the place its files go. */
  makeOutputDirectory(period: Period): Promise<void>;
  /** Write one of `period`'s files (under `name`, else the download's own name); the path as shown. */
  save(period: Period, download: Download, name?: string): Promise<string>;
  /**
   * The month's summary page, written beside its files once its settlement is exported (none
   * when absent), made from the figures the month's summary was made from.
   */
  summaryPage?(figures: SummaryFigures): Promise<Download>;
  progress(text: string): void;
  warn(text: string): void;
  /** Ctrl-C: the day in progress finishes (imports roll back whole), then the run stops there. */
  signal: AbortSignal;
}

export interface SimulationOutcome {
  summary: SimulationSummary;
  /** The period the run was in when it ended (the one after the last completed month, or the one it stopped in). */
  period: Period;
}

/** How many problems an import's answer names in a message about it, the rest left to `command`. */
const PROBLEMS_SHOWN = 3;

/** The first problems of an import's answer, where and what (`row 7: amount …`), and the command that lists them all. */
function problems(result: { errors: ReadonlyArray<ImportRowError | BankImportRowError>; errors_omitted?: number }, command: string): string {
  const shown = result.errors.slice(0, PROBLEMS_SHOWN).map((e) => `row ${e.row}: ${e.message}`);
  const rest = result.errors.length - shown.length + (result.errors_omitted ?? 0);
  return `${shown.join('; ')}${rest > 0 ? `; and ${plural(rest, 'more problem')}: '${command}' lists them all` : ''}`;
}

/**
 * Whether a bank import's answer is a statement refused whole: nothing imported, and some row
 * could not be read (not only skipped as already imported, on a day already lived, of an
 * account in use, or past the account's total).
 */
export function statementRefusedWhole(result: BankImportResult): boolean {
  return result.imported === 0 && result.errors.some((e) => !rowSkipped(e));
}

/** A row read but not stored, which leaves the rest of the file to be imported (what is stored refuses it, not the file). */
function rowSkipped(e: BankImportRowError): boolean {
  if (e.code === 'AMOUNT_OUT_OF_RANGE') return e.message.includes('in all with this row'); // the account's total, not the row's amount
  return e.code === 'DUPLICATE_TRANSACTION' || e.code === 'DATE_IN_PAST' || e.code === 'ACCOUNT_IN_USE';
}

export async function runSimulation(b: Backend, plan: SimulationPlan, io: SimulationIo): Promise<SimulationOutcome> {
  const summary: SimulationSummary = { seed: plan.seed, strategy: plan.strategy, months: [] };
  const signal = io.signal;
  const strategy = plan.strategy;
  let period = plan.first;
  // The bank file first: a statement refused whole stores nothing, and nothing else has been
  // stored yet, so a --db store is left as it was for the corrected file.
  if (io.bank) {
    io.progress(`Importing ${io.bank.name}`);
    const bank = await b.importBankTransactions(await io.bank.open(), { signal });
    // A statement refused whole: the month would run on generated accounts, not on the bank
    // history asked for, and its results be taken for that history's.
    if (statementRefusedWhole(bank)) {
      // The rows it cannot read first: they refused it, not those the store held already.
      const unreadableFirst = { ...bank, errors: [...bank.errors].sort((x, y) => Number(rowSkipped(x)) - Number(rowSkipped(y))) };
      throw new PremiaError(
        'INVALID_FILE',
        `The bank file ${io.bank.name} could not be imported (${problems(unreadableFirst, `premia bank import ${io.bank.name}`)}); a statement is imported whole or not at all, so nothing was run.`,
      );
    }
    if (bank.imported === 0 && bank.failed > 0 && bank.errors.every((e) => e.code === 'DUPLICATE_TRANSACTION')) {
      // A --db store kept from a run whose policy file was refused: the statement is there already.
      io.warn(`Every row of ${io.bank.name} is in the store already (an earlier import); they are used as they are.`);
    } else if (bank.failed > 0) {
      io.warn(`${plural(bank.failed, 'bank row was', 'bank rows were')} refused (${problems(bank, `premia bank import ${io.bank.name}`)}).`);
    }
  }
  io.progress(`Importing ${io.policies.name}`);
  const imported = await b.importPolicies(await io.policies.open(), { signal });
  // No policy at all: the month ran empty and then ended on a settlement's NO_COLLECTIONS ("it was
  // never executed"), exit 6, with half the month's files written.
  if (imported.imported === 0) {
    const why =
      imported.failed === 0
        ? `The policy file ${io.policies.name} holds no policies (a header and no rows)`
        : `None of the ${plural(imported.failed, 'policy row')} of ${io.policies.name} could be imported (${problems(imported, `premia policies import ${io.policies.name}`)})`;
    throw new PremiaError('INVALID_FILE', `${why}, so there is nothing to simulate. Nothing was run.`);
  }
  // The bank file's rows for c100001 where the policies say C100001: the month would run those
  // customers on generated accounts, not on the statement given for them.
  if (imported.case_mismatches) {
    io.warn(
      `${describeCaseMismatches(imported.case_mismatches, io.bank?.name ?? 'the bank rows stored')}. ` +
        "This simulation collects from those policies' customers on generated accounts, not on those rows; correct the customer ids in the bank file to run them on its rows.",
    );
  }
  if (imported.failed > 0) {
    io.warn(`${plural(imported.failed, 'policy row was', 'policy rows were')} refused (${problems(imported, `premia policies import ${io.policies.name}`)}).`);
  }
  await b.executeCollections({ period_month: period, strategy });
  for (let m = 0; m < plan.months && !signal.aborted; m++) {
    const changes = { amount: 0, cancelled: 0, lapsed: 0 };
    io.progress(`${period}: days 1-9`);
    const to9 = await b.advanceClock({ to: `${period}-09` }, { signal });
    changes.lapsed += to9.days.reduce((s, d) => s + d.lapsed_policies, 0);
    if (signal.aborted) break;
    await policyEvents(b, period, changes);
    const rest = await b.advanceClock({ to: lastDay(period) }, {
      signal,
      onDay: (d, i, total) => io.progress(`${period}: day ${d.date} (${i} of ${total})`),
    });
    changes.lapsed += rest.days.reduce((s, d) => s + d.lapsed_policies, 0);
    if (signal.aborted) break;
    const next = nextPeriod(period);
    if (m + 1 < plan.months) await b.executeCollections({ period_month: next, strategy });
    await io.makeOutputDirectory(period);
    const files: string[] = [];
    // Day 1 of the next month: the report (and the attempts behind it).
    await b.advanceClock({ days: 1 }, { signal });
    if (signal.aborted) break;
    // Kept as they are saved: the month's summary and its page read them again from memory.
    const report = new KeptDownload(await b.collectionsReport(period, 'csv'));
    files.push(await io.save(period, report.passed));
    const attempts = new KeptDownload(await b.exportAttempts(period, 'csv'));
    files.push(await io.save(period, attempts.passed));
    // Day 2: the settlement statement; day 3: its export.
    await b.advanceClock({ days: 1 }, { signal });
    if (signal.aborted) break;
    const settlement = await b.createSettlement(period);
    await b.advanceClock({ days: 1 }, { signal });
    if (signal.aborted) break;
    files.push(await io.save(period, await b.exportSettlement(settlement.id)));
    files.push(await io.save(period, await b.exportSettlement(settlement.id, { lines: true }), `${settlement.settlement_number}-lines.csv`));
    const month = await summariseMonth(b, period, settlement, changes, files, { report, attempts });
    if (io.summaryPage) files.push(await io.save(period, await io.summaryPage(month.figures)));
    summary.months.push(month.summary);
    // The next month continues from day 3, where the settlement export left the clock.
    period = next;
  }
  return { summary, period };
}

/**
 * Day 10: a deterministic few premium changes (±5-20%, from next month) and cancellations, a
 * page of policies' worth at a time (locally one transaction: 4,000 a month at 100,000 policies).
 */
async function policyEvents(b: Backend, period: Period, changes: { amount: number; cancelled: number }): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const page = await b.listPolicies({ status: 'active', limit: 10_000, after });
    const updates: Array<{ ref: string; patch: PolicyPatch }> = [];
    for (const p of page.data) {
      const h = hashString32(`${period}/${p.policy_number}`, 0x5eed);
      const roll = (h % 10_000) / 10_000;
      if (roll < 0.01) {
        updates.push({ ref: p.id, patch: { status: 'cancelled' } });
        changes.cancelled++;
      } else if (roll < 0.04) {
        const pct = 5 + ((h >>> 8) % 16); // 5..20 %
        const up = ((h >>> 16) & 1) === 1;
        const amount = Math.max(100, Math.round((p.collection_amount * (100 + (up ? pct : -pct))) / 100));
        if (amount !== p.collection_amount && amount <= 100_000_000) {
          updates.push({ ref: p.id, patch: { collection_amount: asCents(amount) } });
          changes.amount++;
        }
      }
    }
    await b.updatePolicies(updates);
    if (page.next_after === null) return;
    after = page.next_after;
  }
}

/**
 * The month's summary, from its figures (month-figures.ts: the same as `reports summary`'s and
 * its page's), read from its collections report and attempts export as saved.
 */
async function summariseMonth(
  b: Backend,
  period: Period,
  settlement: Settlement,
  changes: { amount: number; cancelled: number; lapsed: number },
  files: string[],
  downloads: { report: KeptDownload; attempts: KeptDownload },
): Promise<{ summary: MonthSummary; figures: SummaryFigures }> {
  const figures = await readSummary(b, period, {
    downloads: { report: downloads.report.again(), attempts: downloads.attempts.again() },
    patternCustomers: PATTERN_SUMMARY_LIMIT,
  });
  const { policies, by_status: byStatus, due, collected, attempts, failed_attempts: failed } = figures;
  const { created_at: _c, paid_on: _p, paid_reference: _r, disputed_on: _d, dispute_reason: _w, ...statement } = settlement;
  const summary: MonthSummary = {
    period_month: period,
    policies,
    by_status: { ...byStatus },
    due,
    collected,
    // Shares as the month's page shows them: short of the whole never 1, anything never 0.
    collection_rate_amount: figures.collection_rate,
    collection_rate_count: share(byStatus.PAID_FULL, policies),
    attempts,
    failed_attempts: failed,
    failed_attempts_per_policy: policies === 0 ? 0 : Math.round((failed / policies) * 1000) / 1000,
    amount_changes: changes.amount,
    cancellations: changes.cancelled,
    lapsed_policies: changes.lapsed,
    by_income_pattern: figures.by_income_pattern?.map(({ collection_rate: _rate, ...p }) => p) ?? null,
    settlement: statement,
    files,
  };
  return { summary, figures };
}

