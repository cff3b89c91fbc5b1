/**
 * `premia simulate`: the spec's monthly cycle on a local store, day by day.
 *
 * For each period P (the first from --period, then consecutive months):
 *   end of the month before P  import the policies (and the bank file) the first time, queue
 *                              the run of P (so day 1 of P can already be planned);
 *   days 1..N of P             the engine lives through the month; on day 10 a deterministic
 *                              few policies change premium (effective the month after) and a
 *                              few cancel, so later months show amount changes and lapses;
 *   day 1 of P+1               the collections report of P (and the run of P+1 was queued the
 *                              evening before);
 *   day 2 of P+1               the settlement statement of P;
 *   day 3 of P+1               its export.
 * Files go to --out/<P>/. The store is a fresh in-memory one unless --db names a file (which
 * must not have a collections run yet). The same seed and inputs give the same output.
 */
import { fileURLToPath } from 'node:url';
import { join, relative, resolve } from 'node:path';
import type { Backend, Collection, Download, Settlement } from '../../../backend/types.js';
import { conflict, usageError, validationError } from '../../../domain/errors.js';
import { hashString32 } from '../../../domain/hash.js';
import { asCents } from '../../../domain/money.js';
import { addDays, isPeriod, lastDay, nextPeriod, type Period } from '../../../domain/period.js';
import { outputDirectory, writeDownload } from '../../output/download.js';
import { count, money, plural } from '../../output/format.js';
import { startProgress } from '../../output/progress.js';
import { openUpload } from '../../input.js';
import { resolveTarget } from '../../context.js';
import { stopped } from '../../confirm.js';
import { catchCtrlC } from '../../interrupt.js';
import { localOnly, type CommandEnv } from '../action.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/', import.meta.url));
const DEFAULT_POLICIES = join(FIXTURES, 'policies.csv');
const DEFAULT_BANK = join(FIXTURES, 'bank-transactions.csv');
/** Customers above this count are not each analysed for the per-pattern table. */
const PATTERN_SUMMARY_LIMIT = 20_000;

export interface PatternResult {
  pattern: string;
  policies: number;
  paid_full: number;
  due: number;
  collected: number;
  failed_attempts: number;
}

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

export default async function simulate({ ctx, globals, opts, ui, createsStore }: CommandEnv): Promise<number> {
  const first = opts.period as string;
  if (!isPeriod(first)) throw validationError(`--period must be a month written YYYY-MM; got '${first}'.`);
  const months = Number(opts.months);
  if (!/^\d+$/.test(String(opts.months)) || months < 1 || months > 24) throw validationError('--months must be a whole number from 1 to 24.');
  const strategy = opts.strategy as string;
  const policiesFile = (opts.policies as string | undefined) ?? DEFAULT_POLICIES;
  const bankOption = opts.bank as string | undefined;
  const bankFile = bankOption === 'none' ? null : (bankOption ?? DEFAULT_BANK);
  const out = { output: opts.out as string, option: '--out' };
  const outDir = resolve(ctx.cwd, out.output);
  await outputDirectory(outDir, out, false); // a file there is refused now, not after the months have run

  // A fresh in-memory store unless --db names one on the command line; never a service. Not
  // PREMIA_DB: a shell that exported it for the month's real work must not get the fixtures in.
  if (globals.baseUrl !== undefined || globals.profile !== undefined) throw localOnly('premia simulate');
  // Remote mode chosen by PREMIA_BASE_URL, PREMIA_PROFILE or a default profile refuses the same way.
  // (resolveTarget, not ctx.target: that one is remembered, and the store is chosen below.)
  if (globals.db === undefined && (await resolveTarget(ctx, globals)).mode === 'remote') throw localOnly('premia simulate');
  const dbChosen = globals.db;
  // A temporary store takes the default seed explicitly, so its ids too are the same every run.
  // '1': the default seed. createsStore: simulate is declared as a command that may make its --db.
  const b = await ctx.backend({ ...globals, db: dbChosen ?? ':memory:', seed: globals.seed ?? (dbChosen === undefined ? '1' : undefined) }, { createStore: createsStore });
  if (b.mode !== 'local') throw usageError('simulate runs on a local store; drop --base-url / PREMIA_BASE_URL to use it.');
  const clock = await b.getClock();
  if (clock.locked) {
    throw conflict('CONFLICT', `The store ${dbChosen} already has a collections run; simulate needs a new store (choose another --db, or none for a temporary one).`);
  }
  await b.setClock(addDays(`${first}-01`, -1));

  const progress = await startProgress(ui, 'Simulating…');
  const summary: SimulationSummary = { seed: clock.seed, strategy, months: [] };
  // Ctrl-C: the day in progress finishes (imports roll back whole), then the run stops there.
  const ctrlC = catchCtrlC(ctx, () => {
    progress.stop();
    ui.status('Ctrl-C: stopping after the day in progress (press Ctrl-C again to quit at once).');
  });
  const signal = ctrlC.signal;
  let period = first;
  try {
    progress.update(`Importing ${policiesFile}`);
    const imported = await b.importPolicies(await openUpload(ctx, policiesFile), { signal });
    if (imported.failed > 0) ui.warn(`${imported.failed} policy rows were refused (see 'premia policies import' for the list).`);
    if (bankFile) {
      const bank = await b.importBankTransactions(await openUpload(ctx, bankFile), { signal });
      if (bank.failed > 0) ui.warn(`${bank.failed} bank rows were refused (see 'premia bank import' for the list).`);
    }
    await b.executeCollections({ period_month: period, strategy });
    for (let m = 0; m < months && !signal.aborted; m++) {
      const changes = { amount: 0, cancelled: 0, lapsed: 0 };
      progress.update(`${period}: days 1-9`);
      const to9 = await b.advanceClock({ to: `${period}-09` }, { signal });
      changes.lapsed += to9.days.reduce((s, d) => s + d.lapsed_policies, 0);
      if (signal.aborted) break;
      await policyEvents(b, period, changes);
      const rest = await b.advanceClock({ to: lastDay(period) }, {
        signal,
        onDay: (d, i, total) => progress.update(`${period}: day ${d.date} (${i} of ${total})`),
      });
      changes.lapsed += rest.days.reduce((s, d) => s + d.lapsed_policies, 0);
      if (signal.aborted) break;
      const next = nextPeriod(period);
      if (m + 1 < months) await b.executeCollections({ period_month: next, strategy });
      const dir = join(outDir, period);
      await outputDirectory(dir, out, true);
      const files: string[] = [];
      // Day 1 of the next month: the report (and the attempts behind it).
      await b.advanceClock({ days: 1 }, { signal });
      if (signal.aborted) break;
      const write = async (download: Download, path: string) => (await writeDownload(ctx, download, path, undefined, '--out')).path!;
      files.push(await write(await b.collectionsReport(period, 'csv'), dir));
      files.push(await write(await b.exportAttempts(period, 'csv'), dir));
      // Day 2: the settlement statement; day 3: its export.
      await b.advanceClock({ days: 1 }, { signal });
      if (signal.aborted) break;
      const settlement = await b.createSettlement(period);
      await b.advanceClock({ days: 1 }, { signal });
      if (signal.aborted) break;
      files.push(await write(await b.exportSettlement(settlement.id), dir));
      files.push(await write(await b.exportSettlement(settlement.id, { lines: true }), join(dir, `${settlement.settlement_number}-lines.csv`)));
      const shown = files.map((f) => relative(ctx.cwd, f) || f);
      summary.months.push(await summariseMonth(b, period, settlement, changes, shown));
      // The next month continues from day 3, where the settlement export left the clock.
      period = next;
    }
  } catch (e) {
    if (!signal.aborted) progress.fail('The simulation stopped.');
    throw e;
  } finally {
    ctrlC.release();
  }
  progress.stop();
  if (ui.json) ui.printJson(summary);
  else printSummary(ui, summary);
  if (signal.aborted) {
    const done = summary.months.length;
    const at = (await b.getClock()).date;
    throw stopped(
      `Stopped by Ctrl-C on ${at}, in month ${done + 1} of ${months} (${period}): ` +
        `${done === 0 ? 'no month was completed' : `${plural(done, 'month')} completed (summarised above)`}; ` +
        (dbChosen === undefined ? 'the temporary store is gone.' : `the store ${dbChosen} is at ${at}.`),
    );
  }
  return 0;
}

/** Day 10: a deterministic few premium changes (±5-20%, from next month) and cancellations. */
async function policyEvents(b: Backend, period: Period, changes: { amount: number; cancelled: number }): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const page = await b.listPolicies({ status: 'active', limit: 10_000, after });
    for (const p of page.data) {
      const h = hashString32(`${period}/${p.policy_number}`, 0x5eed);
      const roll = (h % 10_000) / 10_000;
      if (roll < 0.01) {
        await b.updatePolicy(p.id, { status: 'cancelled' });
        changes.cancelled++;
      } else if (roll < 0.04) {
        const pct = 5 + ((h >>> 8) % 16); // 5..20 %
        const up = ((h >>> 16) & 1) === 1;
        const amount = Math.max(100, Math.round((p.collection_amount * (100 + (up ? pct : -pct))) / 100));
        if (amount !== p.collection_amount && amount <= 100_000_000) {
          await b.updatePolicy(p.id, { collection_amount: asCents(amount) });
          changes.amount++;
        }
      }
    }
    if (page.next_after === null) return;
    after = page.next_after;
  }
}

async function allCollections(b: Backend, period: Period): Promise<Collection[]> {
  const out: Collection[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await b.listCollections({ period_month: period, limit: 10_000, after });
    out.push(...page.data);
    if (page.next_after === null) return out;
    after = page.next_after;
  }
}

async function summariseMonth(
  b: Backend,
  period: Period,
  settlement: Settlement,
  changes: { amount: number; cancelled: number; lapsed: number },
  files: string[],
): Promise<MonthSummary> {
  const rows = await allCollections(b, period);
  const byStatus: Record<string, number> = { PAID_FULL: 0, PAID_PARTIAL: 0, UNPAID: 0, CANCELLED: 0 };
  let due = 0;
  let collected = 0;
  let attempts = 0;
  let failed = 0;
  const failedOf = new Map<string, number>();
  const attemptsCsv = await readAll(await b.exportAttempts(period, 'csv'));
  for (const line of attemptsCsv.split('\n').slice(1)) {
    if (!line.includes(',FAILED,')) continue;
    const id = line.slice(0, line.indexOf(','));
    failedOf.set(id, (failedOf.get(id) ?? 0) + 1);
  }
  for (const c of rows) {
    byStatus[c.collection_status] = (byStatus[c.collection_status] ?? 0) + 1;
    due += c.collection_amount_due;
    collected += c.collection_amount_collected;
    attempts += c.number_of_attempts;
    failed += failedOf.get(c.id) ?? 0;
  }
  let patterns: PatternResult[] | null = null;
  const customers = [...new Set(rows.map((c) => c.customer_id))];
  if (customers.length <= PATTERN_SUMMARY_LIMIT) {
    const patternOf = new Map<string, string>();
    for (const id of customers) patternOf.set(id, (await b.showBankAccount(id)).income.pattern);
    const acc = new Map<string, PatternResult>();
    for (const c of rows) {
      const pattern = patternOf.get(c.customer_id)!;
      let r = acc.get(pattern);
      if (!r) acc.set(pattern, (r = { pattern, policies: 0, paid_full: 0, due: 0, collected: 0, failed_attempts: 0 }));
      r.policies++;
      if (c.collection_status === 'PAID_FULL') r.paid_full++;
      r.due += c.collection_amount_due;
      r.collected += c.collection_amount_collected;
      r.failed_attempts += failedOf.get(c.id) ?? 0;
    }
    patterns = [...acc.values()].sort((x, y) => y.policies - x.policies || (x.pattern < y.pattern ? -1 : 1));
  }
  const { created_at: _c, paid_on: _p, paid_reference: _r, disputed_on: _d, dispute_reason: _w, ...statement } = settlement;
  return {
    period_month: period,
    policies: rows.length,
    by_status: byStatus,
    due,
    collected,
    collection_rate_amount: rate(collected, due),
    collection_rate_count: rate(byStatus.PAID_FULL!, rows.length),
    attempts,
    failed_attempts: failed,
    failed_attempts_per_policy: rows.length === 0 ? 0 : Math.round((failed / rows.length) * 1000) / 1000,
    amount_changes: changes.amount,
    cancellations: changes.cancelled,
    lapsed_policies: changes.lapsed,
    by_income_pattern: patterns,
    settlement: statement,
    files,
  };
}

async function readAll(d: { body: AsyncIterable<Uint8Array | string> }): Promise<string> {
  let s = '';
  for await (const chunk of d.body) s += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return s;
}

/** A share as a fraction with four decimals (0.8839 = 88.39%). */
function rate(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
}

/** A share as a percentage with one decimal, rounded once from the exact fraction. */
const pct = (part: number, whole: number) => `${whole === 0 ? '0.0' : (Math.round((part / whole) * 1000) / 10).toFixed(1)}%`;

function printSummary(ui: CommandEnv['ui'], s: SimulationSummary): void {
  for (const m of s.months) {
    ui.line(ui.out.bold(`Collections ${m.period_month}`) + `  (seed ${s.seed}, strategy ${s.strategy})`);
    ui.table(
      [
        { header: 'status', value: (r: [string, number]) => r[0] },
        { header: 'policies', value: (r) => count(r[1]), align: 'right' },
        { header: 'share', value: (r) => pct(r[1], m.policies), align: 'right' },
      ],
      Object.entries(m.by_status),
    );
    ui.line(
      `collected ${money(m.collected)} of ${money(m.due)} due: ${pct(m.collected, m.due)} by amount, ` +
        `${pct(m.by_status.PAID_FULL ?? 0, m.policies)} of policies paid in full`,
    );
    ui.line(`attempts ${count(m.attempts)}, failed ${count(m.failed_attempts)} (${m.failed_attempts_per_policy.toFixed(3)} per policy)`);
    if (m.amount_changes || m.cancellations || m.lapsed_policies) {
      ui.line(`policy changes: ${m.amount_changes} premium changes (from next month), ${m.cancellations} cancellations, ${m.lapsed_policies} lapsed`);
    }
    if (m.by_income_pattern) {
      ui.line();
      ui.table(
        [
          { header: 'income pattern', value: (r: PatternResult) => r.pattern },
          { header: 'policies', value: (r) => r.policies, align: 'right' },
          { header: 'paid full', value: (r) => pct(r.paid_full, r.policies), align: 'right' },
          { header: 'collected', value: (r) => pct(r.collected, r.due), align: 'right' },
          { header: 'failed/policy', value: (r) => (r.failed_attempts / r.policies).toFixed(2), align: 'right' },
        ],
        m.by_income_pattern,
      );
    }
    const st = m.settlement;
    ui.line();
    ui.line(ui.out.bold(`Settlement ${st.settlement_number}`) + ` (${st.status}; EFT on ${st.payment_date}, reference ${st.payment_reference})`);
    ui.keyValues([
      ['total_collections', money(st.total_collections)],
      ['distribution_fee (25%)', money(st.distribution_fee)],
      ['collections_fee (3.5%)', money(st.collections_fee)],
      ['total_fees', money(st.total_fees)],
      ['vat (15% of fees)', money(st.vat)],
      ['net_amount', money(st.net_amount)],
    ]);
    ui.line();
    ui.line(`Files: ${m.files.join(', ')}`);
    ui.line();
  }
}
