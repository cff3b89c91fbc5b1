import {
  CsvReader
} from "./chunk-KZMX44YV.js";
import {
  ATTEMPT_COLUMNS,
  REPORT_COLUMNS
} from "./chunk-MRLEVLPO.js";
import {
  addDays,
  firstDay,
  lastDay
} from "./chunk-CXYRJJKB.js";
import {
  centsFromJsonNumber
} from "./chunk-JX2JAKWC.js";
import {
  PremiaError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/reports/summary-figures.js
var PATTERN_CUSTOMER_LIMIT = 2e3;
var LOOKUPS_IN_FLIGHT = 8;
function share(part, whole) {
  return whole === 0 ? 0 : Math.round(part / whole * 1e4) / 1e4;
}
async function readSummary(b, period, options = {}) {
  const report = await b.collectionsReport(period, "csv");
  const byStatus = { PAID_FULL: 0, PAID_PARTIAL: 0, UNPAID: 0, CANCELLED: 0 };
  let policies = 0;
  let due = 0;
  let collected = 0;
  const customers = /* @__PURE__ */ new Map();
  const lastFailures = /* @__PURE__ */ new Map();
  const open = [];
  await readCsv(report, "collections report", REPORT_COLUMNS, (f) => {
    const [, customer_id, external_customer_ref, policy_number, product_code, dueText, collectedText, , statusText, , lastAttempt2, attemptsText, lastFailure] = f;
    const status = statusText;
    if (!(status in byStatus))
      throw new Error(`unknown collection_status '${statusText}'`);
    const rowDue = moneyCents(dueText, "collection_amount_due");
    const rowCollected = moneyCents(collectedText, "collection_amount_collected");
    policies++;
    byStatus[status]++;
    due += rowDue;
    collected += rowCollected;
    let c = customers.get(customer_id);
    if (!c)
      customers.set(customer_id, c = { policies: 0, paid_full: 0, due: 0, collected: 0, failed_attempts: 0 });
    c.policies++;
    if (status === "PAID_FULL")
      c.paid_full++;
    c.due += rowDue;
    c.collected += rowCollected;
    const failure = lastFailure === "" ? null : lastFailure;
    if (failure !== null && status !== "PAID_FULL")
      lastFailures.set(failure, (lastFailures.get(failure) ?? 0) + 1);
    if (status === "UNPAID" || status === "PAID_PARTIAL") {
      open.push({
        policy_number,
        customer_id,
        external_customer_ref,
        product_code,
        collection_status: status,
        collection_amount_due: rowDue,
        collection_amount_collected: rowCollected,
        shortfall: rowDue - rowCollected,
        number_of_attempts: Number(attemptsText),
        last_attempt_date: lastAttempt2 === "" ? null : lastAttempt2,
        last_failure_reason: failure
      });
    }
  });
  const perDay = /* @__PURE__ */ new Map();
  let lastAttempt = null;
  let attempts = 0;
  let failedAttempts = 0;
  const failures = /* @__PURE__ */ new Map();
  const attemptsExport = await b.exportAttempts(period, "csv");
  await readCsv(attemptsExport, "attempts export", ATTEMPT_COLUMNS, (f) => {
    const [, , customer_id, date, amountText, outcome, reasonText] = f;
    const amount = moneyCents(amountText, "amount");
    attempts++;
    let d = perDay.get(date);
    if (!d)
      perDay.set(date, d = { collected: 0, succeeded: 0, failed: 0 });
    if (lastAttempt === null || date > lastAttempt)
      lastAttempt = date;
    if (outcome === "SUCCESS") {
      d.collected += amount;
      d.succeeded++;
      return;
    }
    d.failed++;
    failedAttempts++;
    const c = customers.get(customer_id);
    if (c)
      c.failed_attempts++;
    const reason = reasonText === "" ? "UNKNOWN" : reasonText;
    let r = failures.get(reason);
    if (!r)
      failures.set(reason, r = { reason, attempts: 0, policies: 0, failed_amount: 0 });
    r.attempts++;
    r.failed_amount += amount;
  });
  for (const [reason, n] of lastFailures) {
    let r = failures.get(reason);
    if (!r)
      failures.set(reason, r = { reason, attempts: 0, policies: 0, failed_amount: 0 });
    r.policies = n;
  }
  const byDay = [];
  const last = lastAttempt;
  if (last !== null) {
    const end = last < lastDay(period) ? last : lastDay(period);
    let running = 0;
    for (const [date, d] of perDay)
      if (date < firstDay(period))
        running += d.collected;
    for (let date = firstDay(period); date <= end; date = addDays(date, 1)) {
      const d = perDay.get(date) ?? { collected: 0, succeeded: 0, failed: 0 };
      running += d.collected;
      byDay.push({ date, collected: d.collected, amount_collected: running, cumulative_rate: share(running, due), succeeded: d.succeeded, failed: d.failed });
    }
  }
  const { patterns, note } = await incomePatterns(b, customers, options.incomePatterns ?? null);
  open.sort((x, y) => y.shortfall - x.shortfall || (x.policy_number < y.policy_number ? -1 : x.policy_number > y.policy_number ? 1 : 0));
  return {
    period_month: period,
    period_state: report.periodState ?? null,
    policies,
    by_status: byStatus,
    due,
    collected,
    shortfall: due - collected,
    collection_rate: share(collected, due),
    attempts,
    failed_attempts: failedAttempts,
    by_day: byDay,
    by_income_pattern: patterns,
    patterns_note: note,
    failures_by_reason: [...failures.values()].sort((x, y) => y.attempts - x.attempts || y.policies - x.policies || (x.reason < y.reason ? -1 : 1)),
    settlement: await currentSettlement(b, period),
    unpaid_and_partial: open
  };
}
async function incomePatterns(b, customers, known) {
  const patternOf = new Map(known ?? []);
  const missing = [...customers.keys()].filter((id) => !patternOf.has(id));
  if (missing.length > PATTERN_CUSTOMER_LIMIT) {
    return { patterns: null, note: `not analysed: ${missing.length} customers (the table looks each one up, up to ${PATTERN_CUSTOMER_LIMIT})` };
  }
  let refused = null;
  let next = 0;
  const worker = async () => {
    while (next < missing.length && refused === null) {
      const id = missing[next++];
      try {
        patternOf.set(id, (await b.showBankAccount(id)).income.pattern);
      } catch (e) {
        if (!(e instanceof PremiaError))
          throw e;
        if (e.code === "NOT_FOUND")
          patternOf.set(id, "unknown");
        else
          refused = e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_IN_FLIGHT, missing.length) }, worker));
  if (refused !== null)
    return { patterns: null, note: `not analysed: bank accounts cannot be read here (${refused.code})` };
  const acc = /* @__PURE__ */ new Map();
  for (const [id, c] of customers) {
    const pattern = patternOf.get(id) ?? "unknown";
    let p = acc.get(pattern);
    if (!p)
      acc.set(pattern, p = { pattern, policies: 0, paid_full: 0, due: 0, collected: 0, collection_rate: 0, failed_attempts: 0 });
    p.policies += c.policies;
    p.paid_full += c.paid_full;
    p.due += c.due;
    p.collected += c.collected;
    p.failed_attempts += c.failed_attempts;
  }
  for (const p of acc.values())
    p.collection_rate = share(p.collected, p.due);
  return { patterns: [...acc.values()].sort((x, y) => y.policies - x.policies || (x.pattern < y.pattern ? -1 : 1)), note: null };
}
function moneyCents(text, field) {
  const m = /^(-?)(\d{1,13})\.(\d\d)$/.exec(text);
  if (m)
    return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 100 + Number(m[3]));
  return centsFromJsonNumber(text, field);
}
async function readCsv(d, what, columns, onRow) {
  let header = true;
  const failed = { error: null };
  const reader = new CsvReader({
    onRecord: (fields, line, problem) => {
      if (failed.error !== null)
        return;
      try {
        if (problem !== null)
          throw new Error(problem);
        if (header) {
          header = false;
          if (fields.join(",") !== columns.join(","))
            throw new Error(`its header is not ${columns.join(",")}`);
          return;
        }
        if (fields.length !== columns.length)
          throw new Error(`${fields.length} fields instead of ${columns.length}`);
        onRow(fields);
      } catch (e) {
        failed.error = new PremiaError("INTERNAL", `The ${what} could not be read (line ${line}: ${e.message}).`, { cause: e });
      }
    }
  });
  for await (const chunk of d.body) {
    reader.push(chunk);
    if (failed.error !== null)
      throw failed.error;
  }
  reader.end();
  if (failed.error !== null)
    throw failed.error;
}
async function currentSettlement(b, period) {
  const all = (await b.listSettlements({ period_month: period })).data;
  const current = all.filter((s) => s.superseded_by === null).sort((x, y) => x.settlement_number < y.settlement_number ? 1 : -1)[0];
  if (!current)
    return null;
  return {
    settlement_number: current.settlement_number,
    status: current.status,
    total_collections: current.total_collections,
    distribution_fee: current.distribution_fee,
    collections_fee: current.collections_fee,
    total_fees: current.total_fees,
    vat: current.vat,
    previously_paid: current.previously_paid,
    net_amount: current.net_amount,
    payment_date: current.payment_date,
    payment_reference: current.payment_reference,
    collections_count: current.collections_count
  };
}

export {
  PATTERN_CUSTOMER_LIMIT,
  share,
  readSummary
};
