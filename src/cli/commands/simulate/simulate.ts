/**
 * `premia simulate`: the spec's monthly cycle on a local store, day by day (the scenario is
 * src/simulation/scenario.ts; this command parses its options, chooses the store, writes the
 * files into --out/<period>/ and prints the summary). The store is a fresh in-memory one unless
 * --db names a file (which must not have a collections run yet). The same seed and inputs give
 * the same output.
 */
import { existsSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { conflict, PremiaError, usageError } from '../../../domain/errors.js';
import { escapeUnseen, printable } from '../../../domain/identifiers.js';
import { addDays, shiftPeriod, type Period } from '../../../domain/period.js';
import { checkPeriodOption, checkWholeNumberOption } from '../../../domain/requests.js';
import { runSimulation, type PatternResult, type SimulationSummary } from '../../../simulation/scenario.js';
import { localOnly } from '../action.js';
import { verb, type CommandDeps } from '../../command.js';
import { stopped } from '../../confirm.js';
import { resolveTarget } from '../../context.js';
import { fixturePath } from '../../fixtures.js';
import { givenPath, openUpload } from '../../input.js';
import { catchCtrlC } from '../../interrupt.js';
import { outputDirectory, writeDownload } from '../../output/download.js';
import { percentOf, plural } from '../../output/format.js';
import { startProgress } from '../../output/progress.js';
import type { Ui } from '../../output/ui.js';
import { recordOwnFile, refuseForeignOutputs } from './own-files.js';

const DEFAULT_POLICIES = fixturePath('policies.csv');
const DEFAULT_BANK = fixturePath('bank-transactions.csv');

interface Flags {
  period: string;
  months: string;
  policies?: string;
  bank?: string;
  strategy: string;
  out: string;
}

export interface SimulateOptions extends CommandDeps {
  first: Period;
  months: number;
  strategy: string;
  policiesFile: string;
  /** null: generated accounts only (--bank none). */
  bankFile: string | null;
  /** Where each period's files go (in <out>/<period>/), as given. */
  out: string;
}

export function simulateOptions(deps: CommandDeps, flags: Flags): SimulateOptions {
  // Worded as --period and whole-number options are in every other command.
  const first = checkPeriodOption(flags.period);
  const months = checkWholeNumberOption(String(flags.months), '--months', 1, 24);
  // stdin is read once: the bank file read second found it used up ("the file is empty").
  if (flags.policies === '-' && flags.bank === '-') throw usageError('--policies and --bank cannot both be - (stdin is read once); give one of them as a file.');
  return {
    ...deps,
    first,
    months,
    strategy: flags.strategy,
    policiesFile: flags.policies ?? DEFAULT_POLICIES,
    bankFile: flags.bank === 'none' ? null : (flags.bank ?? DEFAULT_BANK),
    out: givenPath(flags.out, '--out', 'a directory'),
  };
}

/** simulate asked of a service: it needs no store of the service's, only remote mode turned off. */
const simulateLocalOnly = (how: string) =>
  localOnly('premia simulate', `it lives its months on a temporary store of its own (or the one --db names), never through a service. ${how}`);

export async function simulateRun({ ctx, globals, ui, createsStore, first, months, strategy, policiesFile, bankFile, out: output }: SimulateOptions): Promise<number> {
  const out = { output, option: '--out' };
  const outDir = resolve(ctx.cwd, output);
  await outputDirectory(outDir, out, false); // a file there is refused now, not after the months have run
  // Nor does a rerun replace a file it did not write (a real month's report kept there).
  await refuseForeignOutputs(outDir, Array.from({ length: months }, (_, k) => shiftPeriod(first, k)), ctx.cwd);

  // A fresh in-memory store unless --db names one on the command line; never a service. Not
  // PREMIA_DB: a shell that exported it for the month's real work must not get the fixtures in.
  if (globals.baseUrl !== undefined || globals.profile !== undefined) throw simulateLocalOnly('Run it without --base-url and --profile.');
  // Remote mode chosen by PREMIA_BASE_URL, PREMIA_PROFILE or a default profile refuses the same way.
  // (resolveTarget, not ctx.target: that one is remembered, and the store is chosen below.)
  // PREMIA_DB is left out: simulate does not read it, empty or not.
  if (globals.db === undefined && (await resolveTarget({ ...ctx, env: { ...ctx.env, PREMIA_DB: undefined } }, globals)).mode === 'remote') {
    throw simulateLocalOnly('Here PREMIA_BASE_URL, PREMIA_PROFILE or a saved default profile chose a service: give --db :memory: (a temporary store) or --db FILE to run it on this machine.');
  }
  const dbChosen = globals.db;
  // A store simulate makes (a temporary one, or a --db file not there yet) takes the default seed
  // explicitly, so its ids too are the same every run; an existing store keeps its own.
  // '1': the default seed. createsStore: simulate is declared as a command that may make its --db.
  const fresh = dbChosen === undefined || dbChosen.trim() === ':memory:' || !existsSync(resolve(ctx.cwd, dbChosen.trim())); // trimmed as the store's path is (cli/context.ts)
  const b = await ctx.backend({ ...globals, db: dbChosen ?? ':memory:', seed: globals.seed ?? (fresh ? '1' : undefined) }, { createStore: createsStore });
  if (b.mode !== 'local') throw usageError('simulate runs on a local store; drop --base-url / PREMIA_BASE_URL to use it.');
  const clock = await b.getClock();
  const hasRun = () => conflict('CONFLICT', `The store ${dbChosen} already has a collections run; simulate needs a new store (choose another --db, or none for a temporary one).`);
  if (clock.locked) throw hasRun();
  // A store with a book of its own (a real one, named by a shell alias or a habit) is not the place for the fixtures' month.
  if ((await b.listPolicies({ limit: 1 })).data.length > 0) {
    throw conflict('CONFLICT', `The store ${dbChosen} already holds policies; simulate needs a new store (choose another --db, or none for a temporary one). Nothing changed.`);
  }
  // A run made since the look above (another simulate started together on the same --db) is
  // refused as one made before it, not as a clock set this command's user never typed.
  await b.setClock(addDays(`${first}-01`, -1)).catch((e: unknown) => {
    throw e instanceof PremiaError && e.code === 'CLOCK_LOCKED' ? hasRun() : e;
  });

  const progress = await startProgress(ui, 'Simulating…');
  // Ctrl-C: the day in progress finishes (imports roll back whole), then the run stops there.
  const ctrlC = catchCtrlC(ctx, () => {
    progress.stop();
    ui.status('Ctrl-C: stopping after the day in progress (press Ctrl-C again to quit at once).');
  });
  const signal = ctrlC.signal;
  let outcome;
  try {
    outcome = await runSimulation(
      b,
      { first, months, strategy, seed: clock.seed },
      {
        // Named in messages as given, a control or bidirectional character in it escaped.
        policies: { name: printable(policiesFile, 200), open: () => openUpload(ctx, policiesFile) },
        bank: bankFile === null ? null : { name: printable(bankFile, 200), open: () => openUpload(ctx, bankFile) },
        makeOutputDirectory: (period) => outputDirectory(join(outDir, period), out, true).then(() => undefined),
        save: async (period, download, name) => {
          const dir = join(outDir, period);
          const path = (await writeDownload(ctx, download, name === undefined ? dir : join(dir, name), undefined, '--out')).path!;
          await recordOwnFile(dir, basename(path));
          return relative(ctx.cwd, path) || path;
        },
        // The month in pictures (reports summary --html), beside the CSV files.
        summaryPage: async (figures) => (await import('../reports/summary.js')).summaryPage(figures),
        progress: (text) => progress.update(text),
        warn: (text) => ui.warn(text),
        signal,
      },
    );
  } catch (e) {
    if (!signal.aborted) progress.fail('The simulation stopped.');
    // A file refused whole comes before this run queues anything: a run in the store by then is
    // another process's (a second simulate on the same --db), whose policies made every row of
    // the book a duplicate. That is the reason to give, as for a store that had a run before.
    if (e instanceof PremiaError && e.code === 'INVALID_FILE' && (await b.getClock().catch(() => null))?.locked === true) throw hasRun();
    throw e;
  } finally {
    ctrlC.release();
  }
  progress.stop();
  const { summary, period } = outcome;
  if (ui.json) ui.printJson(summary);
  else printSummary(ui, summary);
  if (signal.aborted) {
    const done = summary.months.length;
    const at = (await b.getClock()).date;
    throw stopped(
      `Stopped by Ctrl-C on ${at}, in month ${done + 1} of ${months} (${period}): ` +
        `${done === 0 ? 'no month was completed' : `${plural(done, 'month')} completed (summarised above)`}; ` +
        (dbChosen === undefined
          ? 'the temporary store is gone.'
          : `the store ${dbChosen} is at ${at} (premia clock advance carries it on by hand; simulate starts only on a new store).`),
    );
  }
  return 0;
}

export function printSummary(ui: Ui, s: SimulationSummary): void {
  for (const m of s.months) {
    ui.line(ui.out.bold(`Collections ${m.period_month}`) + `  (seed ${s.seed}, strategy ${s.strategy})`);
    ui.table(
      [
        { header: 'status', value: (r: [string, number]) => r[0] },
        { header: 'policies', value: (r) => ui.count(r[1]), align: 'right' },
        { header: 'share', value: (r) => percentOf(r[1], m.policies), align: 'right' },
      ],
      Object.entries(m.by_status),
    );
    ui.line(
      `collected ${ui.money(m.collected)} of ${ui.money(m.due)} due: ${percentOf(m.collected, m.due)} by amount, ` +
        `${percentOf(m.by_status.PAID_FULL ?? 0, m.policies)} of policies paid in full`,
    );
    ui.line(`attempts ${ui.count(m.attempts)}, failed ${ui.count(m.failed_attempts)} (${m.failed_attempts_per_policy.toFixed(3)} per policy)`);
    if (m.amount_changes || m.cancellations || m.lapsed_policies) {
      ui.line(`policy changes: ${ui.plural(m.amount_changes, 'premium change')} (from next month), ${ui.plural(m.cancellations, 'cancellation')}, ${ui.count(m.lapsed_policies)} lapsed`);
    }
    if (m.by_income_pattern) {
      ui.line();
      ui.table(
        [
          { header: 'income pattern', value: (r: PatternResult) => r.pattern },
          { header: 'policies', value: (r) => r.policies, align: 'right' },
          { header: 'paid full', value: (r) => percentOf(r.paid_full, r.policies), align: 'right' },
          { header: 'collected', value: (r) => percentOf(r.collected, r.due), align: 'right' },
          { header: 'failed/policy', value: (r) => (r.failed_attempts / r.policies).toFixed(2), align: 'right' },
        ],
        m.by_income_pattern,
      );
    }
    const st = m.settlement;
    ui.line();
    ui.line(ui.out.bold(`Settlement ${st.settlement_number}`) + ` (${st.status}; EFT on ${st.payment_date}, reference ${st.payment_reference})`);
    // Money right-aligned so the statement reads as a sum (as settlements get shows it).
    const figures = [st.total_collections, st.distribution_fee, st.collections_fee, st.total_fees, st.vat, st.net_amount];
    const width = Math.max(...figures.map((c) => ui.money(c).length));
    const aligned = (cents: number) => ui.money(cents).padStart(width);
    ui.keyValues([
      ['total_collections', aligned(st.total_collections)],
      ['distribution_fee (25%)', aligned(st.distribution_fee)],
      ['collections_fee (3.5%)', aligned(st.collections_fee)],
      ['total_fees', aligned(st.total_fees)],
      ['vat (15% of fees)', aligned(st.vat)],
      ['net_amount', aligned(st.net_amount)],
    ]);
    ui.line();
    // Under --out as given: a control character of its name shown escaped, as in errors.
    ui.line(`Files: ${m.files.map((f) => escapeUnseen(f)).join(', ')}`);
    ui.line();
  }
}

export default verb(simulateOptions, simulateRun);
