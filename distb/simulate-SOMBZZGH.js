import {
  fixturePath
} from "./chunk-XJXUFRAS.js";
import {
  outputDirectory,
  writeDownload
} from "./chunk-X5LTGHGA.js";
import {
  startProgress
} from "./chunk-GIGWEC74.js";
import {
  stopped
} from "./chunk-ICH5SV3J.js";
import {
  localOnly,
  resolveTarget
} from "./chunk-43RJ6XF5.js";
import "./chunk-TQX5C6XS.js";
import {
  hashString32
} from "./chunk-K26TIJNB.js";
import "./chunk-7L3A4ARV.js";
import {
  addDays,
  isPeriod,
  lastDay,
  nextPeriod
} from "./chunk-CXYRJJKB.js";
import "./chunk-7UDSVXC4.js";
import "./chunk-MHVTT2HV.js";
import {
  asCents
} from "./chunk-JX2JAKWC.js";
import {
  openUpload
} from "./chunk-YHF3GLAW.js";
import {
  catchCtrlC
} from "./chunk-XJNWV2JP.js";
import {
  money,
  percentOf
} from "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import {
  count,
  plural
} from "./chunk-7BKCKV6J.js";
import {
  conflict,
  usageError,
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/simulate/simulate.js
import { join, relative, resolve } from "node:path";

// dist/simulation/scenario.js
var PATTERN_SUMMARY_LIMIT = 2e4;
async function runSimulation(b, plan, io) {
  const summary = { seed: plan.seed, strategy: plan.strategy, months: [] };
  const signal = io.signal;
  const strategy = plan.strategy;
  let period = plan.first;
  io.progress(`Importing ${io.policies.name}`);
  const imported = await b.importPolicies(await io.policies.open(), { signal });
  if (imported.failed > 0)
    io.warn(`${plural(imported.failed, "policy row was", "policy rows were")} refused (see 'premia policies import' for the list).`);
  if (io.bank) {
    const bank = await b.importBankTransactions(await io.bank.open(), { signal });
    if (bank.failed > 0)
      io.warn(`${plural(bank.failed, "bank row was", "bank rows were")} refused (see 'premia bank import' for the list).`);
  }
  await b.executeCollections({ period_month: period, strategy });
  for (let m = 0; m < plan.months && !signal.aborted; m++) {
    const changes = { amount: 0, cancelled: 0, lapsed: 0 };
    io.progress(`${period}: days 1-9`);
    const to9 = await b.advanceClock({ to: `${period}-09` }, { signal });
    changes.lapsed += to9.days.reduce((s, d) => s + d.lapsed_policies, 0);
    if (signal.aborted)
      break;
    await policyEvents(b, period, changes);
    const rest = await b.advanceClock({ to: lastDay(period) }, {
      signal,
      onDay: (d, i, total) => io.progress(`${period}: day ${d.date} (${i} of ${total})`)
    });
    changes.lapsed += rest.days.reduce((s, d) => s + d.lapsed_policies, 0);
    if (signal.aborted)
      break;
    const next = nextPeriod(period);
    if (m + 1 < plan.months)
      await b.executeCollections({ period_month: next, strategy });
    await io.makeOutputDirectory(period);
    const files = [];
    await b.advanceClock({ days: 1 }, { signal });
    if (signal.aborted)
      break;
    files.push(await io.save(period, await b.collectionsReport(period, "csv")));
    files.push(await io.save(period, await b.exportAttempts(period, "csv")));
    await b.advanceClock({ days: 1 }, { signal });
    if (signal.aborted)
      break;
    const settlement = await b.createSettlement(period);
    await b.advanceClock({ days: 1 }, { signal });
    if (signal.aborted)
      break;
    files.push(await io.save(period, await b.exportSettlement(settlement.id)));
    files.push(await io.save(period, await b.exportSettlement(settlement.id, { lines: true }), `${settlement.settlement_number}-lines.csv`));
    const month = await summariseMonth(b, period, settlement, changes, files);
    if (io.summaryPage)
      files.push(await io.save(period, await io.summaryPage(period, month.patternOf)));
    summary.months.push(month.summary);
    period = next;
  }
  return { summary, period };
}
async function policyEvents(b, period, changes) {
  let after;
  for (; ; ) {
    const page = await b.listPolicies({ status: "active", limit: 1e4, after });
    for (const p of page.data) {
      const h = hashString32(`${period}/${p.policy_number}`, 24301);
      const roll = h % 1e4 / 1e4;
      if (roll < 0.01) {
        await b.updatePolicy(p.id, { status: "cancelled" });
        changes.cancelled++;
      } else if (roll < 0.04) {
        const pct = 5 + (h >>> 8) % 16;
        const up = (h >>> 16 & 1) === 1;
        const amount = Math.max(100, Math.round(p.collection_amount * (100 + (up ? pct : -pct)) / 100));
        if (amount !== p.collection_amount && amount <= 1e8) {
          await b.updatePolicy(p.id, { collection_amount: asCents(amount) });
          changes.amount++;
        }
      }
    }
    if (page.next_after === null)
      return;
    after = page.next_after;
  }
}
async function allCollections(b, period) {
  const out = [];
  let after;
  for (; ; ) {
    const page = await b.listCollections({ period_month: period, limit: 1e4, after });
    out.push(...page.data);
    if (page.next_after === null)
      return out;
    after = page.next_after;
  }
}
async function summariseMonth(b, period, settlement, changes, files) {
  const rows = await allCollections(b, period);
  const byStatus = { PAID_FULL: 0, PAID_PARTIAL: 0, UNPAID: 0, CANCELLED: 0 };
  let due = 0;
  let collected = 0;
  let attempts = 0;
  let failed = 0;
  const failedOf = /* @__PURE__ */ new Map();
  const attemptsCsv = await readAll(await b.exportAttempts(period, "csv"));
  for (const line of attemptsCsv.split("\n").slice(1)) {
    if (!line.includes(",FAILED,"))
      continue;
    const id = line.slice(0, line.indexOf(","));
    failedOf.set(id, (failedOf.get(id) ?? 0) + 1);
  }
  for (const c of rows) {
    byStatus[c.collection_status] = (byStatus[c.collection_status] ?? 0) + 1;
    due += c.collection_amount_due;
    collected += c.collection_amount_collected;
    attempts += c.number_of_attempts;
    failed += failedOf.get(c.id) ?? 0;
  }
  let patterns = null;
  let patternOf = null;
  const customers = [...new Set(rows.map((c) => c.customer_id))];
  if (customers.length <= PATTERN_SUMMARY_LIMIT) {
    patternOf = /* @__PURE__ */ new Map();
    for (const id of customers)
      patternOf.set(id, (await b.showBankAccount(id)).income.pattern);
    const acc = /* @__PURE__ */ new Map();
    for (const c of rows) {
      const pattern = patternOf.get(c.customer_id);
      let r = acc.get(pattern);
      if (!r)
        acc.set(pattern, r = { pattern, policies: 0, paid_full: 0, due: 0, collected: 0, failed_attempts: 0 });
      r.policies++;
      if (c.collection_status === "PAID_FULL")
        r.paid_full++;
      r.due += c.collection_amount_due;
      r.collected += c.collection_amount_collected;
      r.failed_attempts += failedOf.get(c.id) ?? 0;
    }
    patterns = [...acc.values()].sort((x, y) => y.policies - x.policies || (x.pattern < y.pattern ? -1 : 1));
  }
  const { created_at: _c, paid_on: _p, paid_reference: _r, disputed_on: _d, dispute_reason: _w, ...statement } = settlement;
  const summary = {
    period_month: period,
    policies: rows.length,
    by_status: byStatus,
    due,
    collected,
    collection_rate_amount: rate(collected, due),
    collection_rate_count: rate(byStatus.PAID_FULL, rows.length),
    attempts,
    failed_attempts: failed,
    failed_attempts_per_policy: rows.length === 0 ? 0 : Math.round(failed / rows.length * 1e3) / 1e3,
    amount_changes: changes.amount,
    cancellations: changes.cancelled,
    lapsed_policies: changes.lapsed,
    by_income_pattern: patterns,
    settlement: statement,
    files
  };
  return { summary, patternOf };
}
async function readAll(d) {
  let s = "";
  for await (const chunk of d.body)
    s += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  return s;
}
function rate(part, whole) {
  return whole === 0 ? 0 : Math.round(part / whole * 1e4) / 1e4;
}

// dist/cli/commands/simulate/simulate.js
var DEFAULT_POLICIES = fixturePath("policies.csv");
var DEFAULT_BANK = fixturePath("bank-transactions.csv");
function simulateOptions(deps, flags) {
  const first = flags.period;
  if (!isPeriod(first))
    throw validationError(`--period must be a month written YYYY-MM; got '${flags.period}'.`);
  const months = Number(flags.months);
  if (!/^\d+$/.test(String(flags.months)) || months < 1 || months > 24)
    throw validationError("--months must be a whole number from 1 to 24.");
  return {
    ...deps,
    first,
    months,
    strategy: flags.strategy,
    policiesFile: flags.policies ?? DEFAULT_POLICIES,
    bankFile: flags.bank === "none" ? null : flags.bank ?? DEFAULT_BANK,
    out: flags.out
  };
}
async function simulateRun({ ctx, globals, ui, createsStore, first, months, strategy, policiesFile, bankFile, out: output }) {
  const out = { output, option: "--out" };
  const outDir = resolve(ctx.cwd, output);
  await outputDirectory(outDir, out, false);
  if (globals.baseUrl !== void 0 || globals.profile !== void 0)
    throw localOnly("premia simulate");
  if (globals.db === void 0 && (await resolveTarget(ctx, globals)).mode === "remote")
    throw localOnly("premia simulate");
  const dbChosen = globals.db;
  const b = await ctx.backend({ ...globals, db: dbChosen ?? ":memory:", seed: globals.seed ?? (dbChosen === void 0 ? "1" : void 0) }, { createStore: createsStore });
  if (b.mode !== "local")
    throw usageError("simulate runs on a local store; drop --base-url / PREMIA_BASE_URL to use it.");
  const clock = await b.getClock();
  if (clock.locked) {
    throw conflict("CONFLICT", `The store ${dbChosen} already has a collections run; simulate needs a new store (choose another --db, or none for a temporary one).`);
  }
  await b.setClock(addDays(`${first}-01`, -1));
  const progress = await startProgress(ui, "Simulating\u2026");
  const ctrlC = catchCtrlC(ctx, () => {
    progress.stop();
    ui.status("Ctrl-C: stopping after the day in progress (press Ctrl-C again to quit at once).");
  });
  const signal = ctrlC.signal;
  let outcome;
  try {
    outcome = await runSimulation(b, { first, months, strategy, seed: clock.seed }, {
      policies: { name: policiesFile, open: () => openUpload(ctx, policiesFile) },
      bank: bankFile === null ? null : { name: bankFile, open: () => openUpload(ctx, bankFile) },
      makeOutputDirectory: (period2) => outputDirectory(join(outDir, period2), out, true).then(() => void 0),
      save: async (period2, download, name) => {
        const dir = join(outDir, period2);
        const path = (await writeDownload(ctx, download, name === void 0 ? dir : join(dir, name), void 0, "--out")).path;
        return relative(ctx.cwd, path) || path;
      },
      // The month in pictures (reports summary --html), beside the CSV files.
      summaryPage: async (period2, incomePatterns) => {
        const [{ readSummary }, { summaryPage }] = await Promise.all([import("./summary-figures-Q6A767CV.js"), import("./summary-E7Y7FVJO.js")]);
        return summaryPage(await readSummary(b, period2, { incomePatterns }));
      },
      progress: (text) => progress.update(text),
      warn: (text) => ui.warn(text),
      signal
    });
  } catch (e) {
    if (!signal.aborted)
      progress.fail("The simulation stopped.");
    throw e;
  } finally {
    ctrlC.release();
  }
  progress.stop();
  const { summary, period } = outcome;
  if (ui.json)
    ui.printJson(summary);
  else
    printSummary(ui, summary);
  if (signal.aborted) {
    const done = summary.months.length;
    const at = (await b.getClock()).date;
    throw stopped(`Stopped by Ctrl-C on ${at}, in month ${done + 1} of ${months} (${period}): ${done === 0 ? "no month was completed" : `${plural(done, "month")} completed (summarised above)`}; ` + (dbChosen === void 0 ? "the temporary store is gone." : `the store ${dbChosen} is at ${at}.`));
  }
  return 0;
}
function printSummary(ui, s) {
  for (const m of s.months) {
    ui.line(ui.out.bold(`Collections ${m.period_month}`) + `  (seed ${s.seed}, strategy ${s.strategy})`);
    ui.table([
      { header: "status", value: (r) => r[0] },
      { header: "policies", value: (r) => count(r[1]), align: "right" },
      { header: "share", value: (r) => percentOf(r[1], m.policies), align: "right" }
    ], Object.entries(m.by_status));
    ui.line(`collected ${money(m.collected)} of ${money(m.due)} due: ${percentOf(m.collected, m.due)} by amount, ${percentOf(m.by_status.PAID_FULL ?? 0, m.policies)} of policies paid in full`);
    ui.line(`attempts ${count(m.attempts)}, failed ${count(m.failed_attempts)} (${m.failed_attempts_per_policy.toFixed(3)} per policy)`);
    if (m.amount_changes || m.cancellations || m.lapsed_policies) {
      ui.line(`policy changes: ${plural(m.amount_changes, "premium change")} (from next month), ${plural(m.cancellations, "cancellation")}, ${count(m.lapsed_policies)} lapsed`);
    }
    if (m.by_income_pattern) {
      ui.line();
      ui.table([
        { header: "income pattern", value: (r) => r.pattern },
        { header: "policies", value: (r) => r.policies, align: "right" },
        { header: "paid full", value: (r) => percentOf(r.paid_full, r.policies), align: "right" },
        { header: "collected", value: (r) => percentOf(r.collected, r.due), align: "right" },
        { header: "failed/policy", value: (r) => (r.failed_attempts / r.policies).toFixed(2), align: "right" }
      ], m.by_income_pattern);
    }
    const st = m.settlement;
    ui.line();
    ui.line(ui.out.bold(`Settlement ${st.settlement_number}`) + ` (${st.status}; EFT on ${st.payment_date}, reference ${st.payment_reference})`);
    ui.keyValues([
      ["total_collections", money(st.total_collections)],
      ["distribution_fee (25%)", money(st.distribution_fee)],
      ["collections_fee (3.5%)", money(st.collections_fee)],
      ["total_fees", money(st.total_fees)],
      ["vat (15% of fees)", money(st.vat)],
      ["net_amount", money(st.net_amount)]
    ]);
    ui.line();
    ui.line(`Files: ${m.files.join(", ")}`);
    ui.line();
  }
}
var simulate_default = verb(simulateOptions, simulateRun);
export {
  simulate_default as default,
  printSummary,
  simulateOptions,
  simulateRun
};
