import {
  POLICY_STATUSES,
  isPolicyStatus,
  showValue,
  summarise
} from "./chunk-IVFONV4X.js";
import {
  COLLECTION_STATUSES,
  DISPUTE_REASON_MAX,
  PAID_REFERENCE_MAX,
  PAID_REFERENCE_RE,
  SETTLEMENT_STATUSES,
  disputeReasonProblem
} from "./chunk-LWLCY3JA.js";
import {
  isIsoDate,
  isPeriod
} from "./chunk-CXYRJJKB.js";
import {
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/domain/requests.js
var DEFAULT_PAGE_LIMIT = 100;
var MAX_PAGE_LIMIT = 1e4;
var STRATEGY_RE = /^[a-z][a-z0-9_-]{0,31}$/;
var MIN_ADVANCE_DAYS = 0;
var MAX_ADVANCE_DAYS = 3660;
var MAX_SEED = 999999999;
var MAX_REF_LENGTH = 64;
var Checker = class {
  raw;
  errors = [];
  constructor(raw, allowed, what) {
    this.raw = raw;
    for (const key of Object.keys(raw)) {
      if (!allowed.includes(key)) {
        const known = allowed.length > 0 ? `; known: ${allowed.join(", ")}` : "";
        this.add(key, "UNKNOWN_FIELD", `${key} is not a field of ${what}${known}`);
      }
    }
  }
  add(field, code, message) {
    this.errors.push({ field, code, message });
  }
  has(field) {
    return this.raw[field] !== void 0;
  }
  period(field, required) {
    const v = this.raw[field];
    if (v === void 0 || v === null || v === "") {
      if (required)
        this.add(field, "REQUIRED", `${field} is required; give a month like 2026-11`);
      return void 0;
    }
    if (!isPeriod(v)) {
      this.add(field, "INVALID_FORMAT", `${field} must be a month written YYYY-MM, like 2026-11; got ${show(v)}`);
      return void 0;
    }
    return v;
  }
  date(field, required) {
    const v = this.raw[field];
    if (v === void 0 || v === null || v === "") {
      if (required)
        this.add(field, "REQUIRED", `${field} is required; give a date like 2026-11-30`);
      return void 0;
    }
    if (!isIsoDate(v)) {
      this.add(field, "INVALID_FORMAT", `${field} must be a date written YYYY-MM-DD, like 2026-11-30; got ${show(v)}`);
      return void 0;
    }
    return v;
  }
  /** An integer; query parameters arrive as text and are read as decimal digits. */
  integer(field, min, max, required) {
    const v = this.raw[field];
    if (v === void 0 || v === null || v === "") {
      if (required)
        this.add(field, "REQUIRED", `${field} is required; give a whole number from ${min} to ${max}`);
      return void 0;
    }
    const n = wholeNumberOf(v);
    if (n === null || n < min || n > max) {
      this.add(field, "INVALID_VALUE", `${field} must be a whole number from ${min} to ${max}; got ${show(v)}`);
      return void 0;
    }
    return n;
  }
  oneOf(field, values, required) {
    const v = this.raw[field];
    if (v === void 0 || v === null || v === "") {
      if (required)
        this.add(field, "REQUIRED", `${field} is required; one of ${values.join(", ")}`);
      return void 0;
    }
    if (typeof v !== "string" || !values.includes(v)) {
      this.add(field, "INVALID_VALUE", `${field} must be one of ${values.join(", ")}; got ${show(v)}`);
      return void 0;
    }
    return v;
  }
  text(field, min, max, required, pattern, patternText) {
    const v = this.raw[field];
    if (v === void 0 || v === null) {
      if (required)
        this.add(field, "REQUIRED", `${field} is required`);
      return void 0;
    }
    if (typeof v !== "string") {
      this.add(field, "INVALID_TYPE", `${field} must be a string`);
      return void 0;
    }
    const s = v.trim();
    if (s.length < min) {
      this.add(field, "REQUIRED", `${field} must not be empty`);
      return void 0;
    }
    if (s.length > max) {
      this.add(field, "TOO_LONG", `${field} is ${s.length} characters long; at most ${max} are allowed`);
      return void 0;
    }
    if (pattern && !pattern.test(s)) {
      this.add(field, "INVALID_FORMAT", `${field} ${show(s)} is not valid; ${patternText ?? "see the documentation"}`);
      return void 0;
    }
    return s;
  }
  boolean(field) {
    const v = this.raw[field];
    if (v === void 0 || v === null || v === "")
      return void 0;
    if (v === true || v === "true")
      return true;
    if (v === false || v === "false")
      return false;
    this.add(field, "INVALID_VALUE", `${field} must be true or false; got ${show(v)}`);
    return void 0;
  }
  done(prefix, value) {
    if (this.errors.length > 0)
      throw validationError(summarise(prefix, this.errors), this.errors);
    return value;
  }
};
function wholeNumberOf(v) {
  const n = typeof v === "string" && /^-?\d{1,16}$/.test(v) ? Number(v) : v;
  return typeof n === "number" && Number.isInteger(n) ? n : null;
}
var show = showValue;
function validateExecuteRequest(raw) {
  const c = new Checker(raw, ["period_month", "policy_ids", "strategy"], "a collections run");
  const period = c.period("period_month", true);
  const out = { period_month: period ?? "" };
  const ids = raw.policy_ids;
  if (ids !== void 0 && ids !== null) {
    if (!Array.isArray(ids))
      c.add("policy_ids", "INVALID_TYPE", "policy_ids must be a list of policy ids or policy numbers");
    else if (ids.length === 0)
      c.add("policy_ids", "REQUIRED", "policy_ids must not be empty; leave it out to collect every active policy");
    else {
      const bad = ids.findIndex((v) => typeof v !== "string" || v.trim() === "" || v.length > MAX_REF_LENGTH);
      if (bad !== -1) {
        c.add(`policy_ids[${bad}]`, "INVALID_VALUE", `policy_ids[${bad}] must be a policy id or policy number (1\u2013${MAX_REF_LENGTH} characters); got ${show(ids[bad])}`);
      } else
        out.policy_ids = ids.map((v) => v.trim());
    }
  }
  const strategy = c.text("strategy", 1, 32, false, STRATEGY_RE, "a strategy name is lower case letters, digits, _ and -");
  if (strategy !== void 0)
    out.strategy = strategy;
  return c.done("The collections run is not valid", out);
}
function validateSettlementRequest(raw) {
  const c = new Checker(raw, ["period_month"], "a settlement request");
  const period = c.period("period_month", true);
  return c.done("The settlement request is not valid", { period_month: period ?? "" });
}
function validateMarkPaidRequest(raw) {
  const c = new Checker(raw, ["reference"], "a payment confirmation");
  const reference = c.text("reference", 1, PAID_REFERENCE_MAX, false, PAID_REFERENCE_RE, `a payment reference is 1\u2013${PAID_REFERENCE_MAX} of A-Z, 0-9, - and /`);
  return c.done("The payment confirmation is not valid", reference === void 0 ? {} : { reference });
}
function validateDisputeRequest(raw) {
  const c = new Checker(raw, ["reason"], "a dispute");
  const reason = c.text("reason", 1, DISPUTE_REASON_MAX, true);
  const out = c.done("The dispute is not valid", { reason: reason ?? "" });
  const problem = disputeReasonProblem(out.reason);
  if (problem !== null)
    throw validationError(`The dispute reason ${problem}.`, [{ field: "reason", code: "INVALID_VALUE", message: problem }]);
  return out;
}
function validateClockSetRequest(raw) {
  const c = new Checker(raw, ["date"], "a clock setting");
  const date = c.date("date", true);
  return c.done("The clock setting is not valid", { date: date ?? "" });
}
function validateAdvanceRequest(raw) {
  const c = new Checker(raw, ["days", "to", "to_month_end"], "a clock advance");
  const out = {};
  const days = c.integer("days", MIN_ADVANCE_DAYS, MAX_ADVANCE_DAYS, false);
  if (days !== void 0)
    out.days = days;
  const to = c.date("to", false);
  if (to !== void 0)
    out.to = to;
  if (raw.to_month_end !== void 0) {
    if (raw.to_month_end === true)
      out.to_month_end = true;
    else
      c.add("to_month_end", "INVALID_VALUE", "to_month_end must be true (or left out)");
  }
  const given = ["days", "to", "to_month_end"].filter((f) => raw[f] !== void 0);
  if (c.errors.length === 0 && given.length !== 1) {
    c.add("body", given.length === 0 ? "REQUIRED" : "CONFLICTING_FIELDS", `give exactly one of days, to, to_month_end${given.length > 1 ? `; got ${given.join(", ")}` : ""}`);
  }
  return c.done("The clock advance is not valid", out);
}
function validateSeedRequest(raw) {
  const c = new Checker(raw, ["seed"], "a bank seed");
  const seed = typeof raw.seed === "string" ? void 0 : c.integer("seed", 0, MAX_SEED, true);
  if (typeof raw.seed === "string")
    c.add("seed", "INVALID_TYPE", "seed must be a number, not a string");
  return c.done("The bank seed is not valid", { seed: seed ?? 0 });
}
function singleValued(raw, c) {
  for (const [key, value] of Object.entries(raw)) {
    if (Array.isArray(value))
      c.add(key, "REPEATED", `${key} was given ${value.length} times; give it once`);
  }
}
function queryChecker(raw, allowed, what) {
  const c = new Checker(raw, allowed, what);
  singleValued(raw, c);
  return c;
}
function validatePolicyListQuery(raw) {
  const c = queryChecker(raw, ["status", "limit", "after"], "a policy list");
  const out = {};
  if (!Array.isArray(raw.status)) {
    const status = c.oneOf("status", POLICY_STATUSES, false);
    if (status !== void 0 && isPolicyStatus(status))
      out.status = status;
  }
  if (!Array.isArray(raw.limit)) {
    const limit = c.integer("limit", 1, MAX_PAGE_LIMIT, false);
    if (limit !== void 0)
      out.limit = limit;
  }
  if (typeof raw.after === "string" && raw.after !== "")
    out.after = raw.after;
  return c.done("The query is not valid", out);
}
function validateCollectionListQuery(raw) {
  const c = queryChecker(raw, ["period_month", "status", "policy", "limit", "after"], "a collection list");
  const out = { period_month: "" };
  if (!Array.isArray(raw.period_month))
    out.period_month = c.period("period_month", true) ?? "";
  if (!Array.isArray(raw.status)) {
    const status = c.oneOf("status", COLLECTION_STATUSES, false);
    if (status !== void 0)
      out.status = status;
  }
  if (typeof raw.policy === "string" && raw.policy !== "")
    out.policy = raw.policy;
  if (!Array.isArray(raw.limit)) {
    const limit = c.integer("limit", 1, MAX_PAGE_LIMIT, false);
    if (limit !== void 0)
      out.limit = limit;
  }
  if (typeof raw.after === "string" && raw.after !== "")
    out.after = raw.after;
  return c.done("The query is not valid", out);
}
function validateSettlementListQuery(raw) {
  const c = queryChecker(raw, ["status", "period_month"], "a settlement list");
  const out = {};
  if (!Array.isArray(raw.status)) {
    const status = c.oneOf("status", SETTLEMENT_STATUSES, false);
    if (status !== void 0)
      out.status = status;
  }
  if (!Array.isArray(raw.period_month)) {
    const period = c.period("period_month", false);
    if (period !== void 0)
      out.period_month = period;
  }
  return c.done("The query is not valid", out);
}
function validateReportQuery(raw) {
  const c = queryChecker(raw, ["period_month", "format"], "a report");
  const out = { period_month: "", format: "csv" };
  if (!Array.isArray(raw.period_month))
    out.period_month = c.period("period_month", true) ?? "";
  if (!Array.isArray(raw.format))
    out.format = c.oneOf("format", ["csv", "json"], false) ?? "csv";
  return c.done("The report request is not valid", out);
}
function validateExportQuery(raw) {
  const c = queryChecker(raw, ["lines"], "a settlement export");
  const lines = Array.isArray(raw.lines) ? void 0 : c.boolean("lines");
  return c.done("The export request is not valid", { lines: lines ?? false });
}
function validateAdvanceQuery(raw) {
  const c = queryChecker(raw, ["days", "to", "to_month_end"], "a clock advance preview");
  c.done("The query is not valid", void 0);
  const body = {};
  if (raw.days !== void 0)
    body.days = typeof raw.days === "string" && /^\d{1,16}$/.test(raw.days) ? Number(raw.days) : raw.days;
  if (raw.to !== void 0)
    body.to = raw.to;
  if (raw.to_month_end !== void 0)
    body.to_month_end = raw.to_month_end === "true" ? true : raw.to_month_end;
  return validateAdvanceRequest(body);
}
function validateSettlementPreviewQuery(raw) {
  const c = queryChecker(raw, ["period_month"], "a settlement preview");
  const period = Array.isArray(raw.period_month) ? void 0 : c.period("period_month", true);
  return c.done("The query is not valid", { period_month: period ?? "" });
}
function validateNoQuery(raw) {
  const c = queryChecker(raw, [], "this request (it takes no query parameters)");
  c.done("The query is not valid", void 0);
}
function checkPeriodOption(value, option = "--period") {
  if (isPeriod(value))
    return value;
  throw validationError(`${option} '${String(value)}' is not a period; write it as YYYY-MM, e.g. 2026-11.`);
}
function checkPageLimitOption(value, option = "--limit") {
  if (value === void 0)
    return void 0;
  const n = wholeNumberOf(value);
  if (n === null || n < 1 || n > MAX_PAGE_LIMIT)
    throw validationError(`${option} must be a whole number from 1 to ${MAX_PAGE_LIMIT}.`);
  return n;
}

export {
  DEFAULT_PAGE_LIMIT,
  MIN_ADVANCE_DAYS,
  MAX_ADVANCE_DAYS,
  validateExecuteRequest,
  validateSettlementRequest,
  validateMarkPaidRequest,
  validateDisputeRequest,
  validateClockSetRequest,
  validateAdvanceRequest,
  validateSeedRequest,
  validatePolicyListQuery,
  validateCollectionListQuery,
  validateSettlementListQuery,
  validateReportQuery,
  validateExportQuery,
  validateAdvanceQuery,
  validateSettlementPreviewQuery,
  validateNoQuery,
  checkPeriodOption,
  checkPageLimitOption
};
