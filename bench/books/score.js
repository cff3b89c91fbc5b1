#!/usr/bin/env node
/**
 * `npm run eval`: premia's collections engine scored on the independent books (generate.js) and
 * on the fixture book, per family and overall, for each strategy, against the oracle.
 *
 *   node bench/books/score.js [--seeds 1,2,3,4,5] [--customers 1200] [--periods 2026-11,2026-12]
 *                             [--starts prev,1,10,20] [--no-fixture] [--no-simulate]
 *                             [--new-accounts-in-period] [--json FILE] [--keep DIR]
 *
 * Each run goes through premia's own commands on a fresh store (in this process, through the
 * built CLI in dist/: `npm run build` first): `clock set`, `policies import`, `bank import`, then,
 * on a copy per start and strategy, `clock set <start>`, `collections execute --strategy S`,
 * `clock advance --to <period end>`, `reports collections --format json` and `collections
 * attempts --format json`. The bank that executes the debits is premia's, so its account rules
 * hold for every strategy. A start is the clock's date when the run is queued: `prev` the last
 * day of the month before (as `premia simulate` and the README's table), `1`, `10`, `20` that day
 * of the period. The oracle is run from the same start, so its figure is what was still
 * collectible from that day.
 *
 * Markdown tables go to stdout, progress to stderr, everything as JSON to --json (default
 * bench/.data/books/results.json). Exit 0 when every run completed (this is a measurement: a
 * missed target is not a failure), 1 when a command failed, 2 for bad options.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { addMonths, dayFrom, dayOf, daysInMonth, isoOf, parsePeriod } from './calendar.js';
import { FAMILIES, generateBook, writeBook } from './generate.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const STRATEGIES = ['smart', 'naive', 'oracle'];
export const STARTS = ['prev', '1', '10', '20'];

// ---------------------------------------------------------------------------------------------
// Driving premia

/**
 * The built CLI, in this process: `cli(args)` runs `premia ...args` and resolves to
 * {code, stdout, stderr}. One process saves a Node start-up per command; each command opens and
 * closes its store exactly as the binary does.
 */
export async function distCli() {
  const main = join(ROOT, 'dist', 'cli', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build first`);
  const { run } = await import(pathToFileURL(main).href);
  const { createContext } = await import(pathToFileURL(join(ROOT, 'dist', 'cli', 'context.js')).href);
  return (args) => runWith(run, createContext, args);
}

/** Run one command with captured output (also used by the test with premia's sources). */
export async function runWith(run, createContext, args) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = [];
  const err = [];
  stdout.on('data', (c) => out.push(c));
  stderr.on('data', (c) => err.push(c));
  const ctx = createContext({ stdout, stderr, stdin: Readable.from([]), env: {}, cwd: ROOT });
  const code = await run(args, ctx);
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

async function premia(cli, db, args) {
  const r = await cli(['--db', db, '--quiet', '--seed', '1', ...args]);
  if (r.code !== 0) throw new Error(`premia ${args.join(' ')} exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}

/** The clock's date for a run queued at `start` of `period`. */
export function startDate(period, start) {
  const ym = parsePeriod(period);
  if (start === 'prev') {
    const before = addMonths(ym, -1);
    return isoOf(dayFrom(before.year, before.month, daysInMonth(before.year, before.month)));
  }
  const d = Number(start);
  if (!Number.isInteger(d) || d < 1 || d > 28) throw new Error(`start must be prev or a day 1-28, got ${start}`);
  return isoOf(dayFrom(ym.year, ym.month, d));
}

function periodEnd(period) {
  const ym = parsePeriod(period);
  return isoOf(dayFrom(ym.year, ym.month, daysInMonth(ym.year, ym.month)));
}

// ---------------------------------------------------------------------------------------------
// Scoring one book

const cents = (x) => Math.round(x * 100);

function emptyTotals() {
  return { policies: 0, due: 0, collected: 0, paid_full: 0, attempts: 0, failed: 0, failed_insufficient: 0, failed_blocked: 0, zero_attempts: 0, zero_attempts_collectible: 0 };
}

function addTotals(a, b) {
  for (const k of Object.keys(a)) a[k] += b[k];
  return a;
}

/**
 * Run `period` of one book for each start and strategy. `familyOf` maps a customer id to its
 * family. Returns {runs: [{start, strategy, families: {name: totals}, overall: totals}]} with
 * money in cents. `keepDir` keeps each run's store there (for `collections explain`).
 */
export async function scoreBook({ cli, policiesFile, bankFile, familyOf, period, starts = STARTS, strategies = STRATEGIES, oracleNext = true, workDir, keepDir, log = () => {} }) {
  if (!strategies.includes('oracle')) throw new Error('the oracle run is the yardstick: strategies must include oracle');
  mkdirSync(workDir, { recursive: true });
  const template = join(workDir, 'template.db');
  rmSync(template, { force: true });
  await premia(cli, template, ['clock', 'set', startDate(period, 'prev')]);
  await premia(cli, template, ['policies', 'import', policiesFile]);
  if (bankFile) await premia(cli, template, ['bank', 'import', bankFile]);
  const runs = [];
  // oracle_next: the oracle queued a day later, so that its first debit falls on the first day
  // a planned debit of smart or naive can (planning is a day ahead; the oracle takes on the day).
  const labels = oracleNext ? [...strategies, 'oracle_next'] : strategies;
  for (const start of starts) {
    const perStrategy = new Map();
    for (const label of labels) {
      const t0 = Date.now();
      const strategy = label === 'oracle_next' ? 'oracle' : label;
      const db = join(keepDir ?? workDir, `${period}-${start}-${label}.db`);
      rmSync(db, { force: true });
      copyFileSync(template, db);
      const clock = label === 'oracle_next' ? isoOf(dayOf(startDate(period, start)) + 1) : startDate(period, start);
      await premia(cli, db, ['clock', 'set', clock]);
      await premia(cli, db, ['collections', 'execute', '--period', period, '--strategy', strategy]);
      await premia(cli, db, ['clock', 'advance', '--to', periodEnd(period)]);
      const report = JSON.parse(await premia(cli, db, ['reports', 'collections', '--period', period, '--format', 'json']));
      const attempts = JSON.parse(await premia(cli, db, ['collections', 'attempts', '--period', period, '--format', 'json']));
      if (!keepDir) rmSync(db, { force: true });
      const failed = new Map();
      for (const a of attempts.attempts) {
        if (a.outcome !== 'FAILED') continue;
        const f = failed.get(a.policy_number) ?? { insufficient: 0, blocked: 0 };
        if (a.failure_reason === 'INSUFFICIENT_FUNDS') f.insufficient++;
        else f.blocked++;
        failed.set(a.policy_number, f);
      }
      const policies = report.results.map((r) => {
        const f = failed.get(r.policy_number) ?? { insufficient: 0, blocked: 0 };
        return {
          policy: r.policy_number,
          family: familyOf(r.customer_id),
          due: cents(r.collection_amount_due),
          collected: cents(r.collection_amount_collected),
          full: r.collection_status === 'PAID_FULL',
          attempts: r.number_of_attempts,
          insufficient: f.insufficient,
          blocked: f.blocked,
        };
      });
      perStrategy.set(label, policies);
      log(`  ${period} start ${start.padEnd(4)} ${label.padEnd(11)} ${policies.length} policies, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    const oracleCollected = new Map(perStrategy.get('oracle').map((p) => [p.policy, p.collected]));
    for (const strategy of labels) {
      const families = {};
      const overall = emptyTotals();
      for (const p of perStrategy.get(strategy)) {
        const t = emptyTotals();
        t.policies = 1;
        t.due = p.due;
        t.collected = p.collected;
        t.paid_full = p.full ? 1 : 0;
        t.attempts = p.attempts;
        t.failed = p.insufficient + p.blocked;
        t.failed_insufficient = p.insufficient;
        t.failed_blocked = p.blocked;
        t.zero_attempts = p.attempts === 0 ? 1 : 0;
        t.zero_attempts_collectible = p.attempts === 0 && (oracleCollected.get(p.policy) ?? 0) > 0 ? 1 : 0;
        addTotals((families[p.family] ??= emptyTotals()), t);
        addTotals(overall, t);
      }
      runs.push({ start, strategy, families, overall });
    }
  }
  rmSync(template, { force: true });
  return { period, runs };
}

// ---------------------------------------------------------------------------------------------
// Figures

function ratio(a, b) {
  return b === 0 ? null : a / b;
}

/** Derived figures of a totals record against the oracle's. */
export function figures(t, oracle, oracleNext) {
  return {
    ...t,
    ratio_to_oracle: ratio(t.collected, oracle.collected),
    ratio_to_oracle_next: oracleNext ? ratio(t.collected, oracleNext.collected) : null,
    collection_rate: ratio(t.collected, t.due),
    failed_per_policy: ratio(t.failed, t.policies),
    debits_per_policy: ratio(t.attempts, t.policies),
  };
}

/** Scenarios ("2026-11 prev") × groups (families, overall) × strategies, pooled over the books, with the worst book's ratio. */
export function summarise(books) {
  const scenarios = new Map();
  for (const book of books) {
    for (const run of book.result.runs) {
      const key = `${book.kind} ${book.result.period} ${run.start}`;
      let s = scenarios.get(key);
      if (!s) scenarios.set(key, (s = { period: book.result.period, start: run.start, kind: book.kind, groups: new Map() }));
      const groups = { ...run.families, overall: run.overall };
      for (const [group, totals] of Object.entries(groups)) {
        let g = s.groups.get(group);
        if (!g) s.groups.set(group, (g = { pooled: new Map(), perBook: new Map() }));
        addTotals(g.pooled.get(run.strategy) ?? g.pooled.set(run.strategy, emptyTotals()).get(run.strategy), totals);
        const pb = g.perBook.get(book.name) ?? g.perBook.set(book.name, new Map()).get(book.name);
        pb.set(run.strategy, totals);
      }
    }
  }
  const out = [];
  for (const s of scenarios.values()) {
    const groups = {};
    for (const [group, g] of s.groups) {
      const oracle = g.pooled.get('oracle');
      const strategies = {};
      for (const [strategy, t] of g.pooled) {
        const worst = [...g.perBook.entries()]
          .map(([name, m]) => ({ book: name, ratio: ratio(m.get(strategy).collected, m.get('oracle').collected) }))
          .filter((x) => x.ratio !== null)
          .sort((a, b) => a.ratio - b.ratio)[0] ?? null;
        strategies[strategy] = { ...figures(t, oracle, g.pooled.get('oracle_next')), worst_book: worst };
      }
      groups[group] = strategies;
    }
    out.push({ period: s.period, start: s.start, kind: s.kind, groups });
  }
  return out;
}

const pct = (x) => (x === null || x === undefined ? '–' : x.toFixed(3));
const num2 = (x) => (x === null || x === undefined ? '–' : x.toFixed(3));
/** Cents as rands, 1,234.56 (integer arithmetic: no float rounding). */
function rands(c) {
  const sign = c < 0 ? '-' : '';
  const a = Math.abs(c);
  return `${sign}${String(Math.floor(a / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${String(a % 100).padStart(2, '0')}`;
}
const startLabel = (s) => (s === 'prev' ? 'prev' : `day ${s}`);

/** The tables, in markdown. */
export function markdown(summary, { simulate } = {}) {
  const lines = [];
  const families = [...FAMILIES.map((f) => f.name), 'fixture_imported', 'fixture_generated'];
  const titles = {
    books: '### Independent books: overall',
    fixture: '### Fixture book as `premia simulate` runs it (fixtures/policies.csv, fixtures/bank-transactions.csv, generated accounts of seed 1 for the rest)',
    fixture_none: '### Fixture book, generated accounts only (`--bank none`: the README\'s engine table, fixture-month.test.ts)',
  };
  for (const kind of ['books', 'fixture', 'fixture_none']) {
    const scen = summary.filter((s) => s.kind === kind);
    if (scen.length === 0) continue;
    const label = kind === 'books' ? 'Books' : kind === 'fixture' ? 'Fixture' : 'Fixture, generated only';
    lines.push(titles[kind], '');
    lines.push('| period | start | policies | oracle collected | smart / oracle | worst book | smart / oracle_next | naive / oracle | smart failed / policy | smart debits / policy | smart zero-attempt (oracle collected) | naive failed / policy |');
    lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const s of scen) {
      const o = s.groups.overall;
      lines.push(`| ${s.period} | ${startLabel(s.start)} | ${o.smart.policies} | ${rands(o.oracle.collected)} | ${pct(o.smart.ratio_to_oracle)} | ${pct(o.smart.worst_book?.ratio)} | ${pct(o.smart.ratio_to_oracle_next)} | ${pct(o.naive?.ratio_to_oracle)} | ${num2(o.smart.failed_per_policy)} | ${num2(o.smart.debits_per_policy)} | ${o.smart.zero_attempts} (${o.smart.zero_attempts_collectible}) | ${num2(o.naive?.failed_per_policy)} |`);
    }
    lines.push('');
    const present = families.filter((f) => scen.some((s) => s.groups[f]));
    for (const [title, strategy, field] of [
      ['smart / oracle (worst book in brackets)', 'smart', 'ratio'],
      ['smart / oracle_next (the oracle queued a day later: first debit on smart\'s first debit day)', 'smart', 'ratio_next'],
      ['naive / oracle', 'naive', 'ratio'],
      ['smart failed attempts per policy', 'smart', 'failed_per_policy'],
      ['smart debits per policy', 'smart', 'debits_per_policy'],
      ['smart policies with zero attempts (of which the oracle collected something)', 'smart', 'zero'],
    ]) {
      if (!scen[0].groups.overall[strategy]) continue;
      if (kind !== 'books' && !(strategy === 'smart' && field === 'ratio')) continue; // the overall table has the rest
      if (kind === 'fixture_none') continue; // one family: the overall table says it all
      lines.push(`#### ${label}: ${title}`, '');
      lines.push(`| family | ${scen.map((s) => `${s.period} ${startLabel(s.start)}`).join(' | ')} |`);
      lines.push(`|---|${scen.map(() => '---').join('|')}|`);
      for (const f of [...present, 'overall']) {
        const cells = scen.map((s) => {
          const g = s.groups[f]?.[strategy];
          if (!g) return '–';
          if (field === 'ratio') return strategy === 'smart' ? `${pct(g.ratio_to_oracle)} (${pct(g.worst_book?.ratio)})` : pct(g.ratio_to_oracle);
          if (field === 'ratio_next') return pct(g.ratio_to_oracle_next);
          if (field === 'zero') return `${g.zero_attempts} (${g.zero_attempts_collectible})`;
          return num2(g[field]);
        });
        lines.push(`| ${f === 'overall' ? '**overall**' : f} | ${cells.join(' | ')} |`);
      }
      lines.push('');
    }
    const first = scen[0];
    lines.push(`#### ${label}, ${first.period} ${startLabel(first.start)}: amounts`, '');
    lines.push('| family | policies | due | oracle | smart | naive | smart paid in full | oracle paid in full |');
    lines.push('|---|---|---|---|---|---|---|---|');
    for (const f of [...present, 'overall']) {
      const g = first.groups[f];
      if (!g) continue;
      lines.push(`| ${f === 'overall' ? '**overall**' : f} | ${g.smart.policies} | ${rands(g.smart.due)} | ${rands(g.oracle.collected)} | ${rands(g.smart.collected)} | ${g.naive ? rands(g.naive.collected) : '–'} | ${g.smart.paid_full} | ${g.oracle.paid_full} |`);
    }
    lines.push('');
  }
  if (simulate) {
    lines.push('### `premia simulate` (fixture book, November 2026, seed 1, with its day-10 premium changes and cancellations)', '');
    lines.push('| strategy | due | collected | / oracle | attempts | failed |');
    lines.push('|---|---|---|---|---|---|');
    const oracle = simulate.find((x) => x.strategy === 'oracle');
    for (const x of simulate) lines.push(`| ${x.strategy} | ${rands(x.due)} | ${rands(x.collected)} | ${pct(ratio(x.collected, oracle.collected))} | ${x.attempts} | ${x.failed_attempts} |`);
    lines.push('');
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The command

function readFamilies(file) {
  const map = new Map();
  const lines = readFileSync(file, 'utf8').split('\n').slice(1);
  for (const line of lines) {
    if (line === '') continue;
    const [id, family] = line.split(',');
    map.set(id, family);
  }
  return map;
}

function fixtureFamilies() {
  const imported = new Set(
    readFileSync(join(ROOT, 'fixtures', 'bank-transactions.csv'), 'utf8')
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((l) => l.split(',')[0]),
  );
  return (id) => (imported.has(id) ? 'fixture_imported' : 'fixture_generated');
}

function workRoot() {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir(); // stores in memory: no disk waits
  return mkdtempSync(join(base, 'premia-books-'));
}

async function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        seeds: { type: 'string', default: '1,2,3,4,5' },
        customers: { type: 'string', default: '1200' },
        periods: { type: 'string', default: '2026-11,2026-12' },
        starts: { type: 'string', default: STARTS.join(',') },
        'no-fixture': { type: 'boolean', default: false },
        'no-simulate': { type: 'boolean', default: false },
        'new-accounts-in-period': { type: 'boolean', default: false },
        json: { type: 'string', default: join(ROOT, 'bench', '.data', 'books', 'results.json') },
        keep: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    process.stderr.write(`error: ${e.message}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0].replace(/^#!.*\n\/\*\*\n/, '').replace(/^ \* ?/gm, '') + '\n');
    return 0;
  }
  const seeds = values.seeds.split(',').map(Number);
  const customers = Number(values.customers);
  const periods = values.periods.split(',');
  const starts = values.starts.split(',');
  try {
    if (seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new Error('--seeds: whole numbers, comma-separated');
    if (!Number.isInteger(customers) || customers < FAMILIES.length) throw new Error(`--customers: a whole number ≥ ${FAMILIES.length}`);
    for (const p of periods) parsePeriod(p);
    for (const p of periods) for (const s of starts) startDate(p, s);
  } catch (e) {
    process.stderr.write(`error: ${e.message}\n`);
    return 2;
  }
  const cli = await distCli();
  const work = workRoot();
  const log = (m) => process.stderr.write(`${m}\n`);
  const t0 = Date.now();
  const books = [];
  try {
    for (const seed of seeds) {
      for (const period of periods) {
        const name = `seed ${seed}`;
        const dir = join(values.keep ? resolve(values.keep) : work, `seed${seed}-${period}`);
        const book = generateBook({ seed, period, customers, newAccountsInPeriod: values['new-accounts-in-period'] });
        const files = writeBook(book, dir);
        const families = readFamilies(files.families);
        log(`${name} ${period}: ${book.meta.customers} customers, ${book.meta.policies} policies, ${book.meta.bank_rows} bank rows`);
        const result = await scoreBook({
          cli, policiesFile: files.policies, bankFile: files.bank, familyOf: (id) => families.get(id) ?? 'unknown', period, starts,
          workDir: join(work, `seed${seed}-${period}-stores`), keepDir: values.keep ? dir : undefined, log,
        });
        books.push({ kind: 'books', name, seed, meta: book.meta, result });
      }
    }
    let simulate = null;
    if (!values['no-fixture']) {
      const dir = join(values.keep ? resolve(values.keep) : work, 'fixture-2026-11');
      mkdirSync(dir, { recursive: true });
      if (values.keep) mkdirSync(`${dir}-none`, { recursive: true });
      log('fixture book 2026-11');
      const result = await scoreBook({
        cli, policiesFile: join(ROOT, 'fixtures', 'policies.csv'), bankFile: join(ROOT, 'fixtures', 'bank-transactions.csv'), familyOf: fixtureFamilies(),
        period: '2026-11', starts, workDir: join(work, 'fixture-stores'), keepDir: values.keep ? dir : undefined, log,
      });
      books.push({ kind: 'fixture', name: 'fixture', seed: 1, result });
      // The fixture book with generated accounts for everyone: docs/engine.md's strategy table and
      // test/engine/fixture-month.test.ts.
      log('fixture book 2026-11, generated accounts only');
      const generatedOnly = await scoreBook({
        cli, policiesFile: join(ROOT, 'fixtures', 'policies.csv'), bankFile: null, familyOf: () => 'fixture_generated',
        period: '2026-11', starts, workDir: join(work, 'fixture-none-stores'), keepDir: values.keep ? `${dir}-none` : undefined, log,
      });
      books.push({ kind: 'fixture_none', name: 'fixture, generated accounts only', seed: 1, result: generatedOnly });
      if (!values['no-simulate']) {
        simulate = [];
        for (const strategy of STRATEGIES) {
          const r = await cli(['simulate', '--json', '--strategy', strategy, '--out', join(work, `simulate-${strategy}`)]);
          if (r.code !== 0) throw new Error(`premia simulate --strategy ${strategy} exited ${r.code}: ${r.stderr.trim()}`);
          const m = JSON.parse(r.stdout).months[0];
          simulate.push({ strategy, due: cents(m.due), collected: cents(m.collected), attempts: m.attempts, failed_attempts: m.failed_attempts, policies: m.policies });
        }
      }
    }
    const summary = summarise(books);
    process.stdout.write(markdown(summary, { simulate }) + '\n');
    const json = {
      options: { seeds, customers, periods, starts, new_accounts_in_period: values['new-accounts-in-period'] },
      money: 'cents',
      elapsed_s: Math.round((Date.now() - t0) / 100) / 10,
      summary: summary.map((s) => ({ ...s })),
      simulate,
      books: books.map((b) => ({ kind: b.kind, name: b.name, seed: b.seed, meta: b.meta ?? null, period: b.result.period, runs: b.result.runs })),
    };
    mkdirSync(dirname(resolve(values.json)), { recursive: true });
    writeFileSync(resolve(values.json), JSON.stringify(json, null, 1) + '\n');
    log(`done in ${json.elapsed_s} s; JSON: ${resolve(values.json)}${values.keep ? `; books and stores kept in ${resolve(values.keep)}` : ''}`);
    return 0;
  } catch (e) {
    process.stderr.write(`error: ${e.stack ?? e}\n`);
    return 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then((code) => process.exit(code));
}
