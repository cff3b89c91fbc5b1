import {
  CR_LINE_ENDS,
  CsvFormatError,
  CsvReader,
  bareCrHint,
  trimCell
} from "./chunk-KZMX44YV.js";
import {
  csvCell,
  csvRow
} from "./chunk-QFVJLG6N.js";
import {
  daysBetween,
  periodsClosedBetween,
  resolveAdvanceTarget
} from "./chunk-V3ZTTVYI.js";
import {
  DEFAULT_PAGE_LIMIT,
  validateClockSetRequest,
  validateCollectionListQuery,
  validateDisputeRequest,
  validateExecuteRequest,
  validateMarkPaidRequest,
  validatePolicyListQuery,
  validateReportQuery,
  validateSettlementListQuery,
  validateSettlementRequest
} from "./chunk-HUXLOL7T.js";
import {
  checkTransition
} from "./chunk-IVFONV4X.js";
import {
  ATTEMPT_COLUMNS,
  REPORT_COLUMNS,
  SETTLEMENT_EXPORT_COLUMNS
} from "./chunk-MRLEVLPO.js";
import {
  DEFAULT_STRATEGY,
  STRATEGY_NAMES
} from "./chunk-F6XEBFEX.js";
import {
  COLLECTION_STATUSES,
  STATUS_BY_CODE,
  amountDue,
  checkDispute,
  checkMarkPaid,
  checkPeriodClosed,
  noCollections,
  paymentDateOf,
  paymentReference,
  settlementExists,
  settlementNumber
} from "./chunk-LWLCY3JA.js";
import {
  Rng,
  fmix32,
  hashString32,
  mix32,
  unitFloat
} from "./chunk-K26TIJNB.js";
import {
  CompiledQuery,
  Kysely,
  MARKER_TABLE,
  MIGRATION_TABLE,
  PG_LOCK_SPACE,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  WRITER_LOCK,
  idSyncSql,
  migrate,
  pgPlaceholders,
  pgSettings,
  sql
} from "./chunk-Z3CTVQDO.js";
import {
  isPostgresUrl
} from "./chunk-7L3A4ARV.js";
import {
  CALENDAR_BASES,
  CALENDAR_KEY,
  DEFAULT_CALENDAR,
  IMPORTED_HOLIDAYS_KEY,
  customerKey,
  inDayUnit,
  isCalendarBase,
  monthAt,
  monthOf,
  parseStoredHolidays,
  pgBankStore,
  readPgCustomerBankInputs,
  storedCalendar,
  storedHolidaysText
} from "./chunk-MFYXJBV4.js";
import {
  CopyIn,
  pgLiteral
} from "./chunk-KIJGBPVL.js";
import {
  periodStateOf
} from "./chunk-FKNU4UUY.js";
import {
  NO_DAY,
  addDays,
  dayNumber,
  firstDay,
  firstOpenPeriod,
  fromDayNumber,
  isIsoDate,
  lastDay,
  nextPeriod,
  periodOf,
  previousPeriod,
  shiftPeriod,
  weekday
} from "./chunk-CXYRJJKB.js";
import {
  stringifyJson
} from "./chunk-MHVTT2HV.js";
import {
  ASCII_CHAR_CLASS,
  IDENTIFIER_CHAR,
  IDENTIFIER_MAX,
  Money,
  PRODUCT_CODE_CHAR,
  PRODUCT_CODE_MAX,
  applyRate,
  asCents,
  checkIdentifier,
  checkProductCode,
  formatCents,
  parsePremium,
  parseSignedAmount,
  plainPremiumCents,
  printable
} from "./chunk-JX2JAKWC.js";
import {
  plural
} from "./chunk-7BKCKV6J.js";
import {
  ExitCode,
  PremiaError,
  conflict,
  notFound,
  usageError,
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/store/repos/clients.js
async function findClientById(db, id) {
  return db.selectFrom("clients").selectAll().where("id", "=", id).executeTakeFirst();
}
async function findClientByName(db, name) {
  return db.selectFrom("clients").selectAll().where("name", "=", name).executeTakeFirst();
}
async function insertClient(db, row) {
  const result = await db.insertInto("clients").values(row).returning("id").executeTakeFirstOrThrow();
  return Number(result.id);
}

// dist/store/repos/collections.js
var IN_LIST_MAX = 500;
var COLLECTION_COLUMNS = [
  "id",
  "execution_id",
  "policy_id",
  "period_month",
  "customer_id",
  "external_customer_ref",
  "policy_number",
  "product_code",
  "amount_due",
  "amount_collected",
  "status",
  "first_attempt_date",
  "last_attempt_date",
  "attempts",
  "failed_attempts",
  "last_failure_reason"
];
async function insertExecution(db, row) {
  const result = await db.insertInto("executions").values(row).returning("id").executeTakeFirstOrThrow();
  return Number(result.id);
}
async function deleteExecution(db, clientId, id) {
  await db.deleteFrom("executions").where("id", "=", id).where("client_id", "=", clientId).execute();
}
async function setPoliciesQueued(db, clientId, id, queued) {
  await db.updateTable("executions").set({ policies_queued: queued }).where("id", "=", id).where("client_id", "=", clientId).execute();
}
async function queueCollections(db, clientId, executionId, period, policyIds) {
  const only = policyIds === null ? sql`` : sql`and p.id in (${sql.join(policyIds.length > 0 ? policyIds : [-1])})`;
  const result = await sql`
    insert into collections (client_id, execution_id, policy_id, period_month, customer_id, external_customer_ref,
                             policy_number, product_code, amount_due, status)
    select p.client_id, ${executionId}, p.id, ${period}, p.customer_id, p.external_customer_ref, p.policy_number, p.product_code,
           coalesce(
             (select x.new_amount from policy_amount_changes x where x.policy_id = p.id and x.effective_period <= ${period}
               order by x.effective_period desc, x.seq desc limit 1),
             (select x.old_amount from policy_amount_changes x where x.policy_id = p.id order by x.seq limit 1),
             p.collection_amount),
           'UNPAID'
    from policies p
    where p.client_id = ${clientId} and p.status = 'active' ${only}
      and not exists (select 1 from collections c where c.client_id = p.client_id and c.period_month = ${period}
                      and c.policy_number = p.policy_number)
    order by p.policy_number`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
async function executionHolding(db, clientId, period, policyIds, self) {
  const newest = (row) => row?.id === null || row?.id === void 0 ? null : Number(row.id);
  const executions = db.selectFrom("executions").select((eb) => eb.fn.max("id").as("id")).where("client_id", "=", clientId).where("period_month", "=", period).where("id", "!=", self);
  const held = policyIds === null ? newest(await executions.where("policies_queued", ">", 0).executeTakeFirst()) : newest(await db.selectFrom("collections").select((eb) => eb.fn.max("execution_id").as("id")).where("policy_id", "in", policyIds.length > 0 ? policyIds : [-1]).where("period_month", "=", period).where("client_id", "=", clientId).executeTakeFirst());
  return held ?? newest(await executions.executeTakeFirst());
}
async function findExecution(db, clientId, id) {
  return db.selectFrom("executions").selectAll().where("id", "=", id).where("client_id", "=", clientId).executeTakeFirst();
}
async function executionStatusCounts(db, executionId) {
  const rows = await db.selectFrom("collections").select(["status", (eb) => eb.fn.countAll().as("n")]).where("execution_id", "=", executionId).groupBy("status").execute();
  return rows.map((r) => ({ status: r.status, count: Number(r.n) }));
}
async function executionStrategy(db, executionId) {
  const row = await db.selectFrom("executions").select("strategy").where("id", "=", executionId).executeTakeFirstOrThrow();
  return row.strategy;
}
async function findCollection(db, clientId, id) {
  return db.selectFrom("collections").select(COLLECTION_COLUMNS).where("id", "=", id).where("client_id", "=", clientId).executeTakeFirst();
}
async function listCollections(db, clientId, q2) {
  let query = db.selectFrom("collections").select(COLLECTION_COLUMNS).where("client_id", "=", clientId).where("period_month", "=", q2.period);
  if (q2.status !== void 0)
    query = query.where("status", "=", q2.status);
  if (q2.policyNumber !== void 0)
    query = query.where("policy_number", "=", q2.policyNumber);
  if (q2.after !== void 0)
    query = query.where("policy_number", ">", q2.after);
  return query.orderBy("policy_number").limit(q2.limit).execute();
}
async function cancelPolicyCollections(db, clientId, policyId, firstPeriod) {
  await db.updateTable("collections").set({ status: "CANCELLED" }).where("policy_id", "=", policyId).where("client_id", "=", clientId).where("period_month", ">=", firstPeriod).execute();
}
async function repriceUnattempted(db, clientId, policyId, firstPeriod, amount) {
  await db.updateTable("collections").set({ amount_due: amount }).where("policy_id", "=", policyId).where("client_id", "=", clientId).where("period_month", ">=", firstPeriod).where("attempts", "=", 0).execute();
}
async function liveCollectionsOfPolicy(db, clientId, policyId, firstPeriod) {
  return db.selectFrom("collections").select(["id", "period_month", "amount_due", "amount_collected", "status"]).where("client_id", "=", clientId).where("policy_id", "=", policyId).where("period_month", ">=", firstPeriod).where("status", "!=", "CANCELLED").orderBy("period_month").execute();
}
async function debitStates(db, ids) {
  const out = [];
  for (let i = 0; i < ids.length; i += IN_LIST_MAX) {
    const rows = await db.selectFrom("collections as c").innerJoin("policies as p", "p.id", "c.policy_id").select(["c.id", "c.status", "c.amount_due", "c.amount_collected", "c.last_failure_reason", "p.status as policy_status"]).where("c.id", "in", ids.slice(i, i + IN_LIST_MAX)).execute();
    out.push(...rows);
  }
  return out;
}
async function periodClosings(db, clientId, periods) {
  if (periods.length === 0)
    return [];
  const open2 = ["UNPAID", "PAID_PARTIAL"];
  const rows = await db.selectFrom("collections").select((eb) => [
    "period_month",
    eb.fn.countAll().as("collections"),
    eb.fn.sum(eb.case().when("status", "in", open2).then(1).else(0).end()).as("open"),
    eb.fn.sum(eb.case().when("status", "=", "UNPAID").then(1).else(0).end()).as("nothing_collected"),
    eb.fn.sum(eb.case().when("status", "in", open2).then(eb("amount_due", "-", eb.ref("amount_collected"))).else(0).end()).as("amount_remaining")
  ]).where("client_id", "=", clientId).where("period_month", "in", [...periods]).groupBy("period_month").execute();
  return rows.map((r) => ({
    period_month: r.period_month,
    collections: Number(r.collections),
    open: Number(r.open),
    nothing_collected: Number(r.nothing_collected),
    amount_remaining: Number(r.amount_remaining)
  }));
}
async function periodHasCollections(db, clientId, period) {
  const row = await db.selectFrom("collections").select("id").where("client_id", "=", clientId).where("period_month", "=", period).limit(1).executeTakeFirst();
  return row !== void 0;
}
async function periodOpenCounts(db, clientId, period) {
  const row = await db.selectFrom("collections").select((eb) => [
    eb.fn.countAll().as("n"),
    eb.fn.sum(eb.case().when("status", "in", ["UNPAID", "PAID_PARTIAL"]).then(1).else(0).end()).as("open")
  ]).where("client_id", "=", clientId).where("period_month", "=", period).executeTakeFirstOrThrow();
  return { collections: Number(row.n), open: Number(row.open ?? 0) };
}
async function attemptsOfCollection(db, collectionId) {
  return db.selectFrom("attempts").select(["date", "amount", "outcome", "failure_reason"]).where("collection_id", "=", collectionId).orderBy("date").execute();
}
function streamPeriodAttempts(store, clientId, period) {
  return store.streamRows(`select a.collection_id, c.policy_number, c.customer_id, a.date, a.amount, a.outcome, a.failure_reason
     from attempts a join collections c on c.id = a.collection_id
     where a.client_id = ? and a.period_month = ? order by ${store.kind === "postgres" ? "a.date, c.policy_number" : "a.id"}`, [clientId, period], { raw: true });
}
async function planBatchesOn(db, clientId, days) {
  if (days.length === 0)
    return [];
  const rows = await db.selectFrom("plan_batches").select("data").where("client_id", "=", clientId).where("plan_day", "in", [...days]).execute();
  return rows.map((r) => r.data);
}

// dist/store/repos/meta.js
async function getMeta(db, key) {
  const row = await db.selectFrom("meta").select("value").where("key", "=", key).executeTakeFirst();
  return row?.value;
}
async function setMeta(db, key, value) {
  await db.insertInto("meta").values({ key, value }).onConflict((oc) => oc.column("key").doUpdateSet({ value })).execute();
}
async function getAllMeta(db) {
  const rows = await db.selectFrom("meta").selectAll().execute();
  return new Map(rows.map((r) => [r.key, r.value]));
}

// dist/store/repos/policies.js
async function insertPolicy(db, row) {
  const result = await db.insertInto("policies").values(row).returning("id").executeTakeFirstOrThrow();
  return Number(result.id);
}
async function findPolicyById(db, clientId, id) {
  return db.selectFrom("policies").selectAll().where("id", "=", id).where("client_id", "=", clientId).executeTakeFirst();
}
async function findPolicyByNumber(db, clientId, policyNumber) {
  return db.selectFrom("policies").selectAll().where("client_id", "=", clientId).where("policy_number", "=", policyNumber).executeTakeFirst();
}
async function listPolicies(db, clientId, q2) {
  let query = db.selectFrom("policies").selectAll().where("client_id", "=", clientId);
  if (q2.status)
    query = query.where("status", "=", q2.status);
  if (q2.after !== void 0)
    query = query.where("policy_number", ">", q2.after);
  return query.orderBy("policy_number").limit(q2.limit).execute();
}
async function updatePolicyRow(db, clientId, id, set) {
  await db.updateTable("policies").set(set).where("id", "=", id).where("client_id", "=", clientId).execute();
}
async function insertAmountChange(db, row) {
  await db.insertInto("policy_amount_changes").values(row).execute();
}
async function insertStatusChange(db, row) {
  await db.insertInto("policy_status_changes").values(row).execute();
}
async function amountChanges(db, clientId, policyIds) {
  if (policyIds.length === 0)
    return [];
  return db.selectFrom("policy_amount_changes").select(["policy_id", "effective_period", "old_amount", "new_amount", "changed_on"]).where("client_id", "=", clientId).where("policy_id", "in", policyIds).orderBy("seq").execute();
}
async function latestEffectivePeriod(db, clientId, policyId) {
  const row = await db.selectFrom("policy_amount_changes").select("effective_period").where("client_id", "=", clientId).where("policy_id", "=", policyId).orderBy("seq", "desc").limit(1).executeTakeFirst();
  return row?.effective_period ?? null;
}
async function latestPolicyChangeDay(db) {
  const latest = await sql`select max(day) as day from (
      select max(changed_on) as day from policy_amount_changes
      union all select max(changed_on) as day from policy_status_changes) as changes`.execute(db);
  return latest.rows[0]?.day ?? null;
}
async function statusChanges(db, clientId, policyId) {
  return db.selectFrom("policy_status_changes").select(["old_status", "new_status", "changed_on", "reason"]).where("client_id", "=", clientId).where("policy_id", "=", policyId).orderBy("seq").execute();
}
var STATEMENT_ROWS = [512, 32, 1];
function policyInserter(raw, clientId, createdAt) {
  if (!Number.isSafeInteger(clientId) || !Number.isSafeInteger(createdAt))
    throw new TypeError("clientId and createdAt must be integers");
  const field = (from, to) => `cast(substr(t.b, ${from}, ${to} - (${from})) as text)`;
  const sqlFor = (rows) => `insert into policies (client_id,policy_number,customer_id,external_customer_ref,product_code,collection_amount,status,created_at,updated_at) select ${clientId}, ${field("v.column3 + 1", "v.column4")}, ${field("v.column1", "v.column2")}, ${field("v.column2 + 1", "v.column3")}, ${field("v.column4 + 1", "v.column5")}, v.column6, 'active', ${createdAt}, ${createdAt} from (select ? as b) t, (values ${Array.from({ length: rows }, () => "(?,?,?,?,?,?)").join(",")}) v where true on conflict (client_id, policy_number) do nothing`;
  const statements = STATEMENT_ROWS.map((k) => ({ k, stmt: raw.prepare(sqlFor(k)), params: new Array(1 + k * 6) }));
  const insertedNumbers = raw.prepare("select policy_number from policies where id between ? and ? order by id").pluck();
  const holderOf = raw.prepare("select id from policies where client_id = ? and policy_number = ?").pluck();
  const baseId = Number(raw.prepare("select coalesce(max(id), 0) from policies").pluck().get() ?? 0);
  const numberOf = (rows, r) => {
    const o = r * 5;
    return Buffer.from(rows.bytes.buffer, rows.bytes.byteOffset, rows.bytes.byteLength).toString("latin1", rows.offsets[o + 2] + 1, rows.offsets[o + 3]);
  };
  const run = (rows, first, size, skipped) => {
    const { k, stmt, params } = size;
    const { offsets, amounts: amounts2 } = rows;
    const base = offsets[first * 5];
    const end = offsets[(first + k - 1) * 5 + 4];
    params[0] = rows.bytes.subarray(base, end);
    const shift = 1 - base;
    for (let i = 0; i < k; i++) {
      const o = (first + i) * 5;
      const p = 1 + i * 6;
      params[p] = offsets[o] + shift;
      params[p + 1] = offsets[o + 1] + shift;
      params[p + 2] = offsets[o + 2] + shift;
      params[p + 3] = offsets[o + 3] + shift;
      params[p + 4] = offsets[o + 4] + shift;
      params[p + 5] = amounts2[first + i];
    }
    const info = stmt.run(params);
    if (info.changes === k)
      return k;
    const last = Number(info.lastInsertRowid);
    const went = info.changes === 0 ? [] : insertedNumbers.all(last - info.changes + 1, last);
    let j = 0;
    for (let i = 0; i < k; i++) {
      const number = numberOf(rows, first + i);
      if (j < went.length && went[j] === number) {
        j++;
        continue;
      }
      skipped.push({ row: first + i, policyNumber: number, holder: Number(holderOf.get(clientId, number)) });
    }
    return info.changes;
  };
  return {
    baseId,
    insert(rows) {
      const skipped = [];
      let inserted = 0;
      let r = 0;
      for (const size of statements) {
        for (; r + size.k <= rows.count; r += size.k)
          inserted += run(rows, r, size, skipped);
      }
      return { inserted, skipped };
    }
  };
}
function sqliteImportSink(inserter, onDuplicate) {
  let imported = 0;
  let insertedLines = new Int32Array(1 << 16);
  return {
    insert(rows) {
      const { inserted, skipped } = inserter.insert(rows);
      if (imported + inserted > insertedLines.length) {
        const grown2 = new Int32Array(Math.max(insertedLines.length * 2, imported + inserted));
        grown2.set(insertedLines);
        insertedLines = grown2;
      }
      let skip = 0;
      for (let r = 0; r < rows.count; r++) {
        const s = skipped[skip];
        if (s !== void 0 && s.row === r) {
          const firstLine = s.holder > inserter.baseId ? insertedLines[s.holder - inserter.baseId - 1] : void 0;
          onDuplicate({ line: rows.lines[r], policyNumber: s.policyNumber, firstLine: firstLine ?? null });
          skip++;
        } else {
          insertedLines[imported++] = rows.lines[r];
        }
      }
    },
    ready: () => void 0,
    finish: async () => imported
  };
}
async function inPolicyImport(store, clientId, work) {
  if (store.kind === "postgres") {
    const { inPgPolicyImport } = await import("./policy-import-pg-7HJQPD3U.js");
    return inPgPolicyImport(store, clientId, work);
  }
  return store.withConnection(async (raw, statements) => {
    const foreignKeys2 = raw.pragma("foreign_keys", { simple: true });
    if (foreignKeys2)
      raw.pragma("foreign_keys = OFF");
    raw.exec("begin immediate");
    try {
      if (statements.get("select 1 from clients where id = ?").get(clientId) === void 0) {
        throw new PremiaError("INTERNAL", `client ${clientId} does not exist in this store`);
      }
      const clock = statements.get("select value from meta where key = 'clock_date'").get();
      if (clock === void 0)
        throw new PremiaError("INTERNAL", "The store has no clock; it was not initialised.");
      const result = await work({
        today: clock.value,
        sink: (createdAt, onDuplicate) => sqliteImportSink(policyInserter(raw, clientId, createdAt), onDuplicate)
      });
      raw.exec("commit");
      return result;
    } catch (e) {
      if (raw.inTransaction)
        raw.exec("rollback");
      throw e;
    } finally {
      if (foreignKeys2)
        raw.pragma("foreign_keys = ON");
    }
  });
}

// dist/store/store.js
import { existsSync } from "node:fs";
import { open } from "node:fs/promises";
import { createRequire } from "node:module";

// dist/store/sqlite-dialect.js
var STATEMENT_CACHE_LIMIT = 256;
var StatementCache = class {
  db;
  cache = /* @__PURE__ */ new Map();
  constructor(db) {
    this.db = db;
  }
  get(sql2) {
    let stmt = this.cache.get(sql2);
    if (!stmt) {
      if (this.cache.size >= STATEMENT_CACHE_LIMIT)
        this.cache.clear();
      stmt = this.db.prepare(sql2);
      this.cache.set(sql2, stmt);
    }
    return stmt;
  }
};
var Mutex = class {
  tail = Promise.resolve();
  releaseCurrent;
  async lock() {
    let release;
    const next = new Promise((resolve2) => release = resolve2);
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    this.releaseCurrent = release;
  }
  unlock() {
    const release = this.releaseCurrent;
    this.releaseCurrent = void 0;
    release?.();
  }
};
var PremiaSqliteConnection = class {
  raw;
  statements;
  constructor(raw, statements) {
    this.raw = raw;
    this.statements = statements;
  }
  executeQuery(compiledQuery) {
    const stmt = this.statements.get(compiledQuery.sql);
    const params = compiledQuery.parameters;
    if (stmt.reader)
      return Promise.resolve({ rows: stmt.all(...params) });
    const { changes, lastInsertRowid } = stmt.run(...params);
    return Promise.resolve({
      numAffectedRows: BigInt(changes),
      insertId: BigInt(lastInsertRowid),
      rows: []
    });
  }
  async *streamQuery(compiledQuery, chunkSize = 1e3) {
    const stmt = this.statements.get(compiledQuery.sql);
    const iter = stmt.iterate(...compiledQuery.parameters);
    let rows = [];
    for (const row of iter) {
      rows.push(row);
      if (rows.length >= chunkSize) {
        yield { rows };
        rows = [];
      }
    }
    if (rows.length > 0)
      yield { rows };
  }
};
var PremiaSqliteDriver = class {
  mutex = new Mutex();
  connection;
  constructor(raw, statements) {
    this.connection = new PremiaSqliteConnection(raw, statements);
  }
  async init() {
  }
  async acquireConnection() {
    await this.mutex.lock();
    return this.connection;
  }
  async beginTransaction(connection) {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
  async commitTransaction(connection) {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }
  async rollbackTransaction(connection) {
    if (connection.raw.inTransaction) {
      await connection.executeQuery(CompiledQuery.raw("rollback"));
    }
  }
  async releaseConnection() {
    this.mutex.unlock();
  }
  async destroy() {
  }
};
var PremiaSqliteDialect = class {
  driver;
  constructor(raw, statements) {
    this.driver = new PremiaSqliteDriver(raw, statements);
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver() {
    return this.driver;
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- kysely's Dialect interface
  createIntrospector(db) {
    return new SqliteIntrospector(db);
  }
};

// dist/store/store.js
var require2 = createRequire(import.meta.url);
var DEFAULT_BUSY_TIMEOUT_MS = 3e4;
async function openStore(options) {
  if (isPostgresUrl(options.path)) {
    const { openPgStore } = await import("./pg-store-V4NRFP7J.js");
    return openPgStore({ url: options.path.trim(), create: options.create ?? true, busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
  }
  return openSqliteStore(options);
}
async function openSqliteStore(options) {
  const BetterSqlite = require2("better-sqlite3");
  const busyTimeout = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  let raw;
  try {
    const file = options.path !== ":memory:" && options.path !== "";
    const create = options.create ?? true;
    if (file && create && !options.readonly)
      await createPrivately(options.path);
    if (file && !create && !existsSync(options.path))
      throw storeNotFound(options.path);
    raw = new BetterSqlite(options.path, { timeout: busyTimeout, readonly: options.readonly ?? false, fileMustExist: file && !create });
  } catch (e) {
    if (e instanceof PremiaError)
      throw e;
    if (options.create === false && !existsSync(options.path))
      throw storeNotFound(options.path);
    throw new PremiaError("INTERNAL", `Cannot open the store at ${options.path}: ${e.message}.`, { cause: e });
  }
  try {
    const claim = refuseForeignDatabase(raw, options.path);
    if (!options.readonly)
      raw.pragma("page_size = 16384");
    if (options.path !== ":memory:" && !options.readonly)
      await enableWal(raw, busyTimeout);
    if (claim && !options.readonly)
      raw.pragma(`application_id = ${PREMIA_APPLICATION_ID}`);
    raw.pragma("synchronous = FULL");
    raw.pragma("foreign_keys = ON");
    raw.pragma("cache_size = -65536");
  } catch (e) {
    raw.close();
    throw storeOpenError(options.path, e);
  }
  const statements = new StatementCache(raw);
  const dialect = new PremiaSqliteDialect(raw, statements);
  const db = new Kysely({ dialect });
  const mutex = dialect.driver.mutex;
  let generation = 0;
  const store = {
    kind: "sqlite",
    path: options.path,
    target: options.path,
    db,
    raw,
    statements,
    get generation() {
      return generation;
    },
    async transaction(fn) {
      try {
        return await db.transaction().execute(fn);
      } finally {
        generation++;
      }
    },
    async withConnection(fn) {
      await mutex.lock();
      try {
        return await fn(raw, statements);
      } finally {
        generation++;
        mutex.unlock();
      }
    },
    async *streamRows(query, params, opts = {}) {
      const batch = opts.batch ?? 2e3;
      const file = options.path !== ":memory:" && options.path !== "";
      if (file) {
        const reader = new BetterSqlite(options.path, { readonly: true, fileMustExist: true, timeout: busyTimeout });
        try {
          yield* iterateInBatches(reader.prepare(query), params, opts.raw === true, batch);
        } finally {
          reader.close();
        }
      } else {
        await mutex.lock();
        try {
          yield* iterateInBatches(raw.prepare(query), params, opts.raw === true, batch);
        } finally {
          mutex.unlock();
        }
      }
    },
    async close() {
      await db.destroy();
      if (raw.open)
        raw.close();
    }
  };
  try {
    if (!options.readonly)
      await migrate(db);
  } catch (e) {
    await store.close();
    throw e instanceof PremiaError ? e : storeOpenError(options.path, e);
  }
  return store;
}
function storeNotFound(path) {
  return new PremiaError("VALIDATION_ERROR", `There is no store at ${path}; nothing was created.`, {
    details: [{ field: "db", code: "STORE_NOT_FOUND", message: `${path} does not exist` }]
  });
}
async function createPrivately(path) {
  let file;
  try {
    file = await open(path, "wx", 384);
  } catch {
    return;
  }
  try {
    await file.chmod(384);
  } finally {
    await file.close();
  }
}
async function enableWal(raw, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (; ; ) {
    try {
      raw.pragma("journal_mode = WAL");
      return;
    } catch (e) {
      const code = e.code;
      if (typeof code !== "string" || !code.startsWith("SQLITE_BUSY") || Date.now() >= deadline)
        throw e;
      await new Promise((resolve2) => setTimeout(resolve2, 10));
    }
  }
}
function* iterateInBatches(stmt, params, rawRows, size) {
  if (rawRows)
    stmt.raw(true);
  let rows = [];
  for (const row of stmt.iterate(...params)) {
    rows.push(row);
    if (rows.length >= size) {
      yield rows;
      rows = [];
    }
  }
  if (rows.length > 0)
    yield rows;
}
var PREMIA_APPLICATION_ID = 1347571009;
function refuseForeignDatabase(raw, path) {
  if (raw.pragma("application_id", { simple: true }) === PREMIA_APPLICATION_ID)
    return false;
  const tables = raw.prepare("select name from sqlite_schema where type = 'table' and name not like 'sqlite_%'").pluck().all();
  if (tables.length > 0 && !tables.includes(MIGRATION_TABLE)) {
    const shown = tables.slice(0, 5).join(", ") + (tables.length > 5 ? ", \u2026" : "");
    throw new PremiaError("VALIDATION_ERROR", `${path} is an SQLite database of another application (tables ${shown}), not a premia store; premia leaves it untouched. Choose another file with --db.`, { details: [{ field: "db", code: "NOT_A_PREMIA_STORE", message: "the database holds tables premia did not make" }] });
  }
  return true;
}
function storeOpenError(path, e) {
  if (e instanceof PremiaError)
    return e;
  const msg = e.message ?? String(e);
  if (/file is not a database/i.test(msg)) {
    return new PremiaError("VALIDATION_ERROR", `${path} is not a premia store: the file is not an SQLite database. premia leaves it untouched; choose another file with --db.`, { cause: e, details: [{ field: "db", code: "NOT_A_PREMIA_STORE", message: "the file is not an SQLite database" }] });
  }
  if (/malformed/i.test(msg)) {
    return new PremiaError("INTERNAL", `The store ${path} is damaged (${msg}); restore it from a backup or choose another file with --db.`, { cause: e });
  }
  if (/database is locked|SQLITE_BUSY/i.test(msg)) {
    return new PremiaError("STORE_BUSY", `The store ${path} is busy (another premia holds it). Try again shortly.`, { cause: e });
  }
  return new PremiaError("INTERNAL", `Cannot open the store at ${path}: ${msg}`, { cause: e });
}

// dist/backend/local/api-keys.js
import { createHash, randomBytes as randomBytes2, timingSafeEqual } from "node:crypto";

// dist/domain/ids.js
var IdKind = {
  policy: 1,
  collection: 2,
  execution: 3,
  settlement: 4,
  attempt: 5,
  apiKey: 6
};
var HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
var UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
var TWO_32 = 4294967296;
var ROUNDS = 4;
function high(salt) {
  return Math.floor(salt / TWO_32) >>> 0;
}
function roundKey(salt, kind, round) {
  const key = fmix32((salt ^ Math.imul(kind, 2654435761) ^ Math.imul(round + 1, 2246822507)) >>> 0);
  const hi = high(salt);
  return hi === 0 ? key : fmix32((key ^ Math.imul(hi, 3432918353) ^ Math.imul(round + 7, 461845907)) >>> 0);
}
function f(half, key) {
  return fmix32((half ^ key) >>> 0);
}
function check(salt, kind, a, b) {
  const hi = high(salt);
  let c1 = fmix32((a ^ Math.imul(salt, 668265263) ^ kind) >>> 0);
  if (hi !== 0)
    c1 = fmix32((c1 ^ Math.imul(hi, 2246822507)) >>> 0);
  const c2 = fmix32((b ^ c1 ^ 374761393) >>> 0);
  return [c1, c2];
}
function encodeId(kind, salt, rowid) {
  let left = Math.floor(rowid / TWO_32) >>> 0;
  let right = rowid >>> 0;
  for (let r = 0; r < ROUNDS; r++) {
    const next = (left ^ f(right, roundKey(salt, kind, r))) >>> 0;
    left = right;
    right = next;
  }
  const [c1, c2] = check(salt, kind, left, right);
  const bytes = [
    left >>> 24,
    left >>> 16 & 255,
    left >>> 8 & 255,
    left & 255,
    right >>> 24,
    right >>> 16 & 255,
    128 | c1 & 15,
    c1 >>> 4 & 255,
    128 | c1 >>> 12 & 63,
    c1 >>> 18 & 255,
    right >>> 8 & 255,
    right & 255,
    c2 >>> 24,
    c2 >>> 16 & 255,
    c2 >>> 8 & 255,
    c2 & 255
  ];
  let s = "";
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10)
      s += "-";
    s += HEX[bytes[i]];
  }
  return s;
}
function decodeId(kind, salt, id) {
  if (id.length !== 36 || !UUID_RE.test(id))
    return null;
  const hex = id.replace(/-/g, "").toLowerCase();
  const byte = (i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  const left0 = (byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3)) >>> 0;
  const right0 = (byte(4) << 24 | byte(5) << 16 | byte(10) << 8 | byte(11)) >>> 0;
  const c1Low = byte(6) & 15 | byte(7) << 4 | (byte(8) & 63) << 12 | byte(9) << 18;
  const c2 = (byte(12) << 24 | byte(13) << 16 | byte(14) << 8 | byte(15)) >>> 0;
  const [e1, e2] = check(salt, kind, left0, right0);
  if ((e1 & 67108863) !== c1Low || e2 !== c2)
    return null;
  let left = left0;
  let right = right0;
  for (let r = ROUNDS - 1; r >= 0; r--) {
    const prev = (right ^ f(left, roundKey(salt, kind, r))) >>> 0;
    right = left;
    left = prev;
  }
  const rowid = left * TWO_32 + right;
  return rowid > 0 && Number.isSafeInteger(rowid) ? rowid : null;
}
function looksLikeId(s) {
  return s.length === 36 && UUID_RE.test(s);
}

// dist/store/repos/api-keys.js
async function insertApiKey(db, row) {
  const result = await db.insertInto("api_keys").values(row).returning("id").executeTakeFirstOrThrow();
  return Number(result.id);
}
async function findApiKeyByHash(db, keyHash) {
  return db.selectFrom("api_keys").innerJoin("clients", "clients.id", "api_keys.client_id").selectAll("api_keys").select("clients.name as client_name").where("api_keys.key_hash", "=", keyHash).executeTakeFirst();
}
async function findApiKeyById(db, id) {
  return db.selectFrom("api_keys").innerJoin("clients", "clients.id", "api_keys.client_id").selectAll("api_keys").select("clients.name as client_name").where("api_keys.id", "=", id).executeTakeFirst();
}
async function listApiKeys(db) {
  return db.selectFrom("api_keys").innerJoin("clients", "clients.id", "api_keys.client_id").selectAll("api_keys").select("clients.name as client_name").orderBy("api_keys.id").execute();
}
async function revokeApiKey(db, id, at) {
  const result = await db.updateTable("api_keys").set({ revoked_at: at }).where("id", "=", id).where("revoked_at", "is", null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// dist/backend/local/world.js
import { randomBytes } from "node:crypto";
var DEFAULT_SEED = 1;
var LOCAL_CLIENT_ID = 1;
var LOCAL_CLIENT_NAME = "Local";
async function initWorld(store, options) {
  const meta = await getAllMeta(store.db);
  if (meta.has("clock_date") && meta.has("seed")) {
    checkSeed(meta, options.seed);
    if (await findClientById(store.db, LOCAL_CLIENT_ID))
      return;
  }
  await store.transaction(async (trx) => {
    const current = await getAllMeta(trx);
    if (!current.has("seed")) {
      const seed = options.seed ?? DEFAULT_SEED;
      await setMeta(trx, "seed", String(seed));
      await setMeta(trx, "id_salt", String(options.seed === void 0 ? randomIdSalt() : hashString32(`premia-ids:${seed}`)));
    } else {
      checkSeed(current, options.seed);
    }
    if (!current.has("clock_date"))
      await setMeta(trx, "clock_date", options.realToday);
    if (!await findClientById(trx, LOCAL_CLIENT_ID)) {
      await insertClient(trx, { id: LOCAL_CLIENT_ID, name: LOCAL_CLIENT_NAME, created_at: Date.now() });
    }
  });
}
function randomIdSalt() {
  const bytes = randomBytes(8);
  const hi = bytes.readUInt32BE(0) & 1048575 | 1048576;
  return hi * 4294967296 + bytes.readUInt32BE(4);
}
function checkSeed(meta, requested) {
  if (requested === void 0)
    return;
  const stored = Number(meta.get("seed"));
  if (stored !== requested) {
    throw new PremiaError("SEED_LOCKED", `This store already has seed ${stored}; --seed only applies when a store is created. Use 'premia bank seed ${requested}' before any collections run, or a new --db.`);
  }
}
async function readWorld(db) {
  const meta = await getAllMeta(db);
  const today = meta.get("clock_date");
  const seed = meta.get("seed");
  if (!today || !seed)
    throw new PremiaError("INTERNAL", "The store has no clock or seed; it was not initialised.");
  return {
    today,
    seed: Number(seed),
    calendar: storedCalendar(meta.get(CALENDAR_KEY), meta.get(IMPORTED_HOLIDAYS_KEY)),
    idSalt: Number(meta.get("id_salt") ?? 0),
    locked: meta.get("clock_locked") === "1"
  };
}
function stamp(today, now) {
  return dayNumber(today) * 864e5 + now.getTime() % 864e5;
}
function iso(ms) {
  return new Date(ms).toISOString();
}

// dist/backend/local/api-keys.js
var KEY_PREFIX = "pmk_";
var KEY_RANDOM_CHARS = 40;
var BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
var MAX_PRESENTED_LENGTH = 256;
var MAX_CLIENT_NAME = 100;
var UNAUTHORIZED_MESSAGE = "Invalid or missing API key: send a valid key in the X-API-Key header.";
function generateKey() {
  let out = KEY_PREFIX;
  while (out.length < KEY_PREFIX.length + KEY_RANDOM_CHARS) {
    for (const b of randomBytes2(64)) {
      if (b < 248)
        out += BASE62[b % 62];
      if (out.length === KEY_PREFIX.length + KEY_RANDOM_CHARS)
        break;
    }
  }
  return out;
}
function hashKey(key) {
  return createHash("sha256").update(key, "utf8").digest();
}
function redact(prefix, last4) {
  return `${prefix}\u2026${last4}`;
}
function checkClientName(raw) {
  const name = raw.trim();
  if (name === "" || name.length > MAX_CLIENT_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
    throw validationError(`The client name must be 1\u2013${MAX_CLIENT_NAME} printable characters.`, [
      { field: "client", code: "INVALID_VALUE", message: `client must be 1\u2013${MAX_CLIENT_NAME} printable characters` }
    ]);
  }
  return name;
}
async function createKey(store, clientName, now, role = "client") {
  const name = clientName === null ? null : checkClientName(clientName);
  if (name === null && role !== "operator")
    throw usageError("A client key needs the client it is for: --client NAME.");
  const key = generateKey();
  return store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const at = now().getTime();
    let clientId;
    let clientShown;
    if (name === null) {
      const local = await findClientById(trx, LOCAL_CLIENT_ID);
      if (!local)
        throw new PremiaError("INTERNAL", "The store has no Local client; it was not initialised.");
      clientId = local.id;
      clientShown = local.name;
    } else {
      const client = await findClientByName(trx, name);
      clientId = client ? client.id : await insertClient(trx, { name, created_at: at });
      clientShown = name;
    }
    const id = await insertApiKey(trx, {
      client_id: clientId,
      key_hash: hashKey(key).toString("hex"),
      prefix: KEY_PREFIX,
      last4: key.slice(-4),
      created_at: at,
      role
    });
    return { id: encodeId(IdKind.apiKey, world.idSalt, id), client: clientShown, role, key };
  });
}
async function listKeys(store) {
  const world = await readWorld(store.db);
  const rows = await listApiKeys(store.db);
  return rows.map((r) => toView(r, world.idSalt));
}
async function revokeKey(store, keyId, now) {
  return store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const rowid = decodeId(IdKind.apiKey, world.idSalt, keyId.trim());
    const row = rowid === null ? void 0 : await findApiKeyById(trx, rowid);
    if (!row)
      throw notFound("API key", keyId);
    const changed = await revokeApiKey(trx, row.id, now().getTime());
    const after = await findApiKeyById(trx, row.id);
    return { key: toView(after, world.idSalt), changed };
  });
}
function toView(r, idSalt) {
  return {
    id: encodeId(IdKind.apiKey, idSalt, r.id),
    client: r.client_name,
    role: r.role,
    key: redact(r.prefix, r.last4),
    created_at: iso(r.created_at),
    revoked_at: r.revoked_at === null ? null : iso(r.revoked_at)
  };
}
var DUMMY_HASH = hashKey("premia: no such key");
async function authenticate(store, presented) {
  if (typeof presented !== "string" || presented.length === 0 || presented.length > MAX_PRESENTED_LENGTH)
    throw unauthorized();
  const digest = hashKey(presented);
  const row = await findApiKeyByHash(store.db, digest.toString("hex"));
  const stored = row ? Buffer.from(row.key_hash, "hex") : DUMMY_HASH;
  const same = stored.length === digest.length && timingSafeEqual(stored, digest);
  if (!row || !same || row.revoked_at !== null)
    throw unauthorized();
  const world = await readWorld(store.db);
  return {
    keyRowId: row.id,
    keyId: encodeId(IdKind.apiKey, world.idSalt, row.id),
    clientId: row.client_id,
    clientName: row.client_name,
    role: row.role
  };
}
function unauthorized() {
  return new PremiaError("UNAUTHORIZED", UNAUTHORIZED_MESSAGE);
}

// dist/backend/local/idempotency.js
import { randomBytes as randomBytes3 } from "node:crypto";
import { hostname } from "node:os";

// dist/lib/process.js
function processIsAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0)
    return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

// dist/store/repos/idempotency.js
async function findIdempotencyKey(db, clientId, key) {
  return db.selectFrom("idempotency_keys").selectAll().where("client_id", "=", clientId).where("key", "=", key).executeTakeFirst();
}
async function insertIdempotencyKey(db, row, owner, startedAt) {
  await db.insertInto("idempotency_keys").values({
    ...row,
    status: null,
    content_type: null,
    body: null,
    owner_host: owner?.host ?? null,
    owner_pid: owner?.pid ?? null,
    owner_token: owner?.token ?? null,
    started_at: startedAt
  }).execute();
}
async function takeOverIdempotencyKey(db, clientId, key, previousToken, owner, now, expiresAt) {
  let q2 = db.updateTable("idempotency_keys").set({ owner_host: owner.host, owner_pid: owner.pid, owner_token: owner.token, started_at: now, created_at: now, expires_at: expiresAt }).where("client_id", "=", clientId).where("key", "=", key).where("status", "is", null);
  q2 = previousToken === null ? q2.where("owner_token", "is", null) : q2.where("owner_token", "=", previousToken);
  const result = await q2.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
async function completeIdempotencyKey(db, clientId, key, ownerToken, response) {
  const result = await db.updateTable("idempotency_keys").set(response).where("client_id", "=", clientId).where("key", "=", key).where("owner_token", "=", ownerToken).where("status", "is", null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
async function deleteIdempotencyKey(db, clientId, key, ownerToken) {
  const result = await db.deleteFrom("idempotency_keys").where("client_id", "=", clientId).where("key", "=", key).where("owner_token", "=", ownerToken).where("status", "is", null).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
async function purgeExpiredIdempotencyKeys(db, now) {
  const result = await db.deleteFrom("idempotency_keys").where("expires_at", "<=", now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

// dist/backend/local/idempotency.js
var IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1e3;
var ABANDONED_AFTER_MS = 10 * 60 * 1e3;
var PROCESS_OWNER = { host: hostname(), pid: process.pid, token: randomBytes3(16).toString("hex") };
function processOwner() {
  return PROCESS_OWNER;
}
function claimAbandoned(row, self, now, isAlive = processIsAlive) {
  const startedAt = row.started_at ?? row.created_at;
  if (now - startedAt > ABANDONED_AFTER_MS)
    return true;
  if (row.owner_pid === null || row.owner_token === null || row.owner_host !== self.host)
    return false;
  if (row.owner_pid === self.pid)
    return row.owner_token !== self.token;
  return !isAlive(row.owner_pid);
}
async function claimKey(store, input) {
  const owner = input.owner ?? PROCESS_OWNER;
  return store.transaction(async (trx) => {
    await purgeExpiredIdempotencyKeys(trx, input.now);
    const row = await findIdempotencyKey(trx, input.clientId, input.key);
    if (!row) {
      await insertIdempotencyKey(trx, {
        client_id: input.clientId,
        key: input.key,
        request_hash: input.hash,
        method: input.method,
        path: input.path,
        created_at: input.now,
        expires_at: input.now + IDEMPOTENCY_TTL_MS
      }, owner, input.now);
      return { kind: "claimed" };
    }
    if (row.request_hash !== input.hash) {
      throw new PremiaError("IDEMPOTENCY_KEY_REUSED", `This Idempotency-Key was first used for another request (${row.method} ${row.path} or a different body); use a new key for a new request.`);
    }
    if (row.status === null) {
      if (claimAbandoned(row, owner, input.now, input.isAlive) && await takeOverIdempotencyKey(trx, input.clientId, input.key, row.owner_token, owner, input.now, input.now + IDEMPOTENCY_TTL_MS)) {
        return { kind: "claimed" };
      }
      throw new PremiaError("IDEMPOTENCY_IN_PROGRESS", "The first request with this Idempotency-Key is still running; retry after it has finished.");
    }
    return {
      kind: "replay",
      response: { status: row.status, contentType: row.content_type ?? "application/json; charset=utf-8", body: row.body ?? "" }
    };
  });
}
async function completeKey(store, clientId, key, response, owner = PROCESS_OWNER) {
  return store.transaction((trx) => completeIdempotencyKey(trx, clientId, key, owner.token, { status: response.status, content_type: response.contentType, body: response.body }));
}
async function releaseKey(store, clientId, key, owner = PROCESS_OWNER) {
  return store.transaction((trx) => deleteIdempotencyKey(trx, clientId, key, owner.token));
}

// dist/engine/settings.js
var LEAD_DAYS = 0;
var MAX_SPLIT_DEBITS = 4;
var NAIVE_MAX_ATTEMPTS = 4;
var NAIVE_RETRY_DAYS = 7;
var SHARDS_KEY = "engine.shards";
var SETTING_KEYS = {
  maxFailedAttempts: "engine.max_failed_attempts",
  lapseAfterUnpaidPeriods: "lapse.unpaid_periods",
  calendar: CALENDAR_KEY
};
var SETTINGS = [
  {
    kind: "number",
    key: SETTING_KEYS.maxFailedAttempts,
    default: 4,
    min: 1,
    max: 31,
    description: "failed debit attempts per policy and month, after which no more are planned"
  },
  {
    kind: "number",
    key: SETTING_KEYS.lapseAfterUnpaidPeriods,
    default: 2,
    min: 1,
    max: 12,
    description: "consecutive closed periods UNPAID after which an active policy lapses"
  },
  {
    kind: "choice",
    key: SETTING_KEYS.calendar,
    default: DEFAULT_CALENDAR,
    choices: CALENDAR_BASES,
    description: "business days: za (South African public holidays) or none (weekends only), plus imported dates"
  },
  {
    kind: "number",
    key: SHARDS_KEY,
    default: 1,
    min: 1,
    max: 256,
    description: "PostgreSQL: customer shards each day is lived in, shared with premia engine work (1: in one piece)"
  }
];
function settingDef(key) {
  const def = SETTINGS.find((s) => s.key === key);
  if (!def) {
    const known = SETTINGS.map((s) => s.key).join(", ");
    throw validationError(`'${key.slice(0, 60)}' is not a setting; the settings are ${known}.`, [
      { field: "key", code: "UNKNOWN_SETTING", message: `one of ${known}` }
    ]);
  }
  return def;
}
function parseSettingValue(def, text) {
  if (def.kind === "choice") {
    if (!def.choices.includes(text)) {
      throw validationError(`${def.key} must be one of ${def.choices.join(", ")}; got '${text.slice(0, 40)}'.`, [
        { field: "value", code: "INVALID_VALUE", message: `one of ${def.choices.join(", ")}` }
      ]);
    }
    return text;
  }
  const n = /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < def.min || n > def.max) {
    throw validationError(`${def.key} must be a whole number from ${def.min} to ${def.max}; got '${text.slice(0, 40)}'.`, [
      { field: "value", code: "INVALID_VALUE", message: `a whole number from ${def.min} to ${def.max}` }
    ]);
  }
  return n;
}
function storedSetting(def, stored) {
  if (stored === void 0)
    return def.default;
  if (def.kind === "choice")
    return def.choices.includes(stored) ? stored : def.default;
  const n = /^\d{1,6}$/.test(stored) ? Number(stored) : Number.NaN;
  return Number.isInteger(n) && n >= def.min && n <= def.max ? n : def.default;
}
function settingIn(stored, key) {
  const def = settingDef(key);
  if (def.kind !== "number")
    throw new Error(`${key} is not a numeric setting`);
  return storedSetting(def, stored.get(key));
}
function calendarIn(stored) {
  return storedCalendar(stored.get(CALENDAR_KEY), stored.get(IMPORTED_HOLIDAYS_KEY));
}
function engineSettings(stored) {
  return {
    leadDays: LEAD_DAYS,
    maxSplitDebits: MAX_SPLIT_DEBITS,
    naiveMaxAttempts: NAIVE_MAX_ATTEMPTS,
    naiveRetryDays: NAIVE_RETRY_DAYS,
    maxFailedAttempts: settingIn(stored, SETTING_KEYS.maxFailedAttempts),
    lapseAfterUnpaidPeriods: settingIn(stored, SETTING_KEYS.lapseAfterUnpaidPeriods),
    calendar: calendarIn(stored)
  };
}

// dist/backend/local/calendar.js
var CALENDAR_CSV_HEADER = ["date", "name"];
var NAME_MAX = 100;
var MAX_FILE_BYTES = 1 << 20;
var MAX_HOLIDAYS = 5e3;
var WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
function fixedUntil(meta) {
  if (meta.get("clock_locked") !== "1")
    return null;
  return addDays(meta.get("clock_date"), 1 + LEAD_DAYS);
}
async function showCalendar(store, year) {
  if (!Number.isInteger(year) || year < 1900 || year > 2099) {
    throw validationError(`--year must be a year from 1900 to 2099; got '${String(year).slice(0, 20)}'.`, [
      { field: "year", code: "INVALID_VALUE", message: "a year from 1900 to 2099" }
    ]);
  }
  const meta = await getAllMeta(store.db);
  const cal = storedCalendar(meta.get(CALENDAR_KEY), meta.get(IMPORTED_HOLIDAYS_KEY));
  return {
    calendar: cal.base,
    imported_dates: cal.imported.length,
    fixed_until: fixedUntil(meta),
    year,
    holidays: cal.holidaysOf(year).map((h) => ({ ...h, weekday: WEEKDAYS[weekday(h.date)] }))
  };
}
async function readSmall(file) {
  const chunks = [];
  let size = 0;
  for await (const chunk of file.stream) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += bytes.byteLength;
    if (size > MAX_FILE_BYTES)
      throw invalidCalendarFile(file.name, `it is larger than ${MAX_FILE_BYTES} bytes`);
    chunks.push(bytes);
  }
  return chunks;
}
function invalidCalendarFile(name, reason) {
  const sentence = /[.!?]$/.test(reason) ? reason : `${reason}.`;
  return new PremiaError("INVALID_FILE", `${name} is not a holiday CSV file: ${sentence} Nothing was imported.`, {
    details: [{ field: "file", code: "INVALID_FILE", message: reason }]
  });
}
async function parseHolidays(file) {
  const chunks = await readSmall(file);
  const out = [];
  const errors = [];
  const seen = /* @__PURE__ */ new Map();
  let header = null;
  const reader = new CsvReader({
    onRecord: (fields, line, problem) => {
      if (header === null) {
        header = fields.map((f2) => trimCell(f2).toLowerCase());
        const ok = header.length === 2 && header[0] === "date" && header[1] === "name" || header.length === 1 && header[0] === "date";
        if (!ok) {
          throw invalidCalendarFile(file.name, `line 1: the header must be '${CALENDAR_CSV_HEADER.join(",")}'; found '${printable(fields.join(","), 200)}'${bareCrHint(fields)}`);
        }
        return;
      }
      if (fields.length === 1 && trimCell(fields[0]) === "")
        return;
      const add = (field, code, message) => errors.push({ row: line, field, code, message });
      if (fields.length !== header.length) {
        add("row", "WRONG_FIELD_COUNT", `expected ${header.length} field${header.length === 1 ? "" : "s"}, found ${fields.length}`);
        return;
      }
      if (problem)
        add("row", "MALFORMED_ROW", problem);
      const date = trimCell(fields[0]);
      const name = fields.length > 1 ? trimCell(fields[1]) : "";
      if (!isIsoDate(date))
        add("date", "INVALID_DATE", `date '${printable(date, 40)}' is not a date written YYYY-MM-DD`);
      else if (date < "1900-01-01" || date > "2099-12-31")
        add("date", "INVALID_DATE", `date ${date} is outside 1900-2099`);
      if (name.length > NAME_MAX || /[\u0000-\u001f\u007f]/.test(name))
        add("name", "INVALID_FORMAT", `name must be at most ${NAME_MAX} printable characters`);
      const first = seen.get(date);
      if (first !== void 0)
        add("date", "DUPLICATE_IN_FILE", `${date} is already on line ${first}`);
      else
        seen.set(date, line);
      out.push({ date, name: name === "" ? "Imported holiday" : name });
    }
  });
  try {
    for (const c of chunks)
      reader.push(c);
    reader.end();
  } catch (e) {
    if (e instanceof CsvFormatError)
      throw invalidCalendarFile(file.name, e.message);
    throw e;
  }
  if (header === null)
    throw invalidCalendarFile(file.name, "the file is empty; expected the header 'date,name' and a date a line");
  if (errors.length > 0) {
    const shown = errors.slice(0, 20);
    throw validationError(`${file.name}: ${errors.length} row${errors.length === 1 ? "" : "s"} with errors (first on line ${errors[0].row}: ${errors[0].message}). Nothing was imported.`, shown);
  }
  if (out.length > MAX_HOLIDAYS)
    throw invalidCalendarFile(file.name, `it has more than ${MAX_HOLIDAYS} dates`);
  return out;
}
async function importHolidays(store, file, options = {}) {
  const rows = await parseHolidays(file);
  return store.transaction(async (trx) => {
    const meta = await getAllMeta(trx);
    const fixed = fixedUntil(meta);
    const before = parseStoredHolidays(meta.get(IMPORTED_HOLIDAYS_KEY));
    const byDate = new Map(options.replace ? [] : before.map((h) => [h.date, h]));
    let added = 0;
    for (const h of rows) {
      const old = byDate.get(h.date);
      if (!old && !before.some((b) => b.date === h.date))
        added++;
      byDate.set(h.date, h);
    }
    const after = [...byDate.values()];
    if (fixed !== null) {
      const was = new Set(before.filter((h) => h.date <= fixed).map((h) => h.date));
      const now = new Set(after.filter((h) => h.date <= fixed).map((h) => h.date));
      const changed = [.../* @__PURE__ */ new Set([...was, ...now])].filter((d) => was.has(d) !== now.has(d)).sort();
      if (changed.length > 0) {
        throw validationError(`${changed[0]} is on or before ${fixed}: a collections run exists, so days up to ${plural(1 + LEAD_DAYS, "day")} after the clock's date (${meta.get("clock_date")}) are lived or have their debits submitted, and cannot change. Nothing was imported.`, changed.slice(0, 20).map((d) => ({ field: "date", code: "DATE_IN_PAST", message: `${d} is on or before ${fixed}` })));
      }
    }
    if (after.length > MAX_HOLIDAYS)
      throw invalidCalendarFile(file.name, `the calendar would hold more than ${MAX_HOLIDAYS} imported dates`);
    await setMeta(trx, IMPORTED_HOLIDAYS_KEY, storedHolidaysText(after));
    const base = meta.get(CALENDAR_KEY);
    return {
      calendar: isCalendarBase(base) ? base : "za",
      added,
      removed: before.filter((h) => !byDate.has(h.date)).length,
      imported_dates: after.length
    };
  });
}
function checkCalendarChange(meta, from, to) {
  if (from === to || meta.get("clock_locked") !== "1")
    return;
  throw new PremiaError("CALENDAR_LOCKED", `The calendar is ${from} and a collections run exists: the bank's history and the debits already made were lived on it, so it can no longer change. Holidays after ${fixedUntil(meta)} can still be added with 'premia calendar import'.`);
}

// dist/backend/local/settings.js
function view(def, stored) {
  const value = storedSetting(def, stored);
  return def.kind === "number" ? { key: def.key, value, default: def.default, min: def.min, max: def.max, description: def.description } : { key: def.key, value, default: def.default, choices: [...def.choices], description: def.description };
}
async function listSettings(store) {
  const meta = await getAllMeta(store.db);
  return SETTINGS.map((def) => view(def, meta.get(def.key)));
}
async function setSetting(store, key, value) {
  const def = settingDef(key);
  const n = parseSettingValue(def, value);
  return store.transaction(async (trx) => {
    const meta = await getAllMeta(trx);
    const previous = storedSetting(def, meta.get(def.key));
    if (def.key === SETTING_KEYS.calendar)
      checkCalendarChange(meta, String(previous), String(n));
    await setMeta(trx, def.key, String(n));
    return { setting: view(def, String(n)), previous };
  });
}

// dist/domain/debit-outcome.js
var FAILURE_REASONS = ["INSUFFICIENT_FUNDS", "ACCOUNT_CLOSED", "PAYMENT_STOPPED", "ACCOUNT_FROZEN"];
var FAILURE_BY_CODE = [null, ...FAILURE_REASONS];
var failureCode = (reason) => Math.max(0, FAILURE_BY_CODE.indexOf(reason));
function isRetryable(reason) {
  return reason === "INSUFFICIENT_FUNDS";
}

// dist/domain/lapse.js
function lapsePeriods(period, n) {
  const periods = [period];
  for (let i = 1; i < n; i++)
    periods.push(previousPeriod(periods[i - 1]));
  return periods;
}
function lapses(statuses, n) {
  if (n < 1 || statuses.length < n)
    return false;
  for (let k = 0; k < n; k++)
    if (statuses[k] !== "UNPAID")
      return false;
  return true;
}
function lapseReason(periods) {
  return `lapsed: unpaid in ${periods.length === 1 ? "1 period" : `${periods.length} consecutive periods`} (${[...periods].reverse().join(", ")})`;
}
async function applyLapseRule(period, n, candidates, lapse) {
  const lapsed = /* @__PURE__ */ new Map();
  if (n < 1)
    return lapsed;
  const periods = lapsePeriods(period, n);
  const lapsing = [];
  for (const cand of await candidates(periods)) {
    if (!lapses(cand.statuses, n))
      continue;
    lapsing.push(cand);
    lapsed.set(cand.clientId, (lapsed.get(cand.clientId) ?? 0) + 1);
  }
  await lapse(lapsing, lapseReason(periods));
  return lapsed;
}

// dist/domain/plan-reason.js
var WhyCode = {
  NAIVE_FIRST: 1,
  NAIVE_RETRY: 2,
  SMART_AFTER_INCOME: 3,
  SMART_PARTIAL: 4,
  SMART_REST: 5,
  SMART_IRREGULAR_MONTH_END: 6,
  SMART_NO_INCOME_ENOUGH: 7,
  SMART_NO_INCOME_MONTH_END: 8,
  SMART_LAST_CHANCE: 9,
  ORACLE: 10,
  SMART_BALANCE: 11,
  SMART_SEEN_BALANCE: 12,
  SMART_SEEN_BALANCE_SHARE: 13,
  SMART_PARTIAL_SHARE: 14,
  SMART_PARTIAL_BALANCE: 15,
  SMART_IRREGULAR_NO_DEPOSIT_DUE: 16,
  SMART_PAYDAY_BEFORE_CLOSED_DAYS: 17,
  SMART_MONTH_END_PAYDAY: 18
};
function blankWhy(code) {
  return {
    code,
    trigger: 0,
    triggerDays: 0,
    triggerDay: 0,
    triggerAmount: 0,
    estimate: 0,
    part: 0,
    maxSplit: 0,
    remaining: 0,
    full: 0,
    lastAttemptDay: 0
  };
}
var PLAN_INTS = 10;
var PLAN_REALS = 4;
function packSubmitted(ints, o, reals, r, collection, day, amount, w) {
  ints[o] = collection;
  ints[o + 1] = day;
  ints[o + 2] = w.code;
  ints[o + 3] = w.trigger;
  ints[o + 4] = w.triggerDays;
  ints[o + 5] = w.triggerDay;
  ints[o + 6] = w.part;
  ints[o + 7] = w.maxSplit;
  ints[o + 8] = w.full;
  ints[o + 9] = w.lastAttemptDay;
  reals[r] = amount;
  reals[r + 1] = w.triggerAmount;
  reals[r + 2] = w.estimate;
  reals[r + 3] = w.remaining;
}
function unpackSubmitted(ints, o, reals, r) {
  return {
    collection: ints[o],
    day: ints[o + 1],
    amount: reals[r],
    why: {
      code: ints[o + 2],
      trigger: ints[o + 3],
      triggerDays: ints[o + 4],
      triggerDay: ints[o + 5],
      triggerAmount: reals[r + 1],
      estimate: reals[r + 2],
      part: ints[o + 6],
      maxSplit: ints[o + 7],
      remaining: reals[r + 3],
      full: ints[o + 8],
      lastAttemptDay: ints[o + 9]
    }
  };
}

// dist/engine/strategies/naive.js
var planner = {
  mayPlanCollection(attempts, failed, lastAttemptDay, A, config) {
    return attempts < config.naiveMaxAttempts && failed < config.maxFailedAttempts && (lastAttemptDay === null || A - lastAttemptDay >= config.naiveRetryDays);
  },
  plan(_customer, collections, index, _D, A, remaining, config) {
    const c = collections[index];
    if (c.attempts >= config.naiveMaxAttempts || c.failed >= config.maxFailedAttempts || c.pendingDays.length > 0)
      return null;
    if (c.lastAttemptDay !== null && A - c.lastAttemptDay < config.naiveRetryDays)
      return null;
    let w;
    if (c.lastAttemptDay === null)
      w = blankWhy(WhyCode.NAIVE_FIRST);
    else {
      w = blankWhy(WhyCode.NAIVE_RETRY);
      w.triggerDays = A - c.lastAttemptDay;
      w.lastAttemptDay = c.lastAttemptDay;
    }
    return { amount: remaining, why: w };
  }
};
var naive = {
  name: "naive",
  summary: "the full premium on the first day it can (debits are submitted the evening before: the next business day after the day the run is queued, and not before the period's first day), retried every 7 days, at most 4 attempts",
  whyCodes: [WhyCode.NAIVE_FIRST, WhyCode.NAIVE_RETRY],
  planner: () => planner,
  explain(w) {
    return w.code === WhyCode.NAIVE_FIRST ? "naive: the full premium on the first day it can be collected" : `naive: retry ${plural(w.triggerDays, "day")} after the failed attempt of ${fromDayNumber(w.lastAttemptDay)}`;
  }
};

// dist/engine/strategies/oracle.js
var planner2 = {
  mayPlanCollection() {
    return false;
  },
  plan() {
    return null;
  },
  debitsOnDay(balance, collections, day, out) {
    let left = balance;
    for (let i = 0; i < collections.length && left > 0; i++) {
      const c = collections[i];
      if (c.strategy !== oracle || c.blocked || day < c.periodFirst || day > c.periodLast)
        continue;
      const remaining = c.due - c.collected;
      if (remaining <= 0)
        continue;
      const amount = Math.min(remaining, left);
      left -= amount;
      out.push({ index: i, amount });
    }
  }
};
var oracle = {
  name: "oracle",
  summary: "reads the balance on the day and takes what is there; never fails; an upper bound for benchmarks, not something a collector could run",
  whyCodes: [WhyCode.ORACLE],
  planner: () => planner2,
  explain() {
    return "oracle: takes what the balance allows on the day (reads the future; a benchmark bound)";
  }
};

// dist/engine/income.js
var INCOME_PATTERNS = [
  "monthly_fixed_day",
  "monthly_last_business_day",
  "twice_monthly",
  "fortnightly",
  "weekly",
  "irregular",
  "none"
];
var MIN_INCOME_CENTS = 1e3;
var MIN_SCORE = 0.6;
function analyzeIncome(credits, today, windowStart, cal) {
  const cs = [];
  let sorted = true;
  for (const c of credits) {
    if (c.day < windowStart || c.day > today)
      continue;
    if (cs.length > 0 && c.day < cs[cs.length - 1].day)
      sorted = false;
    cs.push(c);
  }
  if (cs.length === 0)
    return noIncome();
  if (!sorted)
    cs.sort((a, b) => a.day - b.day);
  const threshold = incomeThreshold(cs);
  const cands = [];
  for (const c of cs)
    if (c.amount >= threshold)
      cands.push(c);
  if (cands.length === 0)
    return noIncome();
  const from = Math.max(windowStart, cs[0].day);
  const last = cands[cands.length - 1];
  const n = cands.length;
  indexCandidates(cands, from, today);
  const months = [];
  for (let m = monthOf(from); m.firstDay <= today + 1; m = monthOf(m.lastDay + 1))
    months.push(m);
  if (months[months.length - 1].lastDay < today + 7)
    months.push(monthOf(months[months.length - 1].lastDay + 1));
  let bestPattern = "monthly_last_business_day";
  let bestScore = monthlyScore(cal, cands, months, from, today, LAST_BUSINESS, 0, -1);
  let bestT = 0;
  const twice = monthlyScore(cal, cands, months, from, today, MID_MONTH, 0, LAST_BUSINESS);
  if (twice > bestScore + 1e-9) {
    bestScore = twice;
    bestPattern = "twice_monthly";
  }
  let mask = 0;
  for (const c of cands) {
    const m = monthOf(c.day);
    const dom = c.day - m.firstDay + 1;
    for (let t = dom; t <= Math.min(31, dom + 4); t++)
      mask |= 1 << t;
    if (dom >= 26) {
      for (let t = dom; t <= 31; t++)
        mask |= 1 << t;
      mask |= 1 << 1;
    }
  }
  let fixedScore = -1;
  let fixedT = 0;
  for (let t = 1; t <= 31; t++) {
    if ((mask & 1 << t) === 0)
      continue;
    const sc = monthlyScore(cal, cands, months, from, today, FIXED, t, -1);
    if (fixedScore < 0 || sc > fixedScore + 1e-9) {
      fixedScore = sc;
      fixedT = t;
    }
  }
  if (fixedScore >= 0 && fixedScore > bestScore + 1e-9) {
    bestScore = fixedScore;
    bestPattern = "monthly_fixed_day";
    bestT = fixedT;
  }
  for (const [pattern, period] of CYCLES) {
    const sc = cycleScore(cal, cands, last.day, from, period, null);
    if (sc > bestScore + 1e-9) {
      bestScore = sc;
      bestPattern = pattern;
    }
  }
  const matched = [];
  const cycle = bestPattern === "weekly" ? 7 : bestPattern === "fortnightly" ? 14 : 0;
  if (cycle > 0)
    cycleScore(cal, cands, last.day, from, cycle, matched);
  else if (bestPattern === "twice_monthly")
    monthlyScore(cal, cands, months, from, today, MID_MONTH, 0, LAST_BUSINESS, matched);
  else if (bestPattern === "monthly_fixed_day")
    monthlyScore(cal, cands, months, from, today, FIXED, bestT, -1, matched);
  else
    monthlyScore(cal, cands, months, from, today, LAST_BUSINESS, 0, -1, matched);
  if (bestScore >= MIN_SCORE && matched.length >= 2) {
    return {
      pattern: bestPattern,
      confidence: round2(bestScore * Math.min(1, matched.length / 3)),
      typicalAmount: medianAmount(matched),
      threshold,
      dayOfMonth: bestPattern === "monthly_fixed_day" ? bestT : null,
      anchorDay: cycle > 0 ? cycleAnchor(cal, matched, last.day, cycle) : null,
      meanGap: null,
      lastIncomeDay: last.day,
      lastIncomeAmount: last.amount,
      observed: n
    };
  }
  const gap = n >= 2 ? (last.day - cands[0].day) / (n - 1) : null;
  return {
    pattern: "irregular",
    confidence: round2(Math.min(0.6, 0.1 * n)),
    typicalAmount: medianAmount(cands),
    threshold,
    dayOfMonth: null,
    anchorDay: null,
    meanGap: gap === null ? null : Math.max(1, round2(gap)),
    lastIncomeDay: last.day,
    lastIncomeAmount: last.amount,
    observed: n
  };
}
var CYCLES = [
  ["fortnightly", 14],
  ["weekly", 7]
];
var LAST_BUSINESS = 1;
var MID_MONTH = 2;
var FIXED = 3;
function f1(expected, hits, candidates) {
  const denominator = expected + candidates;
  return denominator === 0 ? 0 : 2 * hits / denominator;
}
function paydayOf(cal, m, kind, t) {
  const p = cal.payMonth(m);
  return kind === LAST_BUSINESS ? p.lastBusinessDay : kind === MID_MONTH ? p.payDay[15] : p.payDay[t];
}
function monthlyScore(cal, cands, months, from, today, kind1, t, kind2, sink) {
  let expected = 0;
  let hits = 0;
  for (const m of months) {
    const d1 = paydayOf(cal, m, kind1, t);
    const d2 = kind2 > 0 ? paydayOf(cal, m, kind2, t) : -1;
    let v1;
    let v2 = 0;
    if (d2 < 0 || d2 === d1)
      v1 = visit(cands, d1, from, today, sink);
    else if (d2 < d1) {
      v2 = visit(cands, d2, from, today, sink);
      v1 = visit(cands, d1, from, today, sink);
    } else {
      v1 = visit(cands, d1, from, today, sink);
      v2 = visit(cands, d2, from, today, sink);
    }
    expected += (v1 > 0 ? 1 : 0) + (v2 > 0 ? 1 : 0);
    hits += (v1 >> 1) + (v2 >> 1);
  }
  return f1(expected, hits, cands.length);
}
var firstCandidate = new Int32Array(256);
function indexCandidates(cands, from, today) {
  const span = today - from + 1;
  if (firstCandidate.length < span)
    firstCandidate = new Int32Array(Math.max(span, 2 * firstCandidate.length));
  firstCandidate.fill(0, 0, span);
  for (let k = cands.length - 1; k >= 0; k--)
    firstCandidate[cands[k].day - from] = k + 1;
}
function visit(cands, d, from, today, sink) {
  if (d < from || d > today)
    return 0;
  const k = firstCandidate[d - from];
  if (k > 0) {
    sink?.push(cands[k - 1]);
    return 2;
  }
  return 1;
}
function cycleScore(cal, cands, lastDay2, from, period, sink) {
  let expected = 0;
  let hits = 0;
  let first = lastDay2;
  while (first - period >= from)
    first -= period;
  let j = 0;
  for (let cycleDay = first; cycleDay <= lastDay2; cycleDay += period) {
    expected++;
    const day = cal.onOrBefore(cycleDay);
    while (j < cands.length && cands[j].day < day - 1)
      j++;
    if (j < cands.length && cands[j].day <= cycleDay + 1) {
      hits++;
      sink?.push(cands[j]);
      j++;
    }
  }
  return f1(expected, hits, cands.length);
}
function noIncome() {
  return {
    pattern: "none",
    confidence: 1,
    typicalAmount: 0,
    threshold: Number.MAX_SAFE_INTEGER,
    dayOfMonth: null,
    anchorDay: null,
    meanGap: null,
    lastIncomeDay: null,
    lastIncomeAmount: 0,
    observed: 0
  };
}
function incomeThreshold(cs) {
  const n = cs.length;
  const sorted = sortedAmounts(cs);
  return Math.max(MIN_INCOME_CENTS, Math.round(medianOf(sorted, n - Math.max(1, Math.ceil(n / 3)), n) / 3));
}
function cycleAnchor(cal, matched, lastDay2, period) {
  const counts2 = new Array(period).fill(0);
  for (const c of matched)
    counts2[(c.day % period + period) % period]++;
  let best = (lastDay2 % period + period) % period;
  for (let r = 0; r < period; r++)
    if (counts2[r] > counts2[best])
      best = r;
  const due = lastDay2 + ((best - lastDay2) % period + period) % period;
  return due !== lastDay2 && due - lastDay2 <= 4 && cal.onOrBefore(due) === lastDay2 ? due : lastDay2;
}
function reanchor(cal, anchor, period, day) {
  const next = day + ((anchor - day) % period + period) % period;
  if (next === day || cal.onOrBefore(next) === day)
    return next;
  const prev = next - period;
  return day - prev <= 3 ? prev : anchor;
}
function cyclePayDay(cal, due) {
  return cal.onOrBefore(due);
}
function cycleDayFrom(anchor, period, day) {
  return day + ((anchor - day) % period + period) % period;
}
function monthPaydays(cal, a, m, out) {
  out.length = 0;
  const p = cal.payMonth(m);
  if (a.pattern === "monthly_fixed_day")
    out.push(p.payDay[a.dayOfMonth]);
  else if (a.pattern === "monthly_last_business_day")
    out.push(p.lastBusinessDay);
  else if (a.pattern === "twice_monthly") {
    const mid = p.payDay[15];
    if (mid < p.lastBusinessDay)
      out.push(mid);
    out.push(p.lastBusinessDay);
  }
  return out;
}
var scratchDays = [];
function isIncomeDay(a, day, cal) {
  switch (a.pattern) {
    case "monthly_fixed_day":
    case "monthly_last_business_day":
    case "twice_monthly": {
      const m = monthOf(day);
      for (const d of monthPaydays(cal, a, m, scratchDays))
        if (d === day)
          return true;
      if (a.pattern === "monthly_fixed_day" && day >= m.lastDay - 6)
        return cal.payMonth(monthOf(m.lastDay + 1)).payDay[a.dayOfMonth] === day;
      return false;
    }
    case "weekly":
    case "fortnightly": {
      const period = a.pattern === "weekly" ? 7 : 14;
      if (!cal.isBusinessDay(day))
        return false;
      return cyclePayDay(cal, cycleDayFrom(a.anchorDay, period, day)) === day;
    }
    default:
      return false;
  }
}
function lastIncomeDayIn(a, from, to, cal) {
  if (to < from)
    return null;
  switch (a.pattern) {
    case "weekly":
    case "fortnightly": {
      const period = a.pattern === "weekly" ? 7 : 14;
      let due = cycleDayFrom(a.anchorDay, period, to);
      let pay = cyclePayDay(cal, due);
      if (pay > to) {
        due -= period;
        pay = cyclePayDay(cal, due);
      }
      return pay >= from ? pay : null;
    }
    case "monthly_fixed_day":
    case "monthly_last_business_day":
    case "twice_monthly": {
      let best = null;
      for (let m = monthOf(monthOf(to).lastDay + 1); m.lastDay >= from - 7; m = monthOf(m.firstDay - 1)) {
        for (const d of monthPaydays(cal, a, m, scratchDays))
          if (d >= from && d <= to && (best === null || d > best))
            best = d;
        if (best !== null && m.lastDay < best)
          break;
      }
      return best;
    }
    default:
      return null;
  }
}
function predictIncome(a, from, to, cal) {
  const out = [];
  switch (a.pattern) {
    case "monthly_fixed_day":
    case "monthly_last_business_day":
    case "twice_monthly": {
      const days = [];
      for (let m = monthOf(from); m.firstDay <= to + 7; m = monthOf(m.lastDay + 1)) {
        for (const d of monthPaydays(cal, a, m, days))
          if (d >= from && d <= to && !out.includes(d))
            out.push(d);
      }
      return out.sort((x, y) => x - y);
    }
    case "weekly":
    case "fortnightly": {
      const period = a.pattern === "weekly" ? 7 : 14;
      for (let due = cycleDayFrom(a.anchorDay, period, from); ; due += period) {
        const pay = cyclePayDay(cal, due);
        if (pay > to)
          break;
        if (pay >= from)
          out.push(pay);
      }
      return out;
    }
    default:
      return out;
  }
}
function isRegular(a) {
  return a.pattern !== "irregular" && a.pattern !== "none";
}
var PATTERN_TEXT = {
  monthly_fixed_day: "monthly salary on a fixed day",
  monthly_last_business_day: "monthly salary on the last business day",
  twice_monthly: "pay twice a month (15th and month end)",
  fortnightly: "fortnightly wages",
  weekly: "weekly wages",
  irregular: "irregular income",
  none: "no income seen"
};
function describeIncome(a) {
  let s = PATTERN_TEXT[a.pattern];
  if (a.pattern === "monthly_fixed_day")
    s += ` (day ${a.dayOfMonth}, moved to the business day before on weekends and holidays)`;
  if ((a.pattern === "weekly" || a.pattern === "fortnightly") && a.anchorDay !== null) {
    s += ` (last paid ${fromDayNumber(a.anchorDay)})`;
  }
  if (a.pattern === "irregular" && a.meanGap !== null)
    s += ` (${plural(a.observed, "deposit")}, about every ${plural(Math.round(a.meanGap), "day")})`;
  if (a.pattern !== "none")
    s += `, typically ${formatCents(a.typicalAmount)}`;
  return `${s}; confidence ${a.confidence.toFixed(2)}`;
}
var amounts = new Float64Array(128);
function sortedAmounts(credits) {
  const n = credits.length;
  if (amounts.length < n)
    amounts = new Float64Array(Math.max(n, 2 * amounts.length));
  for (let i = 0; i < n; i++) {
    const x = credits[i].amount;
    let j = i;
    for (; j > 0 && amounts[j - 1] > x; j--)
      amounts[j] = amounts[j - 1];
    amounts[j] = x;
  }
  return amounts;
}
function medianOf(sorted, from, to) {
  const length = to - from;
  if (length <= 0)
    return 0;
  const mid = from + (length >> 1);
  return length % 2 === 1 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
}
function medianAmount(credits) {
  return medianOf(sortedAmounts(credits), 0, credits.length);
}
function round2(n) {
  return Math.round(n * 100) / 100;
}

// dist/engine/strategies/smart.js
var SAFETY = 0.9;
var SEEN_BALANCE_SHARE = 1 / 10;
var PARTIAL_BALANCE_SHARE = 1 / 2;
var CLOSED_QUIET_DAYS = 2;
var MOVEMENT_HORIZON_DAYS = 45;
var RECENT_INCOME_DAYS = 35;
function why(code, ctx) {
  const w = blankWhy(code);
  w.trigger = ctx.trigger;
  w.triggerDays = ctx.triggerDays;
  w.triggerDay = ctx.triggerDay;
  w.triggerAmount = ctx.deposit;
  w.estimate = ctx.estimate;
  return w;
}
function setup(ctx, customer, collections, D, A, config) {
  const a = customer.analysis;
  const regular = isRegular(a) && a.confidence >= 0.5;
  let estimate = customer.balance;
  let lastIncome = a.lastIncomeDay ?? Number.NEGATIVE_INFINITY;
  let predicted = 0;
  for (let d = D + 1; d <= A; d++) {
    if (regular && customer.isPredicted(d)) {
      estimate += a.typicalAmount;
      predicted += a.typicalAmount;
      lastIncome = d;
    }
    if (d === A)
      break;
    for (const c of collections) {
      const k2 = c.pendingDays.indexOf(d);
      if (k2 >= 0)
        estimate -= c.pendingAmounts[k2];
    }
    const k = Number.isFinite(lastIncome) ? d - lastIncome : 99;
    let out = customer.expectedDebits(k);
    if (k >= 1 && k <= 3 && monthOf(d).firstDay > lastIncome)
      out = Math.max(out, customer.expectedDebits(0));
    estimate -= out;
  }
  let available = Math.max(0, Math.floor(estimate * SAFETY));
  let onHand = Math.max(0, Math.floor((estimate - predicted) * SAFETY));
  let posted = customer.balance;
  for (const c of collections) {
    const k = c.pendingDays.indexOf(A);
    if (k >= 0) {
      available -= c.pendingAmounts[k];
      onHand -= c.pendingAmounts[k];
    }
    for (let j = 0; j < c.pendingAmounts.length; j++)
      posted -= c.pendingAmounts[j];
  }
  let trigger = 0;
  let triggerDays = 0;
  let triggerDay = 0;
  let deposit = 0;
  const cal = config.calendar;
  if (regular && customer.isPredicted(A)) {
    const ordersTakeMost = customer.expectedDebits(0) * 2 >= a.typicalAmount;
    if (ordersTakeMost || cal.onOrAfter(A + 1) > A + 1) {
      trigger = ordersTakeMost ? 2 : 3;
      triggerDay = A;
      deposit = a.typicalAmount;
    }
  }
  for (let k = 1; trigger === 0 && k <= 7; k++) {
    const day = A - k;
    if (day <= D) {
      if (dayAfterIncome(day, config) !== A)
        continue;
      const seen = customer.incomeOn(day);
      if (seen > 0) {
        trigger = 1;
        triggerDays = k;
        triggerDay = day;
        deposit = seen;
        break;
      }
    } else if (regular && cal.onOrAfter(day + 1) === A && customer.isPredicted(day)) {
      trigger = 2;
      triggerDays = k;
      triggerDay = day;
      deposit = a.typicalAmount;
      break;
    }
  }
  let periodLast = 0;
  for (const c of collections)
    if (c.periodFirst <= A && A <= c.periodLast && c.periodLast > periodLast)
      periodLast = c.periodLast;
  let lastChance;
  let noDepositDue = false;
  if (regular) {
    const recent = customer.lastPredictedIn(D - 6, D);
    const overdue = recent !== null && (a.lastIncomeDay ?? Number.NEGATIVE_INFINITY) < recent - 1;
    lastChance = overdue ? A >= periodLast : customer.lastPredictedIn(A, periodLast - 1) === null;
  } else {
    lastChance = A >= periodLast - 3;
    const nextDeposit = a.lastIncomeDay !== null && a.meanGap !== null ? a.lastIncomeDay + a.meanGap : Number.NEGATIVE_INFINITY;
    noDepositDue = !lastChance && a.pattern === "irregular" && nextDeposit > periodLast;
    if (noDepositDue)
      lastChance = true;
  }
  let budget = Math.floor(deposit * 0.6);
  for (const c of collections) {
    const k = c.pendingDays.indexOf(A);
    if (k >= 0)
      budget -= c.pendingAmounts[k];
  }
  ctx.ready = true;
  ctx.available = available;
  ctx.trigger = trigger;
  ctx.triggerDays = triggerDays;
  ctx.triggerDay = triggerDay;
  ctx.deposit = deposit;
  ctx.depositBudget = Math.max(0, budget);
  ctx.lastChance = lastChance;
  ctx.noDepositDue = noDepositDue;
  ctx.estimate = Math.max(0, estimate);
  ctx.posted = Math.max(0, posted);
  ctx.onHand = onHand;
  ctx.closed = looksClosed(customer, D);
  ctx.monthEndPayday = periodLast > 0 && A === cal.onOrBefore(periodLast) && customer.lastCreditDay !== null && customer.lastCreditDay >= A - RECENT_INCOME_DAYS;
}
function looksClosed(customer, D) {
  if (customer.balance !== 0)
    return false;
  const horizon = D - MOVEMENT_HORIZON_DAYS;
  const debit = customer.lastDebitDay;
  if (debit === null || debit <= horizon || debit > D - CLOSED_QUIET_DAYS)
    return false;
  const credit = customer.lastCreditDay;
  return credit === null || credit <= debit;
}
function planOne(customer, c, ctx, remaining, config) {
  const p = planRule(customer, c, ctx, remaining, config);
  if (p !== null)
    return p;
  if (c.attempts === 0 && c.pendingDays.length === 0 && ctx.posted >= remaining) {
    const minPartial = minPartialOf(c, remaining);
    if (ctx.available >= minPartial) {
      const amount2 = Math.min(remaining, ctx.available);
      const w2 = why(WhyCode.SMART_SEEN_BALANCE, ctx);
      w2.remaining = remaining;
      w2.full = amount2 < remaining ? 0 : 1;
      return { amount: amount2, why: w2 };
    }
    const amount = Math.min(remaining, Math.max(minPartial, Math.floor(ctx.posted * SEEN_BALANCE_SHARE)));
    const w = why(WhyCode.SMART_SEEN_BALANCE_SHARE, ctx);
    w.remaining = remaining;
    w.full = amount < remaining ? 0 : 1;
    return { amount, why: w };
  }
  const a = customer.analysis;
  if (a.pattern !== "none" && a.pattern !== "irregular" && ctx.trigger === 1 && ctx.deposit < remaining && splitDebitsLeft(c, config) > 0) {
    return partialFromDeposit(c, ctx, remaining, minPartialOf(c, remaining), config);
  }
  return null;
}
function minPartialOf(c, remaining) {
  return Math.min(remaining, partialFloor(c.due));
}
function partialFloor(due) {
  return Math.max(1e3, Math.ceil(due / 10));
}
function dayAfterIncome(day, config) {
  return config.calendar.onOrAfter(day + 1 + config.leadDays);
}
function splitDebitsLeft(c, config) {
  return config.maxSplitDebits - c.attempts - c.pendingDays.length;
}
function partialFromDeposit(c, ctx, remaining, minPartial, config) {
  const available = ctx.available;
  const debitsLeft = splitDebitsLeft(c, config);
  let amount = debitsLeft === 1 ? Math.min(remaining, available) : Math.min(remaining, ctx.depositBudget, available);
  if (c.failed > 0 && amount < remaining)
    amount = Math.floor(amount / (1 + c.failed));
  if (amount < minPartial && amount < remaining && !ctx.lastChance)
    return null;
  if (amount <= 0)
    return null;
  let w;
  if (amount < remaining) {
    w = why(WhyCode.SMART_PARTIAL, ctx);
    w.part = c.attempts + c.pendingDays.length + 1;
    w.maxSplit = config.maxSplitDebits;
  } else
    w = why(WhyCode.SMART_REST, ctx);
  return { amount, why: w };
}
function planRule(customer, c, ctx, remaining, config) {
  const a = customer.analysis;
  const minPartial = minPartialOf(c, remaining);
  const available = ctx.available;
  if (available <= 0)
    return null;
  if (ctx.trigger !== 0 && available >= remaining && a.pattern !== "none") {
    const code = a.pattern === "irregular" ? WhyCode.SMART_REST : ctx.trigger === 3 ? WhyCode.SMART_PAYDAY_BEFORE_CLOSED_DAYS : WhyCode.SMART_AFTER_INCOME;
    return { amount: remaining, why: why(code, ctx) };
  }
  if (ctx.onHand >= remaining && a.pattern !== "none")
    return { amount: remaining, why: why(WhyCode.SMART_BALANCE, ctx) };
  if (a.pattern === "irregular") {
    if (splitDebitsLeft(c, config) <= 0)
      return null;
    if (ctx.trigger !== 0)
      return partialFromDeposit(c, ctx, remaining, minPartial, config);
    if (!ctx.lastChance && c.failed === 0 && ctx.onHand >= Math.max(minPartial, Math.ceil(remaining * PARTIAL_BALANCE_SHARE))) {
      const amount = Math.min(remaining, ctx.onHand);
      const w = why(WhyCode.SMART_PARTIAL_BALANCE, ctx);
      w.part = c.attempts + c.pendingDays.length + 1;
      w.maxSplit = config.maxSplitDebits;
      w.remaining = remaining;
      return { amount, why: w };
    }
    if (ctx.lastChance) {
      const amount = Math.min(remaining, available);
      if (amount < minPartial)
        return null;
      const w = why(ctx.noDepositDue ? WhyCode.SMART_IRREGULAR_NO_DEPOSIT_DUE : WhyCode.SMART_IRREGULAR_MONTH_END, ctx);
      w.remaining = remaining;
      return { amount, why: w };
    }
    return null;
  }
  if (a.pattern === "none") {
    if (available >= remaining)
      return { amount: remaining, why: why(WhyCode.SMART_NO_INCOME_ENOUGH, ctx) };
    if (ctx.monthEndPayday && c.failed === 0) {
      const w = why(WhyCode.SMART_MONTH_END_PAYDAY, ctx);
      w.remaining = remaining;
      return { amount: remaining, why: w };
    }
    if (ctx.lastChance && available >= minPartial)
      return { amount: available, why: why(WhyCode.SMART_NO_INCOME_MONTH_END, ctx) };
    return null;
  }
  if (ctx.lastChance) {
    const amount = Math.min(remaining, available);
    if (amount < minPartial)
      return null;
    const w = why(WhyCode.SMART_LAST_CHANCE, ctx);
    w.full = amount < remaining ? 0 : 1;
    return { amount, why: w };
  }
  return null;
}
function mayPlanFor(accounts, i, D, A, periodLast, leastRemaining, leastDue, config) {
  const pattern = accounts.incomePattern(i);
  const balance = accounts.balance(i);
  if (balance >= leastRemaining)
    return true;
  const bearsPartial = balance >= Math.min(leastRemaining, partialFloor(leastDue));
  if (pattern === "none")
    return A >= config.calendar.onOrBefore(periodLast) || bearsPartial && A >= periodLast - 3;
  for (let k = 1; k <= 7; k++) {
    const day = A - k;
    if (day <= D && dayAfterIncome(day, config) === A && accounts.incomeOn(i, day) > 0)
      return true;
  }
  if (pattern === "irregular") {
    if (!bearsPartial)
      return false;
    if (A >= periodLast - 3 || 2 * balance >= leastRemaining)
      return true;
    const a = accounts.analysis(i, scratchAnalysis);
    return a.lastIncomeDay !== null && a.meanGap !== null && a.lastIncomeDay + a.meanGap > periodLast;
  }
  if (accounts.incomeConfidence(i) < 0.5)
    return bearsPartial && (A >= periodLast - 3 || accounts.lastExpectedIncomeIn(i, A, periodLast - 1) === null);
  for (let k = 0; k <= 7; k++) {
    const day = A - k;
    if (day > D && accounts.isIncomeExpected(i, day))
      return true;
  }
  return bearsPartial && accounts.lastExpectedIncomeIn(i, A, periodLast - 1) === null;
}
var scratchAnalysis = {};
function smartPlanner() {
  const ctx = {
    ready: false,
    available: 0,
    trigger: 0,
    triggerDays: 0,
    triggerDay: 0,
    deposit: 0,
    depositBudget: 0,
    lastChance: false,
    noDepositDue: false,
    estimate: 0,
    posted: 0,
    onHand: 0,
    monthEndPayday: false,
    closed: false
  };
  return {
    mayPlanCollection() {
      return true;
    },
    mayPlanCustomer(accounts, i, D, A, periodLast, leastRemaining, leastDue, config) {
      return mayPlanFor(accounts, i, D, A, periodLast, leastRemaining, leastDue, config);
    },
    beginCustomer() {
      ctx.ready = false;
    },
    plan(customer, collections, index, D, A, remaining, config) {
      const c = collections[index];
      if (c.failed >= config.maxFailedAttempts)
        return null;
      if (!ctx.ready)
        setup(ctx, customer, collections, D, A, config);
      if (ctx.closed)
        return null;
      const p = planOne(customer, c, ctx, remaining, config);
      if (p) {
        ctx.available -= p.amount;
        ctx.onHand -= p.amount;
        ctx.posted -= p.amount;
        ctx.depositBudget = Math.max(0, ctx.depositBudget - p.amount);
      }
      return p;
    }
  };
}
var smart = {
  name: "smart",
  summary: "debits 1-2 days after income, sized to the balance it expects; partial debits for irregular earners; retries after the next income; the best remaining days near month end",
  whyCodes: [
    WhyCode.SMART_AFTER_INCOME,
    WhyCode.SMART_PARTIAL,
    WhyCode.SMART_REST,
    WhyCode.SMART_IRREGULAR_MONTH_END,
    WhyCode.SMART_NO_INCOME_ENOUGH,
    WhyCode.SMART_NO_INCOME_MONTH_END,
    WhyCode.SMART_LAST_CHANCE,
    WhyCode.SMART_BALANCE,
    WhyCode.SMART_SEEN_BALANCE,
    WhyCode.SMART_SEEN_BALANCE_SHARE,
    WhyCode.SMART_PARTIAL_SHARE,
    WhyCode.SMART_PARTIAL_BALANCE,
    WhyCode.SMART_IRREGULAR_NO_DEPOSIT_DUE,
    WhyCode.SMART_PAYDAY_BEFORE_CLOSED_DAYS,
    WhyCode.SMART_MONTH_END_PAYDAY
  ],
  planner: smartPlanner,
  explain(w) {
    const trigger = w.trigger === 1 ? `${plural(w.triggerDays, "day")} after income of ${formatCents(w.triggerAmount)} received ${fromDayNumber(w.triggerDay)}` : w.trigger === 2 ? w.triggerDays === 0 ? `on the day of income of about ${formatCents(w.triggerAmount)} expected ${fromDayNumber(w.triggerDay)}, ahead of the debit orders that take most of it` : `${w.triggerDays} day${w.triggerDays > 1 ? "s" : ""} after income of about ${formatCents(w.triggerAmount)} expected ${fromDayNumber(w.triggerDay)}` : w.trigger === 3 ? `on the day of income of about ${formatCents(w.triggerAmount)} expected ${fromDayNumber(w.triggerDay)}, the last business day before a weekend or holiday` : "";
    const estimate = `expected balance ${formatCents(w.estimate)}`;
    switch (w.code) {
      case WhyCode.SMART_AFTER_INCOME:
        return `smart: ${trigger}; ${estimate}`;
      case WhyCode.SMART_PAYDAY_BEFORE_CLOSED_DAYS:
        return `smart: ${trigger} (the first business day after it comes after those days' spending); ${estimate}`;
      case WhyCode.SMART_PARTIAL:
        return `smart: partial debit ${w.part} of at most ${w.maxSplit}, ${trigger}, sized to what the deposit can bear; ${estimate}`;
      case WhyCode.SMART_REST:
        return `smart: the rest due, ${trigger}, sized to what the deposit can bear; ${estimate}`;
      case WhyCode.SMART_IRREGULAR_MONTH_END:
        return `smart: month end is near and ${formatCents(w.remaining)} is still due; ${estimate}`;
      case WhyCode.SMART_IRREGULAR_NO_DEPOSIT_DUE:
        return `smart: no deposit expected before the period ends at this customer's usual pace, and ${formatCents(w.remaining)} is still due; taking what the account can bear; ${estimate}`;
      case WhyCode.SMART_BALANCE:
        return `smart: the balance already covers the amount due, with the usual outgoings until the debit; ${estimate}`;
      case WhyCode.SMART_PARTIAL_BALANCE:
        return `smart: partial debit ${w.part} of at most ${w.maxSplit}, from money already there: no deposit to wait for, and the balance bears a good part of the ${formatCents(w.remaining)} due; ${estimate}`;
      case WhyCode.SMART_PARTIAL_SHARE:
        return `smart: partial debit ${w.part} of at most ${w.maxSplit}, ${trigger}, at most a third of the posted balance (deposits smaller than the premium are mostly spent within two days); ${estimate}`;
      case WhyCode.SMART_SEEN_BALANCE_SHARE:
        return `smart: nothing attempted yet and the posted balance covers the ${formatCents(w.remaining)} due, but the usual spending before the debit may take most of it; a tenth of the posted balance; ${estimate}`;
      case WhyCode.SMART_SEEN_BALANCE:
        return `smart: nothing attempted yet and the posted balance covers the ${formatCents(w.remaining)} due; ${w.full ? "the full amount" : "what the balance will bear"}; ${estimate}`;
      case WhyCode.SMART_NO_INCOME_ENOUGH:
        return `smart: no income pattern, but the account holds enough; ${estimate}`;
      case WhyCode.SMART_MONTH_END_PAYDAY:
        return `smart: payday not known yet and the account has had money paid in lately; the last business day of the month, when most salaries are paid (they post before the debit), for the ${formatCents(w.remaining)} due; ${estimate}`;
      case WhyCode.SMART_NO_INCOME_MONTH_END:
        return `smart: month end is near; taking what the account can bear; ${estimate}`;
      default:
        return `smart: no further income expected before month end, ${w.full ? "the full amount due" : "taking what the account can bear"}${trigger ? `, ${trigger}` : ""}; ${estimate}`;
    }
  }
};

// dist/engine/strategies.js
var STRATEGIES = { smart, naive, oracle };
var STRATEGY_LIST = STRATEGY_NAMES.map((n) => STRATEGIES[n]);
function isStrategy(s) {
  return typeof s === "string" && Object.prototype.hasOwnProperty.call(STRATEGIES, s);
}
function strategyOf(name) {
  return isStrategy(name) ? STRATEGIES[name] : STRATEGIES[DEFAULT_STRATEGY];
}
var EXPLAINER = (() => {
  const owners = [];
  for (const s of STRATEGY_LIST) {
    for (const code of s.whyCodes) {
      if (owners[code])
        throw new Error(`reason code ${code} belongs to both ${owners[code].name} and ${s.name}`);
      owners[code] = s;
    }
  }
  return owners;
})();
function renderWhy(w) {
  return (EXPLAINER[w.code] ?? oracle).explain(w);
}
function planners() {
  return STRATEGY_LIST.map((s) => s.planner());
}
function planCustomer(planners2, customer, collections, D, A, config) {
  const out = [];
  if (!config.calendar.isBusinessDay(A))
    return out;
  for (let s = 0; s < planners2.length; s++)
    planners2[s].beginCustomer?.();
  for (let i = 0; i < collections.length; i++) {
    const c = collections[i];
    if (c.blocked || A < c.periodFirst || A > c.periodLast || c.pendingDays.includes(A))
      continue;
    let pending = 0;
    for (let k = 0; k < c.pendingAmounts.length; k++)
      pending += c.pendingAmounts[k];
    const remaining = c.due - c.collected - pending;
    if (remaining <= 0)
      continue;
    const p = planners2[c.code].plan(customer, collections, i, D, A, remaining, config);
    if (p)
      out.push({ index: i, day: A, amount: p.amount, why: p.why });
  }
  return out;
}
function strategyCode(name) {
  return STRATEGY_LIST.indexOf(strategyOf(name));
}

// dist/engine/collection-set.js
var PENDING_SLOTS = 3;
var S_UNPAID = 0;
var S_PARTIAL = 1;
var S_FULL = 2;
var S_CANCELLED = 3;
var dayOrNone = (date) => date ? dayNumber(date) : NO_DAY;
var CollectionSet = class {
  capacity;
  n = 0;
  rowid;
  account;
  policyNumber = [];
  period;
  strategy;
  due;
  collected;
  attempts;
  failed;
  status;
  blocked;
  firstDay;
  lastDay;
  failure;
  /** Submitted plans: PENDING_SLOTS (day, amount) pairs per collection, day 0 = free. */
  pendDay;
  pendAmount;
  dirty;
  closed;
  /**
   * Each collection's place in (client, policy_number) order, ties in column order: the order a
   * day's attempts are stored in (`rankByPolicy`).
   */
  rank;
  periods = [];
  constructor(capacity) {
    this.capacity = capacity;
    const c = Math.max(1, capacity);
    this.rowid = new Int32Array(c);
    this.account = new Int32Array(c);
    this.period = new Uint8Array(c);
    this.strategy = new Uint8Array(c);
    this.due = new Int32Array(c);
    this.collected = new Int32Array(c);
    this.attempts = new Int16Array(c);
    this.failed = new Int16Array(c);
    this.status = new Uint8Array(c);
    this.blocked = new Uint8Array(c);
    this.firstDay = new Int32Array(c);
    this.lastDay = new Int32Array(c);
    this.failure = new Uint8Array(c);
    this.pendDay = new Int32Array(c * PENDING_SLOTS);
    this.pendAmount = new Int32Array(c * PENDING_SLOTS);
    this.dirty = new Uint8Array(c);
    this.closed = new Uint8Array(c);
    this.rank = new Int32Array(c);
  }
  /**
   * Set `rank` from the collections' clients (`clientOf`). `guess`, when given, lists the
   * columns in an order that may be the one wanted already (row id order: a run queues a
   * client's period in policy_number order), checked in one pass; otherwise the columns are
   * sorted.
   */
  rankByPolicy(clientOf, guess) {
    const n = this.n;
    const before = (a, b) => {
      const ca = clientOf(a);
      const cb = clientOf(b);
      if (ca !== cb)
        return ca - cb;
      const pa = this.policyNumber[a];
      const pb = this.policyNumber[b];
      return pa < pb ? -1 : pa > pb ? 1 : a - b;
    };
    let order = guess;
    if (order !== void 0) {
      for (let k = 1; k < n; k++) {
        const a = order[k - 1];
        const b = order[k];
        if (clientOf(a) > clientOf(b) || clientOf(a) === clientOf(b) && this.policyNumber[a] >= this.policyNumber[b]) {
          order = void 0;
          break;
        }
      }
    }
    if (order === void 0) {
      order = new Int32Array(n);
      for (let c = 0; c < n; c++)
        order[c] = c;
      order.sort(before);
    }
    for (let k = 0; k < n; k++)
      this.rank[order[k]] = k;
  }
  periodIndex(period) {
    let k = this.periods.findIndex((p) => p.period === period);
    if (k < 0) {
      this.periods.push({ period, first: dayNumber(`${period}-01`), last: dayNumber(lastDay(period)) });
      k = this.periods.length - 1;
    }
    return k;
  }
  addPending(c, day, amount) {
    const base = c * PENDING_SLOTS;
    for (let s = 0; s < PENDING_SLOTS; s++) {
      if (this.pendDay[base + s] === 0) {
        this.pendDay[base + s] = day;
        this.pendAmount[base + s] = amount;
        return;
      }
    }
    throw new Error(`collection ${this.rowid[c]} has more than ${PENDING_SLOTS} pending debits`);
  }
  /** Take the plan for `day` out of the collection's pending slots; its amount, or 0. */
  takePending(c, day) {
    const base = c * PENDING_SLOTS;
    for (let s = 0; s < PENDING_SLOTS; s++) {
      if (this.pendDay[base + s] === day) {
        this.pendDay[base + s] = 0;
        return this.pendAmount[base + s];
      }
    }
    return 0;
  }
  /** Status from the amounts (a cancelled collection stays cancelled). */
  statusOf(c) {
    if (this.status[c] === S_CANCELLED)
      return S_CANCELLED;
    if (this.collected[c] >= this.due[c])
      return S_FULL;
    return this.collected[c] > 0 ? S_PARTIAL : S_UNPAID;
  }
};
var Views = class {
  pool = [];
  list = [];
  fill(cs, start, count) {
    const list = this.list;
    list.length = 0;
    for (let j = 0; j < count; j++) {
      const c = start + j;
      let v = this.pool[j];
      if (!v) {
        v = {
          policyNumber: "",
          strategy: STRATEGY_LIST[0],
          code: 0,
          due: 0,
          collected: 0,
          attempts: 0,
          failed: 0,
          blocked: false,
          periodFirst: 0,
          periodLast: 0,
          lastAttemptDay: null,
          pendingDays: [],
          pendingAmounts: []
        };
        this.pool[j] = v;
      }
      const p = cs.periods[cs.period[c]];
      v.policyNumber = cs.policyNumber[c];
      v.code = cs.strategy[c];
      v.strategy = STRATEGY_LIST[v.code];
      v.due = cs.due[c];
      v.collected = cs.collected[c];
      v.attempts = cs.attempts[c];
      v.failed = cs.failed[c];
      v.blocked = cs.blocked[c] === 1 || cs.closed[c] === 1;
      v.periodFirst = p.first;
      v.periodLast = p.last;
      v.lastAttemptDay = cs.lastDay[c] === NO_DAY ? null : cs.lastDay[c];
      v.pendingDays.length = 0;
      v.pendingAmounts.length = 0;
      const base = c * PENDING_SLOTS;
      for (let s = 0; s < PENDING_SLOTS; s++) {
        if (cs.pendDay[base + s] !== 0) {
          v.pendingDays.push(cs.pendDay[base + s]);
          v.pendingAmounts.push(cs.pendAmount[base + s]);
        }
      }
      if (v.pendingDays.length > 1 && v.pendingDays[0] > v.pendingDays[1]) {
        v.pendingDays.reverse();
        v.pendingAmounts.reverse();
      }
      list.push(v);
    }
    return list;
  }
};

// dist/domain/typed-arrays.js
function grown(a, length) {
  if (length <= a.length)
    return a;
  const b = new a.constructor(Math.max(length, a.length * 2));
  b.set(a);
  return b;
}

// dist/engine/day-rows.js
var PlanBuffer = class {
  n = 0;
  ints = new Int32Array(64 * PLAN_INTS);
  reals = new Float64Array(64 * PLAN_REALS);
  push(collection, day, amount, w) {
    this.ints = grown(this.ints, (this.n + 1) * PLAN_INTS);
    this.reals = grown(this.reals, (this.n + 1) * PLAN_REALS);
    packSubmitted(this.ints, this.n * PLAN_INTS, this.reals, this.n * PLAN_REALS, collection, day, amount, w);
    this.n++;
  }
  /**
   * The debits in collection id order. The order they are planned in is the working set's
   * account order, which depends on how it was loaded (from the collections, or from the image's
   * blocks of one wake day each): stored in id order, the same month gives the same plan batches
   * lived in one advance or day by day. Usually already in order (a pass, no copy).
   */
  inIdOrder() {
    const n = this.n;
    const ints = this.ints;
    let k = 1;
    while (k < n && ints[(k - 1) * PLAN_INTS] < ints[k * PLAN_INTS])
      k++;
    if (k >= n)
      return this;
    const order = orderBy(n, (j) => ints[j * PLAN_INTS]);
    const sortedInts = new Int32Array(ints.length);
    const sortedReals = new Float64Array(this.reals.length);
    for (let to = 0; to < n; to++) {
      const from = order[to];
      sortedInts.set(ints.subarray(from * PLAN_INTS, (from + 1) * PLAN_INTS), to * PLAN_INTS);
      sortedReals.set(this.reals.subarray(from * PLAN_REALS, (from + 1) * PLAN_REALS), to * PLAN_REALS);
    }
    this.ints = sortedInts;
    this.reals = sortedReals;
    return this;
  }
};
var DayPlans = class {
  byClient = /* @__PURE__ */ new Map();
  count = 0;
  push(clientId, collection, day, amount, why2) {
    let b = this.byClient.get(clientId);
    if (!b)
      this.byClient.set(clientId, b = new PlanBuffer());
    b.push(collection, day, amount, why2);
    this.count++;
  }
};
async function insertPlans(unit, plans, planDay) {
  if (plans.count === 0)
    return;
  const date = fromDayNumber(planDay);
  for (const [clientId, rows] of plans.byClient)
    await unit.insertPlanColumns(date, clientId, rows.inIdOrder());
}
var DayAttempts = class {
  n = 0;
  col = new Int32Array(1024);
  amount = new Float64Array(1024);
  reason = new Uint8Array(1024);
  push(c, amount, reason) {
    if (this.n === this.col.length) {
      this.col = grown(this.col, this.n + 1);
      this.amount = grown(this.amount, this.n + 1);
      this.reason = grown(this.reason, this.n + 1);
    }
    this.col[this.n] = c;
    this.amount[this.n] = amount;
    this.reason[this.n] = reason;
    this.n++;
  }
  /**
   * The attempts as stored: in (client, policy_number) order (rowid order is report order), of
   * which `rank` gives each collection's place (collection-set.ts).
   */
  columns(cs, clientOf) {
    const n = this.n;
    const order = orderBy(n, (j) => cs.rank[this.col[j]]);
    const rows = {
      n,
      clientId: new Int32Array(n),
      collectionId: new Int32Array(n),
      period: new Uint8Array(n),
      periods: cs.periods.map((p) => p.period),
      amount: new Float64Array(n),
      reason: new Uint8Array(n)
    };
    for (let k = 0; k < n; k++) {
      const j = order[k];
      const c = this.col[j];
      rows.clientId[k] = clientOf(c);
      rows.collectionId[k] = cs.rowid[c];
      rows.period[k] = cs.period[c];
      rows.amount[k] = this.amount[j];
      rows.reason[k] = this.reason[j];
    }
    return rows;
  }
};
function orderBy(n, key) {
  const order = new Int32Array(n);
  if (n <= PACKED_MAX) {
    const packed = new Float64Array(n);
    for (let j = 0; j < n; j++)
      packed[j] = key(j) * PACKED_MAX + j;
    packed.sort();
    for (let k = 0; k < n; k++)
      order[k] = packed[k] % PACKED_MAX;
    return order;
  }
  for (let j = 0; j < n; j++)
    order[j] = j;
  const keys = new Float64Array(n);
  for (let j = 0; j < n; j++)
    keys[j] = key(j);
  return order.sort((a, b) => keys[a] - keys[b]);
}
var PACKED_MAX = 1 << 22;
function updateColumns(cs, cols, from, to) {
  const n = to - from;
  const rows = {
    n,
    id: new Int32Array(n),
    collected: new Float64Array(n),
    status: new Uint8Array(n),
    first: new Int32Array(n),
    last: new Int32Array(n),
    attempts: new Int32Array(n),
    failed: new Int32Array(n),
    failure: new Uint8Array(n)
  };
  for (let k = 0; k < n; k++) {
    const c = cols[from + k];
    rows.id[k] = cs.rowid[c];
    rows.collected[k] = cs.collected[c];
    rows.status[k] = cs.status[c];
    rows.first[k] = cs.firstDay[c];
    rows.last[k] = cs.lastDay[c];
    rows.attempts[k] = cs.attempts[c];
    rows.failed[k] = cs.failed[c];
    rows.failure[k] = cs.failure[c];
  }
  return rows;
}

// dist/engine/may-plan.js
function mayPlan(state, i, D, A) {
  const cs = state.cols;
  const wants = state.wants;
  const start = state.colStart[i];
  const end = start + state.colCount[i];
  let periodLast = 0;
  let wanted = false;
  let least = Number.POSITIVE_INFINITY;
  let leastDue = Number.POSITIVE_INFINITY;
  for (let c = start; c < end; c++) {
    const p = cs.periods[cs.period[c]];
    if (A >= p.first && A <= p.last && p.last > periodLast)
      periodLast = p.last;
    if (cs.closed[c] === 1 || cs.blocked[c] === 1 || cs.collected[c] >= cs.due[c] || A < p.first || A > p.last)
      continue;
    let pending = 0;
    let onA = false;
    for (let x = c * PENDING_SLOTS; x < (c + 1) * PENDING_SLOTS; x++) {
      if (cs.pendDay[x] === 0)
        continue;
      pending += cs.pendAmount[x];
      if (cs.pendDay[x] === A)
        onA = true;
    }
    const remaining = cs.due[c] - cs.collected[c] - pending;
    if (onA || remaining <= 0)
      continue;
    if (remaining < least)
      least = remaining;
    if (cs.due[c] < leastDue)
      leastDue = cs.due[c];
    const code = cs.strategy[c];
    if (wants[code] === 1)
      continue;
    const last = cs.lastDay[c];
    if (state.planners[code].mayPlanCollection(cs.attempts[c], cs.failed[c], last === NO_DAY ? null : last, A, state.settings)) {
      wants[code] = 1;
      wanted = true;
    }
  }
  if (!wanted)
    return false;
  return mayPlanCustomer(state, i, D, A, periodLast, least, leastDue);
}
function mayPlanCustomer(state, i, D, A, periodLast, leastRemaining, leastDue) {
  const wants = state.wants;
  let may = false;
  for (let s = 0; s < wants.length; s++)
    if (wants[s] === 1 && state.planners[s].mayPlanCustomer === void 0)
      may = true;
  for (let s = 0; s < wants.length; s++) {
    if (wants[s] === 0)
      continue;
    wants[s] = 0;
    if (!may && state.planners[s].mayPlanCustomer(state.reads, i, D, A, periodLast, leastRemaining, leastDue, state.settings))
      may = true;
  }
  return may;
}

// dist/engine/awake.js
var ACTIVE = 0;
var NEVER = 2147483647;
var GONE = -1;
var NO_DEBITS = { debitsFor: () => 0 };
function nextNeeded(state, i, D) {
  const cs = state.cols;
  const lead = state.settings.leadDays;
  const start = state.colStart[i];
  const end = start + state.colCount[i];
  let next = NEVER;
  for (let c = start; c < end; c++) {
    if (cs.closed[c] === 1)
      continue;
    const base = c * PENDING_SLOTS;
    for (let s = 0; s < PENDING_SLOTS; s++)
      if (cs.pendDay[base + s] !== 0)
        return D + 1;
    if (cs.blocked[c] === 1 || cs.collected[c] >= cs.due[c])
      continue;
    const p = cs.periods[cs.period[c]];
    const dayDebits = state.planners[cs.strategy[c]].debitsOnDay !== void 0;
    const first = dayDebits ? p.first : p.first - 1 - lead;
    const last = dayDebits ? p.last : p.last - 1 - lead;
    if (D + 1 > last)
      continue;
    if (D + 1 >= first)
      return D + 1;
    if (first < next)
      next = first;
  }
  return next;
}
function quietUntil(state, i, D) {
  if (state.hasDayDebits[i] === 1)
    return D + 1;
  const cs = state.cols;
  const start = state.colStart[i];
  const end = start + state.colCount[i];
  for (let x = start * PENDING_SLOTS; x < end * PENDING_SLOTS; x++)
    if (cs.pendDay[x] !== 0)
      return D + 1;
  const monthEnd = monthOf(D + 1).lastDay;
  const until = Math.min(monthEnd, state.accounts.nextCreditDay(i, D, monthEnd));
  const lead = state.settings.leadDays;
  const calendar = state.settings.calendar;
  for (let d = D + 1; d < until; d++) {
    const A = d + 1 + lead;
    if (calendar.isBusinessDay(A) && mayPlan(state, i, d, A))
      return d;
  }
  return until;
}
function sleepIdle(state, D) {
  const quiet = state.accounts.nextCreditDay !== void 0;
  let keep = 0;
  for (let k = 0; k < state.activeCount; k++) {
    const i = state.active[k];
    let next = nextNeeded(state, i, D);
    if (next === D + 1 && quiet) {
      next = quietUntil(state, i, D);
      if (next > D + 1)
        next = nextNeeded(state, i, next - 1);
    }
    if (next === D + 1) {
      state.active[keep++] = i;
      continue;
    }
    sleepUntil(state, i, next);
  }
  state.activeCount = keep;
}
function sleepUntil(state, i, day) {
  state.wakeDay[i] = day;
  if (day === NEVER)
    return;
  let list = state.wakes.get(day);
  if (!list)
    state.wakes.set(day, list = []);
  list.push(i);
}
function wake(state, day) {
  const list = state.wakes.get(day);
  if (!list)
    return;
  state.wakes.delete(day);
  const woken = list.filter((i) => state.wakeDay[i] === day);
  if (woken.length === 0)
    return;
  for (const i of woken) {
    catchUp(state, i, day - 1);
    state.wakeDay[i] = ACTIVE;
  }
  woken.sort((a2, b) => a2 - b);
  let a = state.activeCount - 1;
  let w = woken.length - 1;
  let at = state.activeCount + woken.length - 1;
  while (w >= 0) {
    if (a >= 0 && state.active[a] > woken[w])
      state.active[at--] = state.active[a--];
    else
      state.active[at--] = woken[w--];
  }
  state.activeCount += woken.length;
}
var catchUpFacts = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
function catchUp(state, i, day) {
  const accounts = state.accounts;
  let lived = accounts.lastLived(i);
  if (lived >= day)
    return;
  let month = monthOf(lived + 1);
  const summaries = state.summaries;
  const learn = (d, facts) => {
    if (d > month.lastDay)
      month = monthOf(d);
    summaries.endOfDay(accounts, i, d, facts, true, month);
  };
  if (accounts.liveQuietly?.(i, day, catchUpFacts, learn) === true)
    return;
  while (lived < day) {
    lived++;
    if (lived > month.lastDay)
      month = monthOf(lived);
    accounts.live(i, NO_DEBITS, state.outcomes, catchUpFacts);
    state.summaries.endOfDay(accounts, i, lived, catchUpFacts, true, month);
  }
}

// dist/engine/day.js
function emptySummary(date) {
  return { date, attempts: 0, succeeded: 0, failed: 0, collected: asCents(0), closed_period: null, lapsed_policies: 0 };
}
function planAll(state, D, A) {
  const out = new DayPlans();
  if (!state.settings.calendar.isBusinessDay(A))
    return out;
  const settings = state.settings;
  const cs = state.cols;
  for (let k = 0; k < state.activeCount; k++) {
    const i = state.active[k];
    if (!mayPlan(state, i, D, A))
      continue;
    const start = state.colStart[i];
    const count = state.colCount[i];
    const views2 = state.views.fill(cs, start, count);
    const planned = planCustomer(state.planners, state.view.at(i), views2, D, A, settings);
    for (const p of planned) {
      const c = start + p.index;
      cs.addPending(c, p.day, p.amount);
      out.push(state.accounts.clientId[i], cs.rowid[c], p.day, p.amount, p.why);
    }
  }
  return out;
}
function summaryFor(map, clientId, date) {
  let s = map.get(clientId);
  if (!s)
    map.set(clientId, s = emptySummary(date));
  return s;
}
var DayRunner = class {
  state;
  account = 0;
  cols = [];
  amounts = [];
  count = 0;
  constructor(state) {
    this.state = state;
  }
  debitsFor(balance, day, out) {
    const s = this.state;
    const cs = s.cols;
    const start = s.colStart[this.account];
    const end = start + s.colCount[this.account];
    const amounts2 = this.amounts;
    let n = 0;
    for (let c = start; c < end; c++) {
      const planned = cs.takePending(c, day);
      if (planned === 0)
        continue;
      const amount = Math.min(planned, cs.due[c] - cs.collected[c]);
      if (cs.blocked[c] === 1 || cs.closed[c] === 1 || amount <= 0)
        continue;
      this.cols[n] = c;
      amounts2[n++] = amount;
    }
    if (s.hasDayDebits[this.account] === 1 && s.accounts.blockedOn(this.account, day) === null) {
      const views2 = s.views.fill(cs, start, end - start);
      for (let d = 0; d < s.dayPlanners.length; d++) {
        let committed = 0;
        for (let j = 0; j < n; j++)
          committed += amounts2[j];
        const taken = s.dayDebits;
        taken.length = 0;
        s.dayPlanners[d].debitsOnDay(balance - committed, views2, day, taken);
        for (const o of taken) {
          const c = start + o.index;
          let seen = false;
          for (let j = 0; j < n; j++)
            if (this.cols[j] === c)
              seen = true;
          if (seen || cs.closed[c] === 1)
            continue;
          this.cols[n] = c;
          amounts2[n++] = o.amount;
        }
      }
      sortByPolicy(cs, this.cols, amounts2, n);
    }
    for (let j = 0; j < n; j++)
      out[j] = amounts2[j];
    this.count = n;
    return n;
  }
};
function sortByPolicy(cs, cols, amounts2, n) {
  for (let i = 1; i < n; i++) {
    for (let j = i; j > 0 && cs.policyNumber[cols[j - 1]] > cs.policyNumber[cols[j]]; j--) {
      const c = cols[j];
      cols[j] = cols[j - 1];
      cols[j - 1] = c;
      const a = amounts2[j];
      amounts2[j] = amounts2[j - 1];
      amounts2[j - 1] = a;
    }
  }
}
function liveDay(state, runner, day) {
  const date = fromDayNumber(day);
  const month = monthOf(day);
  const attempts = state.dayAttempts;
  attempts.n = 0;
  const summaries = /* @__PURE__ */ new Map();
  const accounts = state.accounts;
  const cs = state.cols;
  const outcomes = state.outcomes;
  wake(state, day);
  for (let k = 0; k < state.activeCount; k++) {
    const i = state.active[k];
    runner.account = i;
    runner.count = 0;
    const facts = accounts.live(i, runner, outcomes, state.facts);
    for (let j = 0; j < facts.premiaDebits; j++) {
      const c = runner.cols[j];
      const reason = outcomes[j];
      const amount = runner.amounts[j];
      cs.attempts[c]++;
      cs.lastDay[c] = day;
      if (cs.firstDay[c] === NO_DAY)
        cs.firstDay[c] = day;
      const clientId = accounts.clientId[i];
      const s = summaryFor(summaries, clientId, date);
      s.attempts++;
      let code = 0;
      if (reason === null) {
        cs.collected[c] += amount;
        s.succeeded++;
        s.collected = asCents(s.collected + amount);
      } else {
        code = failureCode(reason);
        cs.failed[c]++;
        cs.failure[c] = code;
        s.failed++;
        if (!isRetryable(reason))
          cs.blocked[c] = 1;
      }
      cs.status[c] = cs.statusOf(c);
      if (cs.dirty[c] === 0) {
        cs.dirty[c] = 1;
        state.dirty.push(c);
      }
      attempts.push(c, amount, code);
    }
    state.summaries.endOfDay(accounts, i, day, facts, true, month);
  }
  return { attempts: attempts.columns(cs, (c) => accounts.clientId[cs.account[c]]), summaries };
}
async function writeDay(unit, state, day, out) {
  await unit.insertAttemptColumns(fromDayNumber(day), out.attempts);
  const cs = state.cols;
  const dirty = state.dirty;
  const order = orderBy(dirty.length, (j) => cs.rowid[dirty[j]]);
  for (let k = 0; k < order.length; k++)
    order[k] = dirty[order[k]];
  for (const c of dirty)
    cs.dirty[c] = 0;
  dirty.length = 0;
  for (let at = 0; at < order.length; at += UPDATE_CHUNK)
    await unit.updateCollectionColumns(updateColumns(cs, order, at, Math.min(order.length, at + UPDATE_CHUNK)));
  if (order.length === 0)
    await unit.updateCollectionColumns(updateColumns(cs, order, 0, 0));
}
var UPDATE_CHUNK = 16384;
async function closePeriod(unit, state, period, stampMs) {
  const runs = await closePeriodRuns(unit, state.settings.lapseAfterUnpaidPeriods, period, stampMs);
  await closePeriodAccounts(state, period);
  return runs;
}
async function closePeriodRuns(unit, lapseAfter, period, stampMs) {
  const day = lastDay(period);
  if (unit.closePeriod)
    return { lapsed: unit.closePeriod(period, lapseAfter, day, stampMs) };
  await unit.completeExecutions(period, stampMs);
  const now = await applyLapseRule(period, lapseAfter, (periods) => unit.lapseCandidates(periods), (policies, reason) => unit.lapsePolicies(policies, day, stampMs, reason));
  return { lapsed: Promise.resolve(now) };
}
async function closePeriodAccounts(state, period) {
  const day = lastDay(period);
  const kept = [];
  const cs = state.cols;
  const k = cs.periods.findIndex((p) => p.period === period);
  for (let i = 0; i < state.accounts.size; i++) {
    const w = state.wakeDay[i];
    if (w === ACTIVE || w === GONE)
      continue;
    const start = state.colStart[i];
    const end = start + state.colCount[i];
    let open2 = false;
    for (let c = start; c < end; c++) {
      if (cs.closed[c] === 1)
        continue;
      if (cs.period[c] === k)
        cs.closed[c] = 1;
      else
        open2 = true;
    }
    if (!open2)
      state.wakeDay[i] = GONE;
  }
  let keep = 0;
  for (let a = 0; a < state.activeCount; a++) {
    const i = state.active[a];
    const start = state.colStart[i];
    const end = start + state.colCount[i];
    let had = false;
    let open2 = false;
    for (let c = start; c < end; c++) {
      if (cs.closed[c] === 1)
        continue;
      if (cs.period[c] === k) {
        had = true;
        cs.closed[c] = 1;
      } else
        open2 = true;
    }
    if (had)
      kept.push(i);
    if (open2)
      state.active[keep++] = i;
    else
      state.wakeDay[i] = GONE;
  }
  state.activeCount = keep;
  await state.accounts.keepBalances(dayNumber(day), kept);
}

// dist/engine/image.js
import { createHash as createHash2 } from "node:crypto";
var BLOCK = 4096;
var FORMAT = 2;
var align8 = (n) => n + 7 & ~7;
var STORED = [Int8Array, Uint8Array, Int16Array, Int32Array, Float64Array];
function narrowest(v) {
  let min = 0;
  let max = 0;
  for (let k = 0; k < v.length; k++) {
    const x = v[k];
    if (!Number.isInteger(x) || Object.is(x, -0))
      return 4;
    if (x < min)
      min = x;
    else if (x > max)
      max = x;
  }
  if (min >= -128 && max <= 127)
    return 0;
  if (min >= 0 && max <= 255)
    return 1;
  if (min >= -32768 && max <= 32767)
    return 2;
  if (min >= -2147483648 && max <= 2147483647)
    return 3;
  return 4;
}
var COLLECTION_COLUMNS2 = [
  "rowid",
  "periodFirst",
  "strategy",
  "due",
  "collected",
  "status",
  "attempts",
  "failed",
  "blocked",
  "firstDay",
  "lastDay",
  "failure",
  "pendDay",
  "pendAmount"
];
var strideOf = (name) => name === "pendDay" || name === "pendAmount" ? PENDING_SLOTS : 1;
var CUSTOMER_COLUMNS = 5;
function imageTag(settings, summaries) {
  const layout = summaries.columns().map((c) => `${c.name}:${c.data.constructor.name}:${c.stride}`);
  const keys = ["seed", "bank_epoch", CALENDAR_KEY, IMPORTED_HOLIDAYS_KEY, ...Object.values(SETTING_KEYS)];
  const inputs = JSON.stringify([FORMAT, layout, COLLECTION_COLUMNS2, STRATEGY_NAMES, PENDING_SLOTS, keys.map((k) => [k, settings.get(k) ?? null])]);
  return `${FORMAT}:${createHash2("sha256").update(inputs).digest("hex")}`;
}
function gather(src, stride, pick, out) {
  if (src instanceof Float64Array)
    gatherFloat64(src, stride, pick, out);
  else if (src instanceof Int32Array)
    gatherInt32(src, stride, pick, out);
  else if (src instanceof Int16Array)
    gatherInt16(src, stride, pick, out);
  else if (src instanceof Uint8Array)
    gatherUint8(src, stride, pick, out);
  else
    gatherInt8(src, stride, pick, out);
  return out;
}
function gatherFloat64(src, s, pick, out) {
  for (let j = 0; j < pick.length; j++)
    for (let x = 0; x < s; x++)
      out[j * s + x] = src[pick[j] * s + x];
}
function gatherInt32(src, s, pick, out) {
  for (let j = 0; j < pick.length; j++)
    for (let x = 0; x < s; x++)
      out[j * s + x] = src[pick[j] * s + x];
}
function gatherInt16(src, s, pick, out) {
  for (let j = 0; j < pick.length; j++)
    for (let x = 0; x < s; x++)
      out[j * s + x] = src[pick[j] * s + x];
}
function gatherUint8(src, s, pick, out) {
  for (let j = 0; j < pick.length; j++)
    for (let x = 0; x < s; x++)
      out[j * s + x] = src[pick[j] * s + x];
}
function gatherInt8(src, s, pick, out) {
  for (let j = 0; j < pick.length; j++)
    for (let x = 0; x < s; x++)
      out[j * s + x] = src[pick[j] * s + x];
}
function* encodeImage(state, day) {
  const accounts = state.accounts;
  const cs = state.cols;
  const groups = /* @__PURE__ */ new Map();
  for (let i = 0; i < accounts.size; i++) {
    const w = state.wakeDay[i];
    const wake2 = w === ACTIVE ? day + 1 : w === GONE ? NEVER : w;
    const clientId = accounts.clientId[i];
    const key = `${clientId}:${wake2}`;
    let g = groups.get(key);
    if (!g)
      groups.set(key, g = { clientId, wake: wake2, accounts: [] });
    g.accounts.push(i);
  }
  const encoder = new BlockEncoder(accounts, state.summaries, cs);
  for (const g of groups.values()) {
    for (let at = 0; at < g.accounts.length; at += BLOCK) {
      const pick = g.accounts.slice(at, at + BLOCK);
      const cols = [];
      const counts2 = new Uint8Array(pick.length);
      pick.forEach((i, j) => {
        const start = state.colStart[i];
        const end = start + state.colCount[i];
        for (let c = start; c < end; c++) {
          if (cs.closed[c] === 1)
            continue;
          cols.push(c);
          counts2[j]++;
        }
      });
      yield encoder.block(g.clientId, g.wake, pick, cols, counts2);
    }
  }
}
var BlockEncoder = class {
  accounts;
  cs;
  scratch = new ArrayBuffer(0);
  text = new TextEncoder();
  summaryColumns;
  constructor(accounts, summaries, cs) {
    this.accounts = accounts;
    this.cs = cs;
    this.summaryColumns = summaries.columns();
  }
  /** The block of accounts `pick` (of `clientId`, waking on `wake`) with collections `cols` (`counts` a customer). */
  block(clientId, wake2, pick, cols, counts2) {
    const accounts = this.accounts;
    const cs = this.cs;
    const n = pick.length;
    const m = cols.length;
    const numeric = [];
    const clients = new Float64Array(n);
    const balance = new Float64Array(n);
    const lastLived = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      clients[j] = accounts.clientId[pick[j]];
      balance[j] = accounts.balance(pick[j]);
      lastLived[j] = accounts.lastLived(pick[j]);
    }
    numeric.push(clients, balance, lastLived, new Float64Array(n).fill(wake2), Float64Array.from(counts2));
    for (const c of this.summaryColumns)
      numeric.push(gather(c.data, c.stride, pick, new Float64Array(n * c.stride)));
    for (const name of COLLECTION_COLUMNS2) {
      if (cs === null)
        numeric.push(new Float64Array(0));
      else if (name === "periodFirst")
        numeric.push(Float64Array.from(cols, (c) => cs.periods[cs.period[c]].first));
      else
        numeric.push(gather(cs[name], strideOf(name), cols, new Float64Array(m * strideOf(name))));
    }
    const ids = pick.map((i) => accounts.customerId[i]);
    const policies = cs === null ? [] : cols.map((c) => cs.policyNumber[c]);
    const idBytes = this.text.encode(ids.join(""));
    const policyBytes = this.text.encode(policies.join(""));
    const codes = numeric.map(narrowest);
    let size = align8(16 + numeric.length);
    numeric.forEach((v, x) => size += align8(v.length * STORED[codes[x]].BYTES_PER_ELEMENT));
    size += align8(n * 4) + align8(m * 4) + align8(idBytes.length) + policyBytes.length;
    if (this.scratch.byteLength < size)
      this.scratch = new ArrayBuffer(size);
    const buf = this.scratch;
    new Uint32Array(buf, 0, 4).set([n, m, numeric.length, idBytes.length]);
    new Uint8Array(buf, 16, numeric.length).set(codes);
    let off = align8(16 + numeric.length);
    numeric.forEach((v, x) => {
      const Stored = STORED[codes[x]];
      new Stored(buf, off, v.length).set(v);
      off += align8(v.length * Stored.BYTES_PER_ELEMENT);
    });
    const idLengths = new Uint32Array(buf, off, n);
    ids.forEach((id, j) => idLengths[j] = id.length);
    off += align8(n * 4);
    const policyLengths = new Uint32Array(buf, off, m);
    policies.forEach((p, j) => policyLengths[j] = p.length);
    off += align8(m * 4);
    new Uint8Array(buf, off, idBytes.length).set(idBytes);
    off += align8(idBytes.length);
    new Uint8Array(buf, off, policyBytes.length).set(policyBytes);
    return { clientId, wake: wake2, customers: n, collections: m, data: new Uint8Array(buf, 0, size) };
  }
};
var decoder = new TextDecoder();
function decodeBlock(data, summaries) {
  const bytes = data.byteOffset % 8 === 0 ? data : data.slice();
  const buf = bytes.buffer;
  const base = bytes.byteOffset;
  const [n, m, ncols, idByteLength] = new Uint32Array(buf, base, 4);
  const summaryColumns = summaries.columns();
  if (ncols !== CUSTOMER_COLUMNS + summaryColumns.length + COLLECTION_COLUMNS2.length)
    throw new Error("image block layout differs from the engine");
  const codes = new Uint8Array(buf, base + 16, ncols);
  let off = base + align8(16 + ncols);
  let x = 0;
  const next = (length) => {
    const Stored = STORED[codes[x++]];
    const v = new Stored(buf, off, length);
    off += align8(length * Stored.BYTES_PER_ELEMENT);
    return v;
  };
  const clientId = next(n);
  const balance = next(n);
  const lastLived = next(n);
  const wake2 = next(n);
  const colCount = next(n);
  const summary = summaryColumns.map((c) => next(n * c.stride));
  const collections = {};
  for (const name of COLLECTION_COLUMNS2)
    collections[name] = next(m * strideOf(name));
  const split = (lengths, text) => {
    const out = new Array(lengths.length);
    let pos = 0;
    for (let j = 0; j < lengths.length; j++) {
      out[j] = text.slice(pos, pos + lengths[j]);
      pos += lengths[j];
    }
    return out;
  };
  const idLengths = new Uint32Array(buf, off, n);
  off += align8(n * 4);
  const policyLengths = new Uint32Array(buf, off, m);
  off += align8(m * 4);
  const customerIds = split(idLengths, decoder.decode(new Uint8Array(buf, off, idByteLength)));
  off += align8(idByteLength);
  const policyNumbers = split(policyLengths, decoder.decode(new Uint8Array(buf, off, base + bytes.length - off)));
  return { n, m, clientId, balance, lastLived, wake: wake2, colCount, summary, collections, customerIds, policyNumbers };
}
function copySummaries(block, j, columns, k, count) {
  for (let x = 0; x < columns.length; x++) {
    const c = columns[x];
    const s = c.stride;
    c.data.set(block.summary[x].subarray(j * s, (j + count) * s), k * s);
  }
}
function copyCollection(block, q2, cols, c) {
  const b = block.collections;
  cols.rowid[c] = b.rowid[q2];
  cols.period[c] = cols.periodIndex(fromDayNumber(b.periodFirst[q2]).slice(0, 7));
  cols.strategy[c] = b.strategy[q2];
  cols.due[c] = b.due[q2];
  cols.collected[c] = b.collected[q2];
  cols.status[c] = b.status[q2];
  cols.attempts[c] = b.attempts[q2];
  cols.failed[c] = b.failed[q2];
  cols.blocked[c] = b.blocked[q2];
  cols.firstDay[c] = b.firstDay[q2];
  cols.lastDay[c] = b.lastDay[q2];
  cols.failure[c] = b.failure[q2];
  for (let s = 0; s < PENDING_SLOTS; s++) {
    cols.pendDay[c * PENDING_SLOTS + s] = b.pendDay[q2 * PENDING_SLOTS + s];
    cols.pendAmount[c * PENDING_SLOTS + s] = b.pendAmount[q2 * PENDING_SLOTS + s];
  }
  cols.policyNumber[c] = block.policyNumbers[q2];
}
function imageUse(head, inputs, today, tag) {
  if (head === null || head.asOf !== today || head.tag !== tag)
    return "none";
  return head.inputs === inputs ? "all" : "accounts";
}

// dist/engine/summary.js
var ANALYSIS_WINDOW_DAYS = 120;
var NO_DAY2 = -2147483647;
var BUCKETS = 3;
var INT32_MAX = 2147483647;
var SUMS = 5;
var PATTERN_CODES = Object.fromEntries(INCOME_PATTERNS.map((p, i) => [p, i]));
function summaryWindowStart(today) {
  const m = monthOf(today);
  return monthOf(monthOf(m.firstDay - 1).firstDay - 1).firstDay;
}
function analysisDay(today) {
  const m = monthOf(today);
  return today === m.lastDay ? today : m.firstDay - 1;
}
var AccountSummaries = class {
  calendar;
  // the last two credit days, the statistics payday and the month's largest credit
  c1Day;
  c2Day;
  c1Amount;
  c2Amount;
  payday;
  monthMax;
  // the last day any of the account's own debits posted
  debitDay;
  // the outgoing statistics: BUCKETS × SUMS sums (integer cents, saturating) and day counts
  sums;
  counts;
  // the income analysis (aStarted: 1 current, 2 due again as of aDueDay)
  aStarted;
  aDueDay;
  aPattern;
  /** confidence × 100 (the analysis rounds it to two decimals). */
  aConfidence;
  aTypical;
  aThreshold;
  aDom;
  aAnchor;
  /** mean gap × 100 (rounded to two decimals), -1 when none. */
  aGap;
  aLastDay;
  aLastAmount;
  aObserved;
  /** Scratch of the prediction reads (filled per call: nothing is allocated per account). */
  forecast = {};
  /** Scratch of endOfDays. */
  dayFacts = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
  capacity;
  /**
   * Summaries of `capacity` accounts that have seen nothing yet, their income analysis due as of
   * `analysedAsOf` (the last month end on or before the clock's date: `analysisDay`), paydays read on
   * the business-day calendar `calendar`.
   */
  constructor(capacity, analysedAsOf, calendar) {
    this.calendar = calendar;
    const c = Math.max(1, capacity);
    this.capacity = c;
    this.c1Day = new Int32Array(c).fill(NO_DAY2);
    this.c2Day = new Int32Array(c).fill(NO_DAY2);
    this.c1Amount = new Float64Array(c);
    this.c2Amount = new Float64Array(c);
    this.payday = new Int32Array(c).fill(NO_DAY2);
    this.monthMax = new Float64Array(c);
    this.debitDay = new Int32Array(c).fill(NO_DAY2);
    this.sums = new Int32Array(c * BUCKETS * SUMS);
    this.counts = new Uint8Array(c * BUCKETS * SUMS);
    this.aStarted = new Uint8Array(c).fill(2);
    this.aDueDay = new Int32Array(c).fill(analysedAsOf);
    this.aPattern = new Uint8Array(c);
    this.aConfidence = new Int16Array(c);
    this.aTypical = new Float64Array(c);
    this.aThreshold = new Float64Array(c);
    this.aDom = new Int8Array(c);
    this.aAnchor = new Int32Array(c);
    this.aGap = new Int32Array(c);
    this.aLastDay = new Int32Array(c);
    this.aLastAmount = new Float64Array(c);
    this.aObserved = new Int32Array(c);
  }
  /**
   * Every per-account field, as columns (all the typed arrays of this object, by name): what an
   * account's summary is, for keeping it between advances (engine/resume.ts). A field added to
   * the class is kept with no other change (and a changed layout is not read back).
   */
  columns() {
    const out = [];
    for (const [name, value] of Object.entries(this)) {
      if (!ArrayBuffer.isView(value) || value instanceof DataView)
        continue;
      const data = value;
      if (data.length % this.capacity !== 0)
        throw new Error(`AccountSummaries.${name} is not a per-account column`);
      out.push({ name, data, stride: data.length / this.capacity });
    }
    return out;
  }
  /** Analyse account i's posted credits of the window ending on `day`. */
  startAnalysis(history, i, day) {
    const windowStart = day - ANALYSIS_WINDOW_DAYS + 1;
    const a = analyzeIncome(history.credits(i, windowStart, day), day, windowStart, this.calendar);
    this.aStarted[i] = 1;
    this.aPattern[i] = PATTERN_CODES[a.pattern];
    this.aConfidence[i] = Math.round(a.confidence * 100);
    this.aTypical[i] = a.typicalAmount;
    this.aThreshold[i] = a.threshold;
    this.aDom[i] = a.dayOfMonth ?? 0;
    this.aAnchor[i] = a.anchorDay ?? NO_DAY2;
    this.aGap[i] = a.meanGap === null ? -1 : Math.round(a.meanGap * 100);
    this.aLastDay[i] = a.lastIncomeDay ?? NO_DAY2;
    this.aLastAmount[i] = a.lastIncomeAmount;
    this.aObserved[i] = a.observed;
  }
  /**
   * Make the analysis of account i current. A month end marks it due again as of that day
   * rather than analysing at once: a month that ends an advance, or an account that leaves the
   * working set, never pays for an analysis nobody reads (the result is the same whenever it
   * is made: it reads the credits up to that day only).
   */
  ensureAnalysis(history, i) {
    if (this.aStarted[i] !== 1)
      this.startAnalysis(history, i, this.aDueDay[i]);
  }
  /** The income analysis of account i, written into `into`. */
  analysis(history, i, into) {
    this.ensureAnalysis(history, i);
    const a = into;
    a.pattern = INCOME_PATTERNS[this.aPattern[i]];
    a.confidence = this.aConfidence[i] / 100;
    a.typicalAmount = this.aTypical[i];
    a.threshold = this.aThreshold[i];
    a.dayOfMonth = this.aDom[i] === 0 ? null : this.aDom[i];
    a.anchorDay = this.aAnchor[i] === NO_DAY2 ? null : this.aAnchor[i];
    a.meanGap = this.aGap[i] < 0 ? null : this.aGap[i] / 100;
    a.lastIncomeDay = this.aLastDay[i] === NO_DAY2 ? null : this.aLastDay[i];
    a.lastIncomeAmount = this.aLastAmount[i];
    a.observed = this.aObserved[i];
    return a;
  }
  /** The predicting part of the analysis (pattern, confidence, day of month, anchor) of account i, into the scratch forecast. */
  forecastOf(history, i) {
    this.ensureAnalysis(history, i);
    const a = this.forecast;
    a.pattern = INCOME_PATTERNS[this.aPattern[i]];
    a.confidence = this.aConfidence[i] / 100;
    a.dayOfMonth = this.aDom[i] === 0 ? null : this.aDom[i];
    a.anchorDay = this.aAnchor[i] === NO_DAY2 ? null : this.aAnchor[i];
    return a;
  }
  incomePattern(history, i) {
    this.ensureAnalysis(history, i);
    return INCOME_PATTERNS[this.aPattern[i]];
  }
  incomeConfidence(history, i) {
    this.ensureAnalysis(history, i);
    return this.aConfidence[i] / 100;
  }
  isIncomeExpected(history, i, day) {
    return isIncomeDay(this.forecastOf(history, i), day, this.calendar);
  }
  lastExpectedIncomeIn(history, i, from, to) {
    return lastIncomeDayIn(this.forecastOf(history, i), from, to, this.calendar);
  }
  /** Income observed on a recent day (one of the last two credit days) of at least the threshold. */
  incomeOn(history, i, day) {
    this.ensureAnalysis(history, i);
    const threshold = this.aThreshold[i];
    if (day === this.c1Day[i])
      return this.c1Amount[i] >= threshold ? this.c1Amount[i] : 0;
    if (day === this.c2Day[i])
      return this.c2Amount[i] >= threshold ? this.c2Amount[i] : 0;
    return 0;
  }
  /** The last day any credit posted (within the window the summary reads), or null. */
  lastCreditDay(i) {
    return this.c1Day[i] === NO_DAY2 ? null : this.c1Day[i];
  }
  /** The last day any of the account's own debits posted (within the window the summary reads), or null. */
  lastDebitDay(i) {
    return this.debitDay[i] === NO_DAY2 ? null : this.debitDay[i];
  }
  /**
   * Expected other debits on the k-th day after income: the average of that day after the
   * window's paydays (k < 4), or of the window's other days (k ≥ 4: the debit orders and
   * spending of payday and the three days after it are not what leaves later in the month).
   */
  expectedDebits(i, k) {
    const base = i * BUCKETS * SUMS;
    let dSum = 0;
    let dCount = 0;
    let earlySum = 0;
    let earlyCount = 0;
    let sum = 0;
    let count = 0;
    for (let b = 0; b < BUCKETS; b++) {
      const at = base + b * SUMS;
      if (k >= 0 && k < 4) {
        dSum += this.sums[at + k];
        dCount += this.counts[at + k];
      }
      for (let j = 0; j < 4; j++) {
        earlySum += this.sums[at + j];
        earlyCount += this.counts[at + j];
      }
      sum += this.sums[at + 4];
      count += this.counts[at + 4];
    }
    if (dCount > 0)
      return Math.round(dSum / dCount);
    if (k >= 4 && count > earlyCount)
      return Math.round(Math.max(0, sum - earlySum) / (count - earlyCount));
    return count > 0 ? Math.round(sum / count) : 0;
  }
  /**
   * Learn from the day account i has just lived (posted facts only); call once per day, in
   * order. `analyse` false for the days up to the analysis day (a replay before the last month end).
   */
  endOfDay(history, i, day, facts, analyse, month) {
    const at = i * BUCKETS * SUMS + month.index % BUCKETS * SUMS;
    if (day === month.firstDay) {
      this.sums.fill(0, at, at + SUMS);
      this.counts.fill(0, at, at + SUMS);
      this.payday[i] = NO_DAY2;
      this.monthMax[i] = 0;
      const windowStart = summaryWindowStart(day);
      if (this.c2Day[i] < windowStart) {
        this.c2Day[i] = NO_DAY2;
        this.c2Amount[i] = 0;
      }
      if (this.c1Day[i] < windowStart) {
        this.c1Day[i] = NO_DAY2;
        this.c1Amount[i] = 0;
      }
      if (this.debitDay[i] < windowStart)
        this.debitDay[i] = NO_DAY2;
    }
    const credits = facts.credits;
    if (credits > 0) {
      this.c2Day[i] = this.c1Day[i];
      this.c2Amount[i] = this.c1Amount[i];
      this.c1Day[i] = day;
      this.c1Amount[i] = credits;
      if (credits > this.monthMax[i])
        this.monthMax[i] = credits;
      if (credits >= Math.max(MIN_INCOME_CENTS, this.monthMax[i] / 3))
        this.payday[i] = day;
    }
    if (facts.postedDebits > 0)
      this.debitDay[i] = day;
    const k = day - this.payday[i];
    if (k >= 0 && k < 4) {
      this.sums[at + k] = Math.min(INT32_MAX, this.sums[at + k] + facts.postedDebits);
      this.counts[at + k]++;
    }
    this.sums[at + 4] = Math.min(INT32_MAX, this.sums[at + 4] + facts.postedDebits);
    this.counts[at + 4]++;
    if (!analyse)
      return;
    this.ensureAnalysis(history, i);
    if (credits >= this.aThreshold[i]) {
      this.aLastDay[i] = day;
      this.aLastAmount[i] = credits;
      const pattern = INCOME_PATTERNS[this.aPattern[i]];
      if (pattern === "weekly" || pattern === "fortnightly")
        this.aAnchor[i] = reanchor(this.calendar, this.aAnchor[i], pattern === "weekly" ? 7 : 14, day);
    }
    if (day === month.lastDay)
      this.analysisDue(i, day);
  }
  /**
   * Learn from the days first .. first + count - 1 account i has just lived, their credits and
   * posted debits in credits[k] and debits[k] (k = day - first): as endOfDay each day in order,
   * analysing after `asOf` (a replay's run of days: the days up to the analysis day in one
   * loop over the account's fields).
   */
  endOfDays(history, i, first, count, credits, debits, asOf) {
    const last = first + count - 1;
    const quietLast = last < asOf ? last : asOf;
    if (quietLast >= first) {
      let c1Day = this.c1Day[i];
      let c1Amount = this.c1Amount[i];
      let c2Day = this.c2Day[i];
      let c2Amount = this.c2Amount[i];
      let payday = this.payday[i];
      let monthMax = this.monthMax[i];
      let debitDay = this.debitDay[i];
      const sums = this.sums;
      const counts2 = this.counts;
      let month2 = monthOf(first);
      let at = i * BUCKETS * SUMS + month2.index % BUCKETS * SUMS;
      for (let day = first; day <= quietLast; day++) {
        if (day > month2.lastDay) {
          month2 = monthOf(day);
          at = i * BUCKETS * SUMS + month2.index % BUCKETS * SUMS;
        }
        if (day === month2.firstDay) {
          sums.fill(0, at, at + SUMS);
          counts2.fill(0, at, at + SUMS);
          payday = NO_DAY2;
          monthMax = 0;
          const windowStart = summaryWindowStart(day);
          if (c2Day < windowStart) {
            c2Day = NO_DAY2;
            c2Amount = 0;
          }
          if (c1Day < windowStart) {
            c1Day = NO_DAY2;
            c1Amount = 0;
          }
          if (debitDay < windowStart)
            debitDay = NO_DAY2;
        }
        const credit = credits[day - first];
        if (credit > 0) {
          c2Day = c1Day;
          c2Amount = c1Amount;
          c1Day = day;
          c1Amount = credit;
          if (credit > monthMax)
            monthMax = credit;
          if (credit >= Math.max(MIN_INCOME_CENTS, monthMax / 3))
            payday = day;
        }
        const posted = debits[day - first];
        if (posted > 0)
          debitDay = day;
        const k = day - payday;
        if (k >= 0 && k < 4) {
          sums[at + k] = Math.min(INT32_MAX, sums[at + k] + posted);
          counts2[at + k]++;
        }
        sums[at + 4] = Math.min(INT32_MAX, sums[at + 4] + posted);
        counts2[at + 4]++;
      }
      this.c1Day[i] = c1Day;
      this.c1Amount[i] = c1Amount;
      this.c2Day[i] = c2Day;
      this.c2Amount[i] = c2Amount;
      this.payday[i] = payday;
      this.monthMax[i] = monthMax;
      this.debitDay[i] = debitDay;
    }
    if (quietLast >= last)
      return;
    const facts = this.dayFacts;
    let month = monthOf(quietLast + 1);
    for (let day = Math.max(first, quietLast + 1); day <= last; day++) {
      if (day > month.lastDay)
        month = monthOf(day);
      facts.credits = credits[day - first];
      facts.postedDebits = debits[day - first];
      this.endOfDay(history, i, day, facts, true, month);
    }
  }
  /**
   * The analysis of account i is due again as of `day` (a month end): made when next read. Its
   * fields are cleared meanwhile (nothing reads them before it is made), so that the summary
   * stays one function of the clock date however the days were lived (resume.ts keeps it).
   */
  analysisDue(i, day) {
    this.aStarted[i] = 2;
    this.aDueDay[i] = day;
    this.aPattern[i] = 0;
    this.aConfidence[i] = 0;
    this.aTypical[i] = 0;
    this.aThreshold[i] = 0;
    this.aDom[i] = 0;
    this.aAnchor[i] = 0;
    this.aGap[i] = 0;
    this.aLastDay[i] = 0;
    this.aLastAmount[i] = 0;
    this.aObserved[i] = 0;
  }
  /**
   * What the engine asks the bank to report while it opens accounts as of `today`: the days
   * from the start of the outgoings window, taken into these summaries (the days after the last
   * month end with the income they show).
   */
  postedDays(today) {
    const asOf = analysisDay(today);
    const from = summaryWindowStart(today);
    let month = monthOf(from);
    return {
      from,
      day: (history, i, day, facts) => {
        if (day > month.lastDay || day < month.firstDay)
          month = monthOf(day);
        this.endOfDay(history, i, day, facts, day > asOf, month);
      },
      days: (history, i, first, count, credits, debits) => this.endOfDays(history, i, first, count, credits, debits, asOf)
    };
  }
};
var AccountReads = class {
  accounts;
  summaries;
  constructor(accounts, summaries) {
    this.accounts = accounts;
    this.summaries = summaries;
  }
  analysis(i, into) {
    return this.summaries.analysis(this.accounts, i, into);
  }
  incomePattern(i) {
    return this.summaries.incomePattern(this.accounts, i);
  }
  incomeConfidence(i) {
    return this.summaries.incomeConfidence(this.accounts, i);
  }
  isIncomeExpected(i, day) {
    return this.summaries.isIncomeExpected(this.accounts, i, day);
  }
  lastExpectedIncomeIn(i, from, to) {
    return this.summaries.lastExpectedIncomeIn(this.accounts, i, from, to);
  }
  incomeOn(i, day) {
    return this.summaries.incomeOn(this.accounts, i, day);
  }
  expectedDebits(i, k) {
    return this.summaries.expectedDebits(i, k);
  }
  lastCreditDay(i) {
    return this.summaries.lastCreditDay(i);
  }
  lastDebitDay(i) {
    return this.summaries.lastDebitDay(i);
  }
  balance(i) {
    return this.accounts.balance(i);
  }
};
var AccountView = class {
  reads;
  calendar;
  i = 0;
  analysis = {};
  constructor(reads, calendar) {
    this.reads = reads;
    this.calendar = calendar;
  }
  at(i) {
    this.i = i;
    this.reads.analysis(i, this.analysis);
    return this;
  }
  get balance() {
    return this.reads.balance(this.i);
  }
  incomeOn(day) {
    return this.reads.incomeOn(this.i, day);
  }
  get lastCreditDay() {
    return this.reads.lastCreditDay(this.i);
  }
  get lastDebitDay() {
    return this.reads.lastDebitDay(this.i);
  }
  expectedDebits(k) {
    return this.reads.expectedDebits(this.i, k);
  }
  isPredicted(day) {
    return isIncomeDay(this.analysis, day, this.calendar);
  }
  lastPredictedIn(from, to) {
    return lastIncomeDayIn(this.analysis, from, to, this.calendar);
  }
};

// dist/engine/state.js
var EngineState = class {
  settings;
  accounts;
  summaries;
  cols;
  /** The clock's date the state stands at (the end of that day). */
  today;
  /** Accounts with open collections, in load order (client, customer). */
  active;
  activeCount;
  /** Per account: its collections are colStart .. colStart + colCount - 1. */
  colStart;
  colCount;
  /** Per account: whether a collection's planner takes debits on the day itself (the oracle). */
  hasDayDebits;
  /** Per account: ACTIVE (lived each day), the day a sleeping one wakes, or GONE (awake.ts). */
  wakeDay;
  /** The sleeping accounts by the day they wake on. */
  wakes = /* @__PURE__ */ new Map();
  /** Whether accounts may sleep (the bank tells the last day each has lived). */
  canSleep;
  /** Collections changed since the last write. */
  dirty = [];
  reads;
  view;
  views = new Views();
  /** This run's planner of each strategy, by code; those that take debits on the day. */
  planners = planners();
  dayPlanners = this.planners.filter((p) => p.debitsOnDay !== void 0);
  // Scratch reused by every day.
  /** planAll: per strategy code, whether one of the customer's collections wants planning. */
  wants = new Uint8Array(this.planners.length);
  dayDebits = [];
  dayAttempts = new DayAttempts();
  outcomes = [];
  facts = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
  /** The tag the working set is kept under at the end of the advance (image.ts; '' when not kept). */
  imageTag = "";
  /** The image's blocks this state was loaded from: those waking by this day, or all (null). */
  consumed = null;
  /**
   * The store's engine inputs version when this state was loaded (image.ts): kept with the image,
   * so that anything changing the engine's inputs since (a lapse of the engine's own included)
   * makes the next advance read the collections.
   */
  inputsVersion = -1;
  /** How many accounts were opened from the image (not replayed). */
  resumed = 0;
  /**
   * Whether the evening of `today` is already in this state: loaded from an image kept at the end
   * of that day (its plans for tomorrow made, its idle accounts asleep), so the load's own
   * planning would add nothing.
   */
  eveningDone = false;
  constructor(today, settings, accounts, summaries, cols, n) {
    this.settings = settings;
    this.accounts = accounts;
    this.summaries = summaries;
    this.cols = cols;
    this.today = today;
    this.active = new Int32Array(n);
    for (let i = 0; i < n; i++)
      this.active[i] = i;
    this.activeCount = n;
    this.colStart = new Int32Array(Math.max(1, n));
    this.colCount = new Uint16Array(Math.max(1, n));
    this.hasDayDebits = new Uint8Array(Math.max(1, n));
    this.wakeDay = new Int32Array(Math.max(1, n));
    this.canSleep = accounts.lastLived !== void 0;
    this.reads = new AccountReads(accounts, summaries);
    this.view = new AccountView(this.reads, settings.calendar);
  }
};

// dist/engine/load.js
async function loadState(unit, bank, lastDay2, helper) {
  const world = await unit.readWorld();
  const settings = engineSettings(world.settings);
  const tag = bank.resumes === true && unit.readImageHead ? imageTag(world.settings, new AccountSummaries(1, 0, settings.calendar)) : "";
  const image = tag !== "" ? await unit.readImageHead() : null;
  const use = image === null ? "none" : imageUse(image.head, image.inputs, world.today, tag);
  const state = use === "all" ? await loadFromImage(unit, bank, world.today, settings, lastDay2) : await loadFromCollections(unit, bank, world.today, settings, use === "accounts", helper);
  state.imageTag = tag;
  state.inputsVersion = image?.inputs ?? -1;
  return state;
}
var Customers = class {
  clientId = [];
  customerId = [];
  firstCol = [];
  add(clientId, customerId, firstCol) {
    this.clientId.push(clientId);
    this.customerId.push(customerId);
    this.firstCol.push(firstCol);
  }
};
function groupByCustomer(rows, customerOf, customers, cols) {
  const n = customers.customerId.length;
  const first = new Int32Array(n + 1);
  for (let r = 0; r < rows.n; r++)
    first[customerOf[r] + 1]++;
  for (let k = 0; k < n; k++)
    first[k + 1] += first[k];
  const at = first.slice(0, n);
  const order = new Int32Array(Math.max(1, rows.n));
  for (let r = 0; r < rows.n; r++) {
    const k = customerOf[r];
    let j = at[k]++;
    const number = rows.policyNumber[r];
    while (j > first[k] && rows.policyNumber[order[j - 1]] > number) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = r;
  }
  for (const p of rows.periods)
    cols.periodIndex(p.period);
  for (let c = 0; c < rows.n; c++) {
    const r = order[c];
    cols.rowid[c] = rows.rowid[r];
    cols.account[c] = customerOf[r];
    cols.policyNumber[c] = rows.policyNumber[r];
    cols.period[c] = rows.period[r];
    cols.strategy[c] = rows.strategy[r];
    cols.due[c] = rows.due[r];
    cols.collected[c] = rows.collected[r];
    cols.status[c] = rows.status[r];
    cols.firstDay[c] = rows.firstDay[r];
    cols.lastDay[c] = rows.lastDay[r];
    cols.attempts[c] = rows.attempts[r];
    cols.failed[c] = rows.failed[r];
    cols.failure[c] = rows.failure[r];
    cols.blocked[c] = rows.blocked[r];
  }
  cols.n = rows.n;
  for (let k = 0; k < n; k++)
    customers.firstCol[k] = first[k];
  const byRow = new Int32Array(rows.n);
  for (let c = 0; c < rows.n; c++)
    byRow[order[c]] = c;
  return byRow;
}
function assemble(today, settings, accounts, summaries, cols, customers, byRow) {
  const n = customers.customerId.length;
  cols.rankByPolicy((c) => customers.clientId[cols.account[c]], byRow ?? orderBy(cols.n, (c) => cols.rowid[c]));
  const state = new EngineState(today, settings, accounts, summaries, cols, n);
  for (let k = 0; k < n; k++) {
    const start = customers.firstCol[k];
    const end = k + 1 < n ? customers.firstCol[k + 1] : cols.n;
    state.colStart[k] = start;
    state.colCount[k] = end - start;
    for (let c = start; c < end; c++)
      if (state.planners[cols.strategy[c]].debitsOnDay !== void 0)
        state.hasDayDebits[k] = 1;
  }
  return state;
}
async function readOpenCollections(unit, firstOpen, cols) {
  const customers = new Customers();
  const rows = new CollectionSet(cols.capacity);
  const customerOf = new Int32Array(Math.max(1, cols.capacity));
  const index = /* @__PURE__ */ new Map();
  await unit.loadOpenCollections(firstOpen, (r) => {
    const c = rows.n++;
    const key = `${r.clientId}\0${r.customerId}`;
    let k = index.get(key);
    if (k === void 0) {
      k = customers.customerId.length;
      index.set(key, k);
      customers.add(r.clientId, r.customerId, 0);
    }
    customerOf[c] = k;
    rows.rowid[c] = r.id;
    rows.policyNumber[c] = r.policyNumber;
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
    rows.blocked[c] = r.status === "CANCELLED" || r.policyStatus !== "active" || r.lastFailure !== null && !isRetryable(r.lastFailure) ? 1 : 0;
  });
  index.clear();
  return { customers, byRow: groupByCustomer(rows, customerOf, customers, cols) };
}
async function loadFromCollections(unit, bank, today, settings, fromImage, helper) {
  const todayDay = dayNumber(today);
  const firstOpen = firstOpenPeriod(today);
  const cols = new CollectionSet(await unit.countOpenCollections(firstOpen));
  const { customers, byRow } = await readOpenCollections(unit, firstOpen, cols);
  if (cols.n > 0) {
    let byRowid = null;
    await unit.loadSubmittedDebits(fromDayNumber(todayDay - 1 - Math.max(2, settings.leadDays)), (p) => {
      if (p.day <= todayDay)
        return;
      if (byRowid === null) {
        byRowid = /* @__PURE__ */ new Map();
        for (let c2 = 0; c2 < cols.n; c2++)
          byRowid.set(cols.rowid[c2], c2);
      }
      const c = byRowid.get(p.collection);
      if (c !== void 0)
        cols.addPending(c, p.day, p.amount);
    });
  }
  const n = customers.customerId.length;
  const summaries = new AccountSummaries(n, analysisDay(todayDay), settings.calendar);
  let kept;
  let found = 0;
  if (fromImage && n > 0) {
    const index = /* @__PURE__ */ new Map();
    for (let k = 0; k < n; k++)
      index.set(`${customers.clientId[k]}\0${customers.customerId[k]}`, k);
    const balance = new Float64Array(n).fill(Number.NaN);
    const lastLived = new Int32Array(n);
    const columns = summaries.columns();
    await unit.readImageBlocks(null, (data) => {
      const b = decodeBlock(data, summaries);
      for (let j = 0; j < b.n; j++) {
        const k = index.get(`${b.clientId[j]}\0${b.customerIds[j]}`);
        if (k === void 0)
          continue;
        balance[k] = b.balance[j];
        lastLived[k] = b.lastLived[j];
        copySummaries(b, j, columns, k, 1);
        found++;
      }
    });
    kept = { balance, lastLived };
  }
  if (found === 0 && helper !== void 0 && n >= (helper.minAccounts ?? HELPED) && n >= 2 && bank.resumes === true)
    kept = helpedAccounts(helper, customers, todayDay, summaries);
  const accounts = await bank.openAccounts(customers, todayDay, summaries.postedDays(todayDay), found > 0 || kept?.pending ? kept : void 0);
  const state = assemble(today, settings, accounts, summaries, cols, customers, byRow);
  state.resumed = found;
  if (found > 0)
    for (let k = 0; k < n; k++)
      catchUp(state, k, todayDay);
  return state;
}
var HELPED = 2e5;
function helpedAccounts(helper, customers, today, summaries) {
  const n = customers.customerId.length;
  const from = n >> 1;
  const job = helper.openAccounts({ clientId: customers.clientId.slice(from), customerId: customers.customerId.slice(from) }, today);
  job.catch(() => {
  });
  const balance = new Float64Array(n).fill(Number.NaN);
  const lastLived = new Int32Array(n);
  return {
    balance,
    lastLived,
    pending: {
      from,
      async ready(opened) {
        const scratch = {};
        for (let k2 = 0; k2 < from; k2++)
          summaries.analysis(opened, k2, scratch);
        let blocks;
        try {
          blocks = await job;
        } catch {
          return false;
        }
        const columns = summaries.columns();
        let k = from;
        for (const data of blocks) {
          const b = decodeBlock(data, summaries);
          for (let j = 0; j < b.n; j++) {
            if (b.clientId[j] !== customers.clientId[k + j] || b.customerIds[j] !== customers.customerId[k + j])
              throw new Error("the helper opened other accounts");
            balance[k + j] = b.balance[j];
            lastLived[k + j] = b.lastLived[j];
          }
          copySummaries(b, 0, columns, k, b.n);
          k += b.n;
        }
        if (k !== n)
          throw new Error(`the helper opened ${k - from} accounts of ${n - from}`);
        return true;
      }
    }
  };
}
async function loadFromImage(unit, bank, today, settings, lastDay2) {
  const todayDay = dayNumber(today);
  const openFrom = dayNumber(`${firstOpenPeriod(today)}-01`);
  const counts2 = await unit.countImage(lastDay2);
  const cols = new CollectionSet(counts2.collections);
  const summaries = new AccountSummaries(counts2.customers, analysisDay(todayDay), settings.calendar);
  const customers = new Customers();
  const balance = new Float64Array(Math.max(1, counts2.customers));
  const lastLived = new Int32Array(Math.max(1, counts2.customers));
  const wake2 = new Int32Array(Math.max(1, counts2.customers));
  const columns = summaries.columns();
  await unit.readImageBlocks(lastDay2, (data) => {
    const b = decodeBlock(data, summaries);
    copySummaries(b, 0, columns, customers.customerId.length, b.n);
    let q2 = 0;
    for (let j = 0; j < b.n; j++) {
      const k = customers.customerId.length;
      customers.add(b.clientId[j], b.customerIds[j], cols.n);
      balance[k] = b.balance[j];
      lastLived[k] = b.lastLived[j];
      wake2[k] = b.wake[j];
      for (let end = q2 + b.colCount[j]; q2 < end; q2++) {
        if (b.collections.periodFirst[q2] < openFrom)
          continue;
        const c = cols.n++;
        copyCollection(b, q2, cols, c);
        cols.account[c] = k;
      }
    }
  });
  const accounts = await bank.openAccounts(customers, todayDay, summaries.postedDays(todayDay), { balance, lastLived });
  const state = assemble(today, settings, accounts, summaries, cols, customers);
  const n = customers.customerId.length;
  state.resumed = n;
  state.consumed = lastDay2;
  state.eveningDone = true;
  let keep = 0;
  for (let k = 0; k < n; k++) {
    const w = wake2[k];
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

// dist/engine/shards.js
import { hostname as hostname2 } from "node:os";
var POLL_MS = 20;
function workerName() {
  return `${hostname2()}:${process.pid}`;
}
var ShardCache = class {
  kept = /* @__PURE__ */ new Map();
  /** The working set of shard `shard` of `shards` when it is current, taken out (put back once its day commits). */
  take(shards, shard, today, inputs, tag) {
    const key = `${shards}/${shard}`;
    const k = this.kept.get(key);
    this.kept.delete(key);
    return k !== void 0 && k.state.today === today && k.inputs === inputs && k.tag === tag ? k : null;
  }
  put(shards, shard, kept) {
    this.kept.set(`${shards}/${shard}`, kept);
  }
};
async function liveShard(unit, bank, cache, hooks) {
  const world = await unit.readWorld();
  const todayDay = dayNumber(world.today);
  const day = todayDay + 1;
  if (fromDayNumber(day) !== unit.day)
    throw new Error(`shard ${unit.shard} of ${unit.day} claimed while the clock is at ${world.today}`);
  const inputs = await unit.inputsVersion();
  const tag = imageTag(world.settings, new AccountSummaries(1, 0, engineSettings(world.settings).calendar));
  let kept = cache.take(unit.shards, unit.shard, world.today, inputs, tag);
  const fresh = kept === null;
  if (kept === null) {
    const state = await loadState(unit, bank, day);
    kept = { state, runner: new DayRunner(state), inputs, tag };
  }
  const s = kept.state;
  const lead = s.settings.leadDays;
  if (fresh) {
    await insertPlans(unit, planAll(s, todayDay, todayDay + 1 + lead), todayDay);
    if (s.canSleep)
      sleepIdle(s, todayDay);
  }
  const out = liveDay(s, kept.runner, day);
  await writeDay(unit, s, day, out);
  if (unit.day === lastDay(periodOf(unit.day)))
    await closePeriodAccounts(s, periodOf(unit.day));
  await insertPlans(unit, planAll(s, day, day + 1 + lead), day);
  if (s.canSleep)
    sleepIdle(s, day);
  s.today = unit.day;
  const counts2 = [...out.summaries].map(([client, d]) => [client, d.attempts, d.succeeded, d.failed, d.collected]);
  hooks.beforeShardCommit?.(unit.day, unit.shard);
  return { result: kept, summary: JSON.stringify(counts2) };
}
async function liveOneShard(sharded, bank, cache, worker, hooks) {
  let claimed = null;
  const done = await sharded.workShard(worker, async (unit) => {
    claimed = { shards: unit.shards, shard: unit.shard };
    return liveShard(unit, bank, cache, hooks);
  });
  if (done === null)
    return false;
  const c = claimed;
  if (c !== null)
    cache.put(c.shards, c.shard, done.result);
  return true;
}
async function livesInShards(store) {
  const sharded = store.shards;
  if (sharded === void 0)
    return false;
  return await sharded.openDay() !== null || settingIn(await sharded.readSettings(), SHARDS_KEY) > 1;
}
async function advanceInShards(engine, claim, run) {
  const sharded = engine.store.shards;
  const cache = new ShardCache();
  const worker = workerName();
  const days = [];
  const total = dayNumber(claim.to) - dayNumber(claim.from);
  const member = await sharded.join(worker);
  try {
    for (let today = dayNumber(claim.from); today < dayNumber(claim.to); today++) {
      await new Promise((resolve2) => setImmediate(resolve2));
      if (run.signal?.aborted)
        break;
      const summary = await liveDayInShards(sharded, engine.bank, cache, worker, claim, today + 1, run);
      days.push(summary);
      run.onDay?.(summary, days.length, total);
    }
  } finally {
    await member.leave();
  }
  return days;
}
async function liveDayInShards(sharded, bank, cache, worker, claim, day, run) {
  const date = fromDayNumber(day);
  await sharded.beginDay(claim, date, settingIn(await sharded.readSettings(), SHARDS_KEY));
  try {
    for (; ; ) {
      if (await liveOneShard(sharded, bank, cache, worker, run.hooks ?? {}))
        continue;
      if (await sharded.unfinished(date) === 0)
        break;
      await new Promise((resolve2) => setTimeout(resolve2, POLL_MS));
    }
    const stampMs = day * 864e5 + run.now().getTime() % 864e5;
    return await sharded.endDay(claim, date, async (unit, summaries) => {
      const mine = emptySummary(date);
      for (const text of summaries) {
        for (const [client, attempts, succeeded, failed, collected] of JSON.parse(text)) {
          if (client !== run.clientId)
            continue;
          mine.attempts += attempts;
          mine.succeeded += succeeded;
          mine.failed += failed;
          mine.collected = mine.collected + collected;
        }
      }
      if (date === lastDay(periodOf(date))) {
        const world = await unit.readWorld();
        mine.closed_period = periodOf(date);
        const { lapsed } = await closePeriodRuns(unit, engineSettings(world.settings).lapseAfterUnpaidPeriods, mine.closed_period, stampMs);
        mine.lapsed_policies = (await lapsed).get(run.clientId) ?? 0;
      }
      await unit.moveClock(date);
      run.beforeCommit?.(date);
      return mine;
    });
  } catch (e) {
    await sharded.abandonDay(claim);
    throw e;
  }
}
async function workShards(engine, run) {
  const sharded = engine.store.shards;
  if (sharded === void 0)
    throw new Error("this store does not live its days in shards");
  const cache = new ShardCache();
  const worker = workerName();
  let lived = 0;
  const member = await sharded.join(worker);
  try {
    for (; ; ) {
      if (run.signal?.aborted)
        break;
      if (await liveOneShard(sharded, engine.bank, cache, worker, run.hooks ?? {})) {
        lived++;
        run.onShard?.();
        continue;
      }
      if (run.until !== void 0 && await engine.store.readClock() >= run.until)
        break;
      await new Promise((resolve2) => setTimeout(resolve2, POLL_MS));
    }
  } finally {
    await member.leave();
  }
  return lived;
}

// dist/engine/advance.js
async function advance(engine, target, run) {
  const { store } = engine;
  resolveAdvanceTarget(await store.readClock(), target);
  const claim = await store.claimAdvance((today) => resolveAdvanceTarget(today, target), run.onWait);
  try {
    if (await livesInShards(store)) {
      const days = await advanceInShards(engine, claim, {
        clientId: run.clientId,
        now: run.now,
        signal: run.signal,
        beforeCommit: (date) => run.hooks?.beforeCommit?.(date),
        hooks: { beforeShardCommit: (date, shard) => run.hooks?.beforeShardCommit?.(date, shard) },
        onDay: (day, index, total) => {
          run.hooks?.dayDone?.();
          run.onDay?.(day, index, total);
        }
      });
      return { from: claim.from, to: await store.readClock(), days };
    }
    return await advanceHolding(engine, claim, run);
  } finally {
    try {
      await store.releaseAdvance(claim);
    } finally {
      run.hooks?.finished?.();
    }
  }
}
async function advanceHolding(engine, claim, run) {
  const { store, bank } = engine;
  const { from, to } = claim;
  const hooks = run.hooks ?? {};
  const days = [];
  const total = dayNumber(to) - dayNumber(from);
  let state = null;
  let runner = null;
  const pending = [];
  const pipelined = total > 0 && await store.beginDays(total > 1 && hooks.beforeCommit === void 0);
  const collect = async (all) => {
    for (; ; ) {
      const committed = pipelined ? await store.settle(all ? "one" : "room") : pending.length;
      if (committed === 0)
        return;
      for (let k = 0; k < committed; k++) {
        const p = pending.shift();
        p.summary.lapsed_policies = (await p.lapsed).get(run.clientId) ?? 0;
        hooks.dayDone?.();
        days.push(p.summary);
        run.onDay?.(p.summary, days.length, total);
      }
      if (pipelined)
        store.reported(run.signal?.aborted === true);
    }
  };
  const yieldAndCollect = async () => {
    await new Promise((resolve2) => setImmediate(resolve2));
    await collect(false);
  };
  try {
    for (; ; ) {
      await new Promise((resolve2) => setImmediate(resolve2));
      if (run.signal?.aborted)
        break;
      let lived;
      try {
        lived = await store.runDay(async (unit) => {
          if (unit.changedSinceLastDay && pipelined) {
            await collect(true);
            pending.length = 0;
          }
          await unit.renewClaim(claim);
          const world = await unit.readWorld();
          const today = world.today;
          if (today >= to)
            return null;
          const stale = state === null || unit.changedSinceLastDay || state.today !== today;
          if (stale) {
            state = await loadState(unit, bank, dayNumber(to), engine.helper);
            runner = new DayRunner(state);
            hooks.loaded?.(state.cols.n, state.resumed);
          }
          const s = state;
          const todayDay = dayNumber(today);
          const lead = s.settings.leadDays;
          if (stale && !s.eveningDone) {
            await insertPlans(unit, planAll(s, todayDay, todayDay + 1 + lead), todayDay);
            if (s.canSleep)
              sleepIdle(s, todayDay);
          }
          const day = todayDay + 1;
          const date = fromDayNumber(day);
          const stampMs = day * 864e5 + run.now().getTime() % 864e5;
          const out = liveDay(s, runner, day);
          await writeDay(unit, s, day, out);
          if (pipelined)
            await yieldAndCollect();
          let closed = null;
          let lapsed = Promise.resolve(/* @__PURE__ */ new Map());
          if (date === lastDay(periodOf(date))) {
            closed = periodOf(date);
            lapsed = (await closePeriod(unit, s, closed, stampMs)).lapsed;
          }
          await insertPlans(unit, planAll(s, day, day + 1 + lead), day);
          if (s.canSleep)
            sleepIdle(s, day);
          if (pipelined)
            await yieldAndCollect();
          if (date === to && s.imageTag !== "" && unit.writeImage)
            await unit.writeImage(date, s.imageTag, s.inputsVersion, s.consumed, encodeImage(s, day));
          await unit.moveClock(date);
          s.today = date;
          hooks.beforeCommit?.(date);
          const mine = out.summaries.get(run.clientId) ?? emptySummary(date);
          mine.closed_period = closed;
          return { summary: mine, lapsed };
        });
      } catch (e) {
        state = null;
        throw e;
      }
      if (lived === null)
        break;
      pending.push(lived);
      await collect(false);
    }
    await collect(true);
  } finally {
    if (total > 0)
      await store.endDays();
  }
  return { from, to: await store.readClock(), days };
}

// dist/bank/types.js
var ACCOUNT_EVENTS = ["ACCOUNT_CLOSED", "PAYMENT_STOPPED", "ACCOUNT_FROZEN"];
function isAccountEvent(s) {
  return ACCOUNT_EVENTS.includes(s);
}
var DayActivity = class {
  credits = [];
  creditText = [];
  creditCount = 0;
  /** Other debits as positive cents, in file order. */
  debits = [];
  debitText = [];
  debitCount = 0;
  events = [];
  eventCount = 0;
  clear() {
    this.creditCount = 0;
    this.debitCount = 0;
    this.eventCount = 0;
  }
  addCredit(amount, text) {
    this.credits[this.creditCount] = amount;
    this.creditText[this.creditCount++] = text;
  }
  addDebit(amount, text) {
    this.debits[this.debitCount] = amount;
    this.debitText[this.debitCount++] = text;
  }
  addEvent(event) {
    this.events[this.eventCount++] = event;
  }
  get empty() {
    return this.creditCount === 0 && this.debitCount === 0 && this.eventCount === 0;
  }
};

// dist/bank/ledger.js
function applyDay(act, day, opening, blocked, premia, outcomes, facts, amounts2, observer) {
  let balance = opening;
  let credits = 0;
  for (let i = 0; i < act.creditCount; i++) {
    const amount = act.credits[i];
    balance += amount;
    credits += amount;
    if (observer)
      observer.credit(day, amount, act.creditText[i], balance);
  }
  facts.collected = 0;
  facts.premiaDebits = 0;
  if (premia !== null)
    balance = premiaDebits(premia, day, balance, blocked, outcomes, facts, amounts2, observer);
  let posted = 0;
  for (let i = 0; i < act.debitCount; i++) {
    const amount = act.debits[i];
    const ok = amount <= balance;
    if (ok) {
      balance -= amount;
      posted += amount;
    }
    if (observer)
      observer.debit(day, amount, act.debitText[i], ok, balance);
  }
  facts.credits = credits;
  facts.postedDebits = posted;
  return balance;
}
function premiaDebits(premia, day, balance, blocked, outcomes, facts, amounts2, observer) {
  let collected = 0;
  const n = premia.debitsFor(balance, day, amounts2);
  for (let i = 0; i < n; i++) {
    const amount = amounts2[i];
    let reason = blocked;
    if (reason === null) {
      if (amount <= balance) {
        balance -= amount;
        collected += amount;
      } else
        reason = "INSUFFICIENT_FUNDS";
    }
    outcomes[i] = reason;
    if (observer)
      observer.premiaDebit(day, amount, reason, balance);
  }
  facts.collected = collected;
  facts.premiaDebits = n;
  return balance;
}
var NEVER2 = 2147483647;
function eventDays(source) {
  let closed = NEVER2;
  let frozen = NEVER2;
  let stopped = NEVER2;
  for (const e of source.events()) {
    if (e.event === "ACCOUNT_CLOSED")
      closed = Math.min(closed, e.day);
    else if (e.event === "ACCOUNT_FROZEN")
      frozen = Math.min(frozen, e.day);
    else
      stopped = Math.min(stopped, e.day);
  }
  return { closed, frozen, stopped };
}
function blockedReason(day, closed, frozen, stopped) {
  if (closed <= day)
    return "ACCOUNT_CLOSED";
  if (frozen <= day)
    return "ACCOUNT_FROZEN";
  if (stopped <= day)
    return "PAYMENT_STOPPED";
  return null;
}

// dist/bank/generated.js
var KIND_WEIGHTS = [
  ["monthly_fixed_day", 0.3],
  ["monthly_last_business_day", 0.14],
  ["twice_monthly", 0.12],
  ["fortnightly", 0.1],
  ["weekly", 0.1],
  ["irregular", 0.18],
  ["none", 0.06]
];
var PAY_DOM_WEIGHTS = [
  [25, 0.6],
  [20, 0.1],
  [15, 0.08],
  [28, 0.08],
  [1, 0.07],
  [30, 0.07]
];
var EMPLOYERS = ["ACME MINING", "CITY COUNCIL", "BLUE RETAIL", "NORTH LOGISTICS", "HARBOUR FOODS", "STATE HEALTH"];
var DEBIT_ORDER_TEXT = ["DEBIT ORDER VEHICLE FINANCE", "DEBIT ORDER HOME LOAN", "DEBIT ORDER CELLPHONE", "DEBIT ORDER RETAIL CREDIT", "DEBIT ORDER SCHOOL FEES", "DEBIT ORDER GYM"];
function weighted(rng, weights) {
  let r = rng.next();
  for (let k = 0; k < weights.length; k++) {
    if ((r -= weights[k]) < 0)
      return k;
  }
  return weights.length - 1;
}
var KIND_WEIGHT = KIND_WEIGHTS.map(([, w]) => w);
var PAY_DOM_WEIGHT = PAY_DOM_WEIGHTS.map(([, w]) => w);
var round10 = (cents) => Math.max(10, Math.round(cents / 10) * 10);
function drawProfile(seed, customerId, epochDay, v, o, f2, r) {
  const rng = new Rng(hashString32(customerId, seed ^ 1540483477));
  const kind = weighted(rng, KIND_WEIGHT);
  const affordabilityRoll = rng.next();
  const affordability = affordabilityRoll < 0.55 ? 0 : affordabilityRoll < 0.85 ? 1 : 2;
  const monthlyIncome = Math.round(35e4 * Math.pow(65e5 / 35e4, rng.next()));
  const ratio = affordability === 0 ? 0.55 + 0.3 * rng.next() : affordability === 1 ? 0.9 + 0.1 * rng.next() : 1.05 + 0.25 * rng.next();
  const outgoings = monthlyIncome * ratio;
  const debitShare = affordability === 2 ? 0.85 + 0.15 * rng.next() : 0.4 + 0.25 * rng.next();
  const payDom = PAY_DOM_WEIGHTS[weighted(rng, PAY_DOM_WEIGHT)][0];
  let firstFriday = epochDay;
  while (((firstFriday + 4) % 7 + 7) % 7 !== 5)
    firstFriday++;
  const anchor = firstFriday - (kind === K_WEEKLY && rng.next() < 0.2 ? 1 : 0) + (kind === K_FORTNIGHTLY && rng.next() < 0.5 ? 7 : 0);
  const payAmount = kind === K_TWICE ? Math.round(monthlyIncome / 2) : kind === K_FORTNIGHTLY ? Math.round(monthlyIncome * 12 / 26) : kind === K_WEEKLY ? Math.round(monthlyIncome * 12 / 52) : monthlyIncome;
  f2[r + F_GIG] = 0.12 + 0.23 * rng.next();
  const count = 1 + Math.floor(rng.next() * 4);
  let left = outgoings * debitShare;
  const monthlyPay = kind <= K_TWICE;
  for (let i = 0; i < count; i++) {
    const amount = i === count - 1 ? left : left * (0.3 + 0.4 * rng.next());
    left -= amount;
    const offset = monthlyPay ? affordability === 2 || rng.next() < 0.55 ? 0 : 1 : 1 + Math.floor(rng.next() * 6);
    const at = o + I_ORDER0 + 2 * i;
    v[at + 1] = round10(amount);
    v[at] = (monthlyPay ? 1 : 0) << 8 | offset << 4 | Math.floor(rng.next() * DEBIT_ORDER_TEXT.length);
  }
  const spendProb = 0.3 + 0.3 * rng.next();
  f2[r + F_SPENDP] = spendProb;
  f2[r + F_SPENDM] = outgoings * (1 - debitShare) / (30.4 * spendProb);
  let event = 0;
  let eventDay = NO_DAY3;
  const hazard = 0.0135;
  const u = rng.next();
  const monthsAfter = Math.floor(Math.log(1 - u) / Math.log(1 - hazard));
  if (monthsAfter < 240) {
    const roll = rng.next();
    event = roll < 0.37 ? 1 : roll < 0.63 ? 2 : 3;
    const month = monthAt(monthOf(epochDay).index + 3 + monthsAfter);
    eventDay = month.firstDay + Math.floor(rng.next() * month.daysInMonth);
  }
  const key = hashString32(customerId, seed ^ 461845907);
  v[o + I_KEY] = key;
  v[o + I_KIND] = kind;
  v[o + I_PAYDOM] = payDom;
  v[o + I_ANCHOR] = anchor;
  v[o + I_PAY] = payAmount;
  v[o + I_MONTHLY] = monthlyIncome;
  v[o + I_EVENT] = event;
  v[o + I_EVENTDAY] = eventDay;
  v[o + I_EMPLOYER] = key % EMPLOYERS.length;
  v[o + I_START] = epochDay;
  v[o + I_ORDERS] = count;
  v[o + I_MFIRST] = 1;
  v[o + I_MLAST] = 0;
  return affordability;
}
var K_TWICE = 2;
var K_FORTNIGHTLY = 3;
var K_WEEKLY = 4;
var EVENT_NAMES = [null, "ACCOUNT_CLOSED", "ACCOUNT_FROZEN", "PAYMENT_STOPPED"];
var NO_DAY3 = 2147483647;
var TWO_POW_MINUS_32 = 1 / 4294967296;
var NONE_BELOW = 0.03 * 4294967296;
var I_KEY = 0;
var I_KIND = 1;
var I_PAYDOM = 2;
var I_ANCHOR = 3;
var I_PAY = 4;
var I_MONTHLY = 5;
var I_EVENT = 6;
var I_EVENTDAY = 7;
var I_EMPLOYER = 8;
var I_START = 9;
var I_ORDERS = 10;
var I_MFIRST = 11;
var I_MLAST = 12;
var I_PAYMAIN = 13;
var I_PAYPREV = 14;
var I_PAYMID = 15;
var I_PAYNEXT = 16;
var I_CYCLEDUE = 17;
var I_CYCLEPAY = 18;
var I_ORDER0 = 19;
var I_STRIDE = I_ORDER0 + 8;
var F_GIG = 0;
var F_SPENDP = 1;
var F_SPENDM = 2;
var F_STRIDE = 3;
var GeneratedBook = class {
  calendar;
  ints;
  reals;
  count = 0;
  constructor(capacity, calendar) {
    this.calendar = calendar;
    this.ints = new Int32Array(capacity * I_STRIDE);
    this.reals = new Float64Array(capacity * F_STRIDE);
  }
  get size() {
    return this.count;
  }
  /** Add the account of (seed, customer) opening on `epochDay`; returns its index. */
  add(seed, customerId, epochDay) {
    this.ints = grown(this.ints, (this.count + 1) * I_STRIDE);
    this.reals = grown(this.reals, (this.count + 1) * F_STRIDE);
    const i = this.count++;
    drawProfile(seed, customerId, epochDay, this.ints, i * I_STRIDE, this.reals, i * F_STRIDE);
    return i;
  }
  startDay(i) {
    return this.ints[i * I_STRIDE + I_START];
  }
  /** The day month m's main pay lands on (possibly in the month before), or -1. */
  mainPaydayOf(o, m) {
    switch (this.ints[o + I_KIND]) {
      case 0:
        return this.calendar.payMonth(m).payDay[this.ints[o + I_PAYDOM]];
      case 1:
      case 2:
        return this.calendar.payMonth(m).lastBusinessDay;
      default:
        return -1;
    }
  }
  /** The day a weekly or fortnightly wage due on `due` is paid: the business day on or before it. */
  cyclePay(due) {
    return this.calendar.onOrBefore(due);
  }
  /** Make `day`'s month the cached one of account offset `o`. */
  enterMonth(o, day) {
    const v = this.ints;
    if (day <= v[o + I_MLAST] && day >= v[o + I_MFIRST])
      return;
    const m = monthOf(day);
    v[o + I_MFIRST] = m.firstDay;
    v[o + I_MLAST] = m.lastDay;
    v[o + I_PAYMAIN] = this.mainPaydayOf(o, m);
    v[o + I_PAYPREV] = this.mainPaydayOf(o, monthOf(m.firstDay - 1));
    v[o + I_PAYNEXT] = this.mainPaydayOf(o, monthOf(m.lastDay + 1));
    v[o + I_PAYMID] = v[o + I_KIND] === 2 ? this.calendar.payMonth(m).payDay[15] : -1;
  }
  /** Whether `day` (this month or the last days of the one before) is a main payday. */
  isMainPayday(o, day) {
    const v = this.ints;
    if (v[o + I_PAYMAIN] < 0)
      return false;
    return day === v[o + I_PAYMAIN] || day === v[o + I_PAYPREV] || day === v[o + I_PAYNEXT];
  }
  /** The income credit of a day, or 0 (the month of `day` must be the cached one). */
  incomeOn(i, o, day) {
    const v = this.ints;
    if (day < v[o + I_START])
      return 0;
    if (day >= v[o + I_EVENTDAY] && v[o + I_EVENT] === 1)
      return 0;
    switch (v[o + I_KIND]) {
      case 0:
      case 1:
        return day === v[o + I_PAYMAIN] || day === v[o + I_PAYNEXT] ? v[o + I_PAY] : 0;
      case 2:
        return day === v[o + I_PAYMAIN] || day === v[o + I_PAYMID] ? v[o + I_PAY] : 0;
      case 3:
      case 4: {
        const period = v[o + I_KIND] === 4 ? 7 : 14;
        let due = v[o + I_CYCLEDUE];
        if (day > due || day <= due - period) {
          due = day + ((v[o + I_ANCHOR] - day) % period + period) % period;
          v[o + I_CYCLEDUE] = due;
          v[o + I_CYCLEPAY] = this.cyclePay(due);
        }
        if (v[o + I_CYCLEPAY] !== day)
          return 0;
        return Math.round(v[o + I_PAY] * (0.92 + 0.16 * unitFloat(mix32(v[o + I_KEY], due))));
      }
      case 5: {
        const h = mix32(v[o + I_KEY] ^ 1759714724, day);
        const rate = this.reals[i * F_STRIDE + F_GIG];
        if (unitFloat(h) >= rate)
          return 0;
        const factor = -Math.log(1 - 0.999 * unitFloat(fmix32(h ^ 625341585)));
        return Math.max(500, Math.round(v[o + I_MONTHLY] / (30.4 * rate) * factor / 10) * 10);
      }
      default: {
        const h = mix32(v[o + I_KEY] ^ 2050726941, day);
        return unitFloat(h) < 0.03 ? 5e3 + h % 20 * 1e3 : 0;
      }
    }
  }
  incomeText(o) {
    const employer = this.ints[o + I_EMPLOYER];
    switch (this.ints[o + I_KIND]) {
      case 5:
        return "GIG PLATFORM PAYOUT";
      case 6:
        return "TRANSFER FROM FAMILY";
      case 3:
      case 4:
        return WAGE_TEXT[employer];
      default:
        return SALARY_TEXT[employer];
    }
  }
  /**
   * Whether the debit order at ints[at] of the account at `o` is due on `day` (in the month that
   * starts on `mFirst`): on its day of the month, or `offset` days after a main payday.
   */
  orderDue(o, at, day, mFirst) {
    const meta = this.ints[at];
    const offset = meta >> 4 & 15;
    return meta >> 8 === 0 ? day - mFirst + 1 === offset : this.isMainPayday(o, day - offset);
  }
  dayActivity(i, day, out) {
    out.clear();
    const v = this.ints;
    const o = i * I_STRIDE;
    if (day < v[o + I_START])
      return;
    this.enterMonth(o, day);
    const eventDay = v[o + I_EVENTDAY];
    const event = v[o + I_EVENT];
    if (day === eventDay)
      out.addEvent(EVENT_NAMES[event]);
    if (day >= eventDay && event === 1)
      return;
    const income = this.incomeOn(i, o, day);
    if (income > 0)
      out.addCredit(income, this.incomeText(o));
    if (day >= eventDay && event === 2)
      return;
    const orders = v[o + I_ORDERS];
    for (let k = 0; k < orders; k++) {
      const at = o + I_ORDER0 + 2 * k;
      if (this.orderDue(o, at, day, v[o + I_MFIRST]))
        out.addDebit(v[at + 1], DEBIT_ORDER_TEXT[v[at] & 15]);
    }
    const h = mix32(v[o + I_KEY] ^ 1013904242, day);
    const r = i * F_STRIDE;
    if (unitFloat(h) < this.reals[r + F_SPENDP]) {
      const amount = Math.round(this.reals[r + F_SPENDM] * (0.3 + 1.4 * unitFloat(fmix32(h ^ 374761393))));
      if (amount > 0)
        out.addDebit(amount, h % 3 === 0 ? "CASH WITHDRAWAL" : "CARD PURCHASE");
    }
  }
  /**
   * Live generated account i through the days first..last from the balance `opening`, following
   * the account rules (ledger.ts `applyDay`) step for step without building a day's activity or
   * its texts: the bank's hot path (a million accounts live every simulated day, and a first
   * opening lives each three months back). premia's debits come from `premia` each day (null:
   * none; with one, first = last: outcomes and facts are the day's). `onDay`, when given, is told
   * each day's facts. Returns the balance at the end of `last`.
   */
  liveDays(i, first, last, opening, blocked, premia, outcomes, facts, amounts2, onDay) {
    const v = this.ints;
    const o = i * I_STRIDE;
    const r = i * F_STRIDE;
    const start = v[o + I_START];
    const key = v[o + I_KEY];
    const kind = v[o + I_KIND];
    const pay = v[o + I_PAY];
    const eventDay = v[o + I_EVENTDAY];
    const event = v[o + I_EVENT];
    const closedFrom = event === 1 ? eventDay : NO_DAY3;
    const frozenFrom = event === 2 ? eventDay : NO_DAY3;
    const period = kind === 4 ? 7 : 14;
    const anchor = v[o + I_ANCHOR];
    const spendProb = this.reals[r + F_SPENDP];
    const spendMean = this.reals[r + F_SPENDM];
    const orders = v[o + I_ORDERS];
    let mFirst = v[o + I_MFIRST];
    let mLast = v[o + I_MLAST];
    let cycleDue = v[o + I_CYCLEDUE];
    let cyclePay = v[o + I_CYCLEPAY];
    let balance = opening;
    for (let day = first; day <= last; day++) {
      let credits = 0;
      let activity = 0;
      if (day >= start && day < closedFrom) {
        if (day > mLast || day < mFirst) {
          this.enterMonth(o, day);
          mFirst = v[o + I_MFIRST];
          mLast = v[o + I_MLAST];
        }
        let income = 0;
        if (kind === 3 || kind === 4) {
          if (day > cycleDue || day <= cycleDue - period) {
            cycleDue = day + ((anchor - day) % period + period) % period;
            cyclePay = this.cyclePay(cycleDue);
          }
          if (cyclePay === day)
            income = Math.round(pay * (0.92 + 0.16 * unitFloat(mix32(key, cycleDue))));
        } else
          income = this.incomeOn(i, o, day);
        if (income > 0) {
          balance += income;
          credits = income;
        }
        activity = day >= frozenFrom ? 1 : 2;
      }
      facts.collected = 0;
      facts.premiaDebits = 0;
      if (premia !== null)
        balance = premiaDebits(premia, day, balance, blocked, outcomes, facts, amounts2);
      let posted = 0;
      if (activity === 2) {
        for (let k = 0; k < orders; k++) {
          const at = o + I_ORDER0 + 2 * k;
          if (!this.orderDue(o, at, day, mFirst))
            continue;
          const amount = v[at + 1];
          if (amount <= balance) {
            balance -= amount;
            posted += amount;
          }
        }
        const h = mix32(key ^ 1013904242, day);
        if (unitFloat(h) < spendProb) {
          const amount = Math.round(spendMean * (0.3 + 1.4 * unitFloat(fmix32(h ^ 374761393))));
          if (amount > 0 && amount <= balance) {
            balance -= amount;
            posted += amount;
          }
        }
      }
      facts.credits = credits;
      facts.postedDebits = posted;
      if (onDay !== null)
        onDay(day, facts);
    }
    v[o + I_CYCLEDUE] = cycleDue;
    v[o + I_CYCLEPAY] = cyclePay;
    return balance;
  }
  /**
   * Live generated account i through the days first..last from the balance `opening` with none
   * of premia's debits, as `liveDays` does, writing each day's credits and posted debits into
   * credits[k] and debits[k] (k = day - first). The replay's hot path: a month's paydays and
   * debit order days are found once per month, not tested day by day. Returns the balance at
   * the end of `last`.
   */
  quietDays(i, first, last, opening, credits, debits) {
    const v = this.ints;
    const o = i * I_STRIDE;
    const r = i * F_STRIDE;
    const start = v[o + I_START];
    const key = v[o + I_KEY];
    const kind = v[o + I_KIND];
    const pay = v[o + I_PAY];
    const monthly = v[o + I_MONTHLY];
    const eventDay = v[o + I_EVENTDAY];
    const event = v[o + I_EVENT];
    const closedFrom = event === 1 ? eventDay : NO_DAY3;
    const frozenFrom = event === 2 ? eventDay : NO_DAY3;
    const period = kind === 4 ? 7 : 14;
    const anchor = v[o + I_ANCHOR];
    const gigRate = this.reals[r + F_GIG];
    const spendProb = this.reals[r + F_SPENDP];
    const spendMean = this.reals[r + F_SPENDM];
    const orders = v[o + I_ORDERS];
    const spendKey = key ^ 1013904242;
    const gigKey = key ^ 1759714724;
    const noneKey = key ^ 2050726941;
    const gigMean = monthly / (30.4 * gigRate);
    const spendBelow = spendProb * 4294967296;
    const gigBelow = gigRate * 4294967296;
    let cycleDue = v[o + I_CYCLEDUE];
    let cyclePay = v[o + I_CYCLEPAY];
    let balance = opening;
    let day = first;
    while (day <= last) {
      this.enterMonth(o, day);
      const mFirst = v[o + I_MFIRST];
      const mLast = v[o + I_MLAST];
      const end = last < mLast ? last : mLast;
      let payBits = 0;
      if (kind <= 2) {
        const a = v[o + I_PAYMAIN];
        const b = kind === 2 ? v[o + I_PAYMID] : v[o + I_PAYNEXT];
        if (a >= mFirst && a <= mLast)
          payBits |= 1 << a - mFirst;
        if (b >= mFirst && b <= mLast)
          payBits |= 1 << b - mFirst;
      }
      let orderBits = 0;
      for (let k = 0; k < orders; k++) {
        const meta = v[o + I_ORDER0 + 2 * k];
        const offset = meta >> 4 & 15;
        if (meta >> 8 === 0) {
          const d = mFirst + offset - 1;
          if (d <= mLast)
            orderBits |= 1 << d - mFirst;
        } else if (v[o + I_PAYMAIN] >= 0) {
          for (const p of [v[o + I_PAYMAIN], v[o + I_PAYPREV], v[o + I_PAYNEXT]]) {
            const d = p + offset;
            if (d >= mFirst && d <= mLast)
              orderBits |= 1 << d - mFirst;
          }
        }
      }
      for (; day <= end; day++) {
        let credit = 0;
        let posted = 0;
        if (day >= start && day < closedFrom) {
          const bit = 1 << day - mFirst;
          if (kind <= 2) {
            if ((payBits & bit) !== 0)
              credit = pay;
          } else if (kind <= 4) {
            if (day > cycleDue || day <= cycleDue - period) {
              cycleDue = day + ((anchor - day) % period + period) % period;
              cyclePay = this.cyclePay(cycleDue);
            }
            if (cyclePay === day)
              credit = Math.round(pay * (0.92 + 0.16 * (mix32(key, cycleDue) * TWO_POW_MINUS_32)));
          } else if (kind === 5) {
            const h = mix32(gigKey, day);
            if (h < gigBelow) {
              const factor = -Math.log(1 - 0.999 * (fmix32(h ^ 625341585) * TWO_POW_MINUS_32));
              credit = Math.max(500, Math.round(gigMean * factor / 10) * 10);
            }
          } else {
            const h = mix32(noneKey, day);
            if (h < NONE_BELOW)
              credit = 5e3 + h % 20 * 1e3;
          }
          balance += credit;
          if (day < frozenFrom) {
            if ((orderBits & bit) !== 0) {
              for (let k = 0; k < orders; k++) {
                const at = o + I_ORDER0 + 2 * k;
                if (!this.orderDue(o, at, day, mFirst))
                  continue;
                const amount = v[at + 1];
                if (amount <= balance) {
                  balance -= amount;
                  posted += amount;
                }
              }
            }
            const h = mix32(spendKey, day);
            if (h < spendBelow) {
              const amount = Math.round(spendMean * (0.3 + 1.4 * (fmix32(h ^ 374761393) * TWO_POW_MINUS_32)));
              if (amount > 0 && amount <= balance) {
                balance -= amount;
                posted += amount;
              }
            }
          }
        }
        credits[day - first] = credit;
        debits[day - first] = posted;
      }
    }
    v[o + I_CYCLEDUE] = cycleDue;
    v[o + I_CYCLEPAY] = cyclePay;
    return balance;
  }
  /** The first day from..to on which a credit posts to account i, or to + 1 when none does. */
  nextCreditDay(i, from, to) {
    const o = i * I_STRIDE;
    for (let day = from; day <= to; day++) {
      this.enterMonth(o, day);
      if (this.incomeOn(i, o, day) > 0)
        return day;
    }
    return to + 1;
  }
  events(i) {
    const o = i * I_STRIDE;
    const event = this.ints[o + I_EVENT];
    return event === 0 ? [] : [{ event: EVENT_NAMES[event], day: this.ints[o + I_EVENTDAY] }];
  }
  credits(i, from, to) {
    const o = i * I_STRIDE;
    const v = this.ints;
    const out = [];
    const first = Math.max(from, v[o + I_START]);
    const last = v[o + I_EVENT] === 1 ? Math.min(to, v[o + I_EVENTDAY] - 1) : to;
    const kind = v[o + I_KIND];
    if (kind <= 2) {
      for (let m = monthOf(first); m.firstDay <= last + 7; m = monthOf(m.lastDay + 1)) {
        const main = this.mainPaydayOf(o, m);
        const mid = kind === 2 ? this.calendar.payMonth(m).payDay[15] : -1;
        const pay = v[o + I_PAY];
        if (mid >= first && mid <= last && mid < main)
          out.push({ day: mid, amount: pay });
        if (main >= first && main <= last)
          out.push({ day: main, amount: pay });
      }
      return out;
    }
    if (kind === 3 || kind === 4) {
      const period = kind === 4 ? 7 : 14;
      const anchor = v[o + I_ANCHOR];
      for (let due = first + ((anchor - first) % period + period) % period; ; due += period) {
        const day = this.cyclePay(due);
        if (day > last)
          break;
        if (day >= first)
          out.push({ day, amount: Math.round(v[o + I_PAY] * (0.92 + 0.16 * unitFloat(mix32(v[o + I_KEY], due)))) });
      }
      return out;
    }
    for (let day = first; day <= last; day++) {
      const amount = this.incomeOn(i, o, day);
      if (amount > 0)
        out.push({ day, amount });
    }
    return out;
  }
};
var SALARY_TEXT = EMPLOYERS.map((e) => `SALARY ${e}`);
var WAGE_TEXT = EMPLOYERS.map((e) => `WAGES ${e}`);

// dist/bank/accounts.js
var AccountSet = class {
  store;
  calendar;
  n = 0;
  cap;
  book;
  // identity and source: an imported source object, else an index into the book
  clientId;
  customerId = [];
  imported = [];
  genIndex;
  // the ledger
  balanceOf;
  dayOf;
  closedFrom;
  frozenFrom;
  stoppedFrom;
  // scratch of `live`, reused for every account-day
  activity = new DayActivity();
  amounts = [];
  /**
   * `store`: where `keepBalances` keeps them (none for a set opened only to be looked at);
   * `calendar`: the business days (the store's calendar).
   */
  constructor(capacity, store, calendar) {
    this.store = store;
    this.calendar = calendar;
    this.cap = Math.max(1, capacity);
    this.book = new GeneratedBook(this.cap, calendar);
    const c = this.cap;
    this.clientId = new Int32Array(c);
    this.genIndex = new Int32Array(c);
    this.balanceOf = new Float64Array(c);
    this.dayOf = new Int32Array(c);
    this.closedFrom = new Int32Array(c);
    this.frozenFrom = new Int32Array(c);
    this.stoppedFrom = new Int32Array(c);
  }
  get size() {
    return this.n;
  }
  /**
   * Add an account that has lived through `lastDay` with `balance`: a generated one (source
   * null: it is added to the book) or one with its own source (imported rows).
   */
  add(clientId, customerId, source, seed, epochDay, lastDay2, balance) {
    if (this.n === this.cap)
      throw new Error("AccountSet is full");
    const i = this.n++;
    this.clientId[i] = clientId;
    this.customerId[i] = customerId;
    this.imported[i] = source;
    let events;
    if (source === null) {
      const g = this.book.add(seed, customerId, epochDay);
      this.genIndex[i] = g;
      events = eventDays({ events: () => this.book.events(g) });
    } else {
      this.genIndex[i] = -1;
      events = eventDays(source);
    }
    this.closedFrom[i] = events.closed;
    this.frozenFrom[i] = events.frozen;
    this.stoppedFrom[i] = events.stopped;
    this.balanceOf[i] = balance;
    this.dayOf[i] = lastDay2;
    return i;
  }
  sourceKind(i) {
    return this.imported[i] ? "imported" : "generated";
  }
  /** The credits of account i posted on the days from..to inclusive, in day order. */
  credits(i, from, to) {
    const source = this.imported[i];
    return source ? source.credits(from, to) : this.book.credits(this.genIndex[i], from, to);
  }
  /** The balance after the last day lived. */
  balance(i) {
    return this.balanceOf[i];
  }
  /** The last day account i has lived. */
  day(i) {
    return this.dayOf[i];
  }
  /** The last day account i has lived (the engine's name for it: engine/ports.ts). */
  lastLived(i) {
    return this.dayOf[i];
  }
  /** Why premia's debits fail on `day` whatever the balance (closed, frozen, stopped), or null. */
  blockedOn(i, day) {
    return blockedReason(day, this.closedFrom[i], this.frozenFrom[i], this.stoppedFrom[i]);
  }
  /**
   * Live account i through its next day (the account rules: ledger.ts applyDay): its credits
   * post, then premia's debits for the day (from `premia`, in policy_number order; none on a
   * day that is not a business day) are attempted with their outcomes written to `outcomes` in
   * the same order (null: paid), then the day's other debits. Returns the day's facts in `facts`.
   */
  live(i, premia, outcomes, facts, observer) {
    const day = this.dayOf[i] + 1;
    this.dayOf[i] = day;
    const blocked = blockedReason(day, this.closedFrom[i], this.frozenFrom[i], this.stoppedFrom[i]);
    const debits = this.calendar.isBusinessDay(day) ? premia : null;
    const source = this.imported[i];
    if (!source && observer === void 0) {
      this.balanceOf[i] = this.book.liveDays(this.genIndex[i], day, day, this.balanceOf[i], blocked, debits, outcomes, facts, this.amounts, null);
      return facts;
    }
    if (source)
      source.dayActivity(day, this.activity);
    else
      this.book.dayActivity(this.genIndex[i], day, this.activity);
    this.balanceOf[i] = applyDay(this.activity, day, this.balanceOf[i], blocked, debits, outcomes, facts, this.amounts, observer);
    return facts;
  }
  /**
   * Live generated account i through its days up to `to` with none of premia's debits, in one run
   * (generated.ts liveDays), `onDay` told each day's facts (written into `facts`). False, having
   * done nothing, for an account of imported rows.
   */
  liveQuietly(i, to, facts, onDay) {
    const g = this.genIndex[i];
    if (g < 0)
      return false;
    this.balanceOf[i] = this.book.liveDays(g, this.dayOf[i] + 1, to, this.balanceOf[i], null, null, [], facts, this.amounts, onDay);
    this.dayOf[i] = to;
    return true;
  }
  /**
   * As liveQuietly, each day's credits and posted debits written into credits[k] and debits[k]
   * (k = day - the first day lived) instead of told one by one (generated.ts quietDays).
   */
  liveQuietlyInto(i, to, credits, debits) {
    const g = this.genIndex[i];
    if (g < 0)
      return false;
    this.balanceOf[i] = this.book.quietDays(g, this.dayOf[i] + 1, to, this.balanceOf[i], credits, debits);
    this.dayOf[i] = to;
    return true;
  }
  /**
   * The first day after `after`, up to `until`, on which a credit posts to account i (until + 1
   * when none does): what a bank's feed of accounts with activity tells, asked ahead.
   */
  nextCreditDay(i, after, until) {
    const source = this.imported[i];
    if (source) {
      for (const c of source.credits(after + 1, until))
        if (c.amount > 0)
          return c.day;
      return until + 1;
    }
    return this.book.nextCreditDay(this.genIndex[i], after + 1, until);
  }
  /** Keep the balances of `accounts` as of `day` (they have lived through it): a later replay starts there. */
  async keepBalances(day, accounts) {
    if (this.store === null || accounts.length === 0)
      return;
    await this.store.keepBalances(fromDayNumber(day), accounts, { clientId: this.clientId, customerId: this.customerId, balance: this.balanceOf });
  }
};

// dist/bank/imported.js
var ImportedAccount = class {
  kind = "imported";
  startDay;
  byDay = /* @__PURE__ */ new Map();
  sortedCredits = [];
  /** `rows` in file order (their order within a day is the order debits post). */
  constructor(rows) {
    let start = Number.POSITIVE_INFINITY;
    for (const row of rows) {
      let list = this.byDay.get(row.day);
      if (!list)
        this.byDay.set(row.day, list = []);
      list.push(row);
      if (row.day < start)
        start = row.day;
      if (row.amount > 0)
        this.sortedCredits.push({ day: row.day, amount: row.amount });
    }
    this.sortedCredits.sort((a, b) => a.day - b.day);
    this.startDay = Number.isFinite(start) ? start : 0;
  }
  dayActivity(day, out) {
    out.clear();
    const rows = this.byDay.get(day);
    if (!rows)
      return;
    for (const row of rows) {
      if (row.amount > 0)
        out.addCredit(row.amount, row.description);
      else if (row.amount < 0)
        out.addDebit(-row.amount, row.description);
      else
        out.addEvent(row.description);
    }
  }
  credits(from, to) {
    return this.sortedCredits.filter((c) => c.day >= from && c.day <= to);
  }
  events() {
    const out = [];
    for (const [day, rows] of this.byDay) {
      for (const row of rows)
        if (row.amount === 0)
          out.push({ event: row.description, day });
    }
    return out;
  }
};

// dist/bank/simulated.js
function epochFor(firstPeriod) {
  return dayNumber(firstDay(shiftPeriod(firstPeriod, -3)));
}
function provisionalEpoch(today) {
  return epochFor(periodOf(today));
}
var runCredits = new Float64Array(512);
var runDebits = new Float64Array(512);
function importedSource(inputs, clientId, customerId) {
  const rows = inputs.imported.get(customerKey(clientId, customerId));
  return rows && rows.length > 0 ? new ImportedAccount(rows) : null;
}
function replayInto(set, inputs, clientId, customerId, today, posted, observer) {
  const key = customerKey(clientId, customerId);
  const source = importedSource(inputs, clientId, customerId);
  const startDay = source ? source.startDay : inputs.epochDay;
  const snap = observer ? void 0 : inputs.snapshots.get(key);
  const usable = snap && posted && snap.day < posted.from ? snap : void 0;
  const lastDay2 = usable ? usable.day : Math.min(startDay, posted ? posted.from : startDay, today + 1) - 1;
  const i = set.add(clientId, customerId, source, inputs.seed, inputs.epochDay, lastDay2, usable ? usable.balance : 0);
  const replay = new Replay(inputs.attempts.get(key) ?? [], lastDay2, customerId);
  const facts = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
  const report = posted === null ? null : (day, f2) => posted.day(set, i, day, f2);
  while (set.day(i) < today) {
    const quietTo = Math.min(today, replay.nextDay() - 1);
    if (observer === void 0 && quietTo > set.day(i)) {
      const unreported = posted === null ? quietTo : Math.min(quietTo, posted.from - 1);
      const first = set.day(i) + 1;
      if (unreported >= first) {
        if (runCredits.length < unreported - first + 1)
          growRun(unreported - first + 1);
        if (set.liveQuietlyInto(i, unreported, runCredits, runDebits))
          continue;
      }
      if (posted?.days !== void 0) {
        if (runCredits.length < quietTo - first + 1)
          growRun(quietTo - first + 1);
        if (set.liveQuietlyInto(i, quietTo, runCredits, runDebits)) {
          posted.days(set, i, first, quietTo - first + 1, runCredits, runDebits);
          continue;
        }
      }
      if (set.liveQuietly(i, quietTo, facts, report))
        continue;
    }
    set.live(i, replay, replay.outcomes, facts, observer);
    replay.check();
    posted?.day(set, i, set.day(i), facts);
  }
  return i;
}
function growRun(days) {
  runCredits = new Float64Array(Math.max(days, 2 * runCredits.length));
  runDebits = new Float64Array(runCredits.length);
}
var SimulatedBank = class {
  store;
  /** Opens an account kept by the engine where it stands (engine/ports.ts). */
  resumes = true;
  constructor(store) {
    this.store = store;
  }
  /**
   * The accounts of `customers` (index k of the result is customer k), each brought up to the
   * end of `today` (a day number), the days from `posted.from` on reported as they are lived.
   */
  async openAccounts(customers, today, posted, kept) {
    const n = customers.customerId.length;
    const settings = await this.store.settings();
    const accounts = new AccountSet(n, this.store, settings.calendar);
    if (n === 0)
      return accounts;
    const keys = /* @__PURE__ */ new Set();
    const replayed = /* @__PURE__ */ new Set();
    for (let k = 0; k < n; k++) {
      const key = customerKey(customers.clientId[k], customers.customerId[k]);
      keys.add(key);
      if (!isKept(kept, k))
        replayed.add(key);
    }
    const epochDay = settings.epoch ? dayNumber(settings.epoch) : provisionalEpoch(fromDayNumber(today));
    const imported = await this.store.importedRows(keys);
    keys.clear();
    const inputs = {
      seed: settings.seed,
      calendar: settings.calendar,
      epochDay,
      imported,
      snapshots: replayed.size > 0 ? await this.store.snapshots(replayed, fromDayNumber(posted.from - 1)) : /* @__PURE__ */ new Map(),
      attempts: /* @__PURE__ */ new Map()
    };
    if (replayed.size > 0) {
      let oldest = fromDayNumber(today);
      for (const key of replayed) {
        const snap = inputs.snapshots.get(key);
        if (!snap) {
          oldest = "0000-00-00";
          break;
        }
        const d = fromDayNumber(snap.day);
        if (d < oldest)
          oldest = d;
      }
      inputs.attempts = await this.store.pastAttempts(replayed, oldest);
    }
    replayed.clear();
    for (let k = 0; k < n; k++) {
      const clientId = customers.clientId[k];
      const customerId = customers.customerId[k];
      if (k === kept?.pending?.from)
        await kept.pending.ready(accounts);
      if (isKept(kept, k)) {
        accounts.add(clientId, customerId, importedSource(inputs, clientId, customerId), inputs.seed, epochDay, kept.lastLived[k], kept.balance[k]);
      } else
        replayInto(accounts, inputs, clientId, customerId, today, posted);
    }
    return accounts;
  }
};
function isKept(kept, k) {
  return kept !== void 0 && !Number.isNaN(kept.balance[k]);
}
var Replay = class {
  past;
  customerId;
  outcomes = [];
  next = 0;
  first = 0;
  count = 0;
  constructor(past, startDay, customerId) {
    this.past = past;
    this.customerId = customerId;
    while (this.next < past.length && past[this.next].day <= startDay)
      this.next++;
  }
  /** The day of premia's next past debit (Infinity when none is left). */
  nextDay() {
    return this.next < this.past.length ? this.past[this.next].day : Number.POSITIVE_INFINITY;
  }
  debitsFor(_balance, day, amounts2) {
    this.first = this.next;
    let n = 0;
    while (this.next < this.past.length && this.past[this.next].day === day)
      amounts2[n++] = this.past[this.next++].amount;
    this.count = n;
    return n;
  }
  check() {
    for (let i = 0; i < this.count; i++) {
      const a = this.past[this.first + i];
      if (this.outcomes[i] !== a.failure) {
        throw new PremiaError("INTERNAL", `Replaying the account of customer ${this.customerId} gave a different outcome for premia's debit of ${formatCents(a.amount)} on ${fromDayNumber(a.day)} (policy ${a.policyNumber}): recorded ${a.failure ?? "SUCCESS"}, replayed ${this.outcomes[i] ?? "SUCCESS"}. The bank history changed after it was used.`);
      }
    }
    this.count = 0;
  }
};

// dist/store/advance-lease.js
import { randomBytes as randomBytes4 } from "node:crypto";
import { hostname as hostname3 } from "node:os";
var LEASE_KEY = "advance_lease";
var LEASE_STALE_MS = 10 * 6e4;
var POLL_FIRST_MS = 25;
var POLL_MAX_MS = 500;
var PROCESS_TOKEN = randomBytes4(12).toString("hex");
var HOST = hostname3();
var running = /* @__PURE__ */ new Set();
function readLease(statements) {
  const row = statements.get("select value from meta where key = ?").get(LEASE_KEY);
  if (!row)
    return null;
  try {
    return JSON.parse(row.value);
  } catch {
    return null;
  }
}
function writeLease(statements, lease) {
  statements.get("insert into meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value").run(LEASE_KEY, JSON.stringify(lease));
}
function leaseAbandoned(lease, now, isAlive = processIsAlive) {
  if (now - lease.renewed_at > LEASE_STALE_MS)
    return true;
  if (lease.host !== HOST)
    return false;
  if (lease.process === PROCESS_TOKEN)
    return !running.has(lease.token);
  if (lease.pid === process.pid)
    return true;
  return !isAlive(lease.pid);
}
async function acquireLease(store, resolve2, onWait) {
  const token = randomBytes4(12).toString("hex");
  let told = false;
  for (let wait = POLL_FIRST_MS; ; wait = Math.min(POLL_MAX_MS, wait * 2)) {
    const outcome = await store.withConnection(async (raw, statements) => {
      raw.exec("begin immediate");
      try {
        const now = Date.now();
        const held = readLease(statements);
        if (held !== null && !leaseAbandoned(held, now)) {
          raw.exec("commit");
          return held;
        }
        const today = statements.get("select value from meta where key = 'clock_date'").get().value;
        const lease = { token, process: PROCESS_TOKEN, host: HOST, pid: process.pid, from: today, to: resolve2(today), started_at: now, renewed_at: now };
        writeLease(statements, lease);
        raw.exec("commit");
        running.add(token);
        return lease;
      } catch (e) {
        if (raw.inTransaction)
          raw.exec("rollback");
        throw e;
      }
    });
    if (outcome.token === token)
      return outcome;
    if (!told) {
      told = true;
      onWait?.({ from: outcome.from, to: outcome.to, host: outcome.host, pid: outcome.pid, since: new Date(outcome.started_at).toISOString() });
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}
function renewLease(statements, lease) {
  const current = readLease(statements);
  if (current?.token !== lease.token) {
    throw new PremiaError("CONFLICT", `This clock advance (from ${lease.from} to ${lease.to}) stopped: another advance took the store over, judging this one abandoned (it had not renewed its lease for ${LEASE_STALE_MS / 6e4} minutes). The store is at the end of the last whole day; check 'premia clock'.`);
  }
  lease.renewed_at = Date.now();
  writeLease(statements, lease);
}
async function releaseLease(store, lease) {
  running.delete(lease.token);
  await store.withConnection(async (raw, statements) => {
    raw.exec("begin immediate");
    try {
      if (readLease(statements)?.token === lease.token)
        statements.get("delete from meta where key = ?").run(LEASE_KEY);
      raw.exec("commit");
    } catch (e) {
      if (raw.inTransaction)
        raw.exec("rollback");
      throw e;
    }
  });
}

// dist/store/bulk.js
var WRITE_ROWS = 64;
function valuesList(rows, width) {
  const one = `(${new Array(width).fill("?").join(",")})`;
  return new Array(rows).fill(one).join(",");
}
function runInGroups(statements, sql2, width, count, fill, ...lead) {
  const full = new Array(lead.length + WRITE_ROWS * width);
  for (let k = 0; k < lead.length; k++)
    full[k] = lead[k];
  let r = 0;
  if (count >= WRITE_ROWS) {
    const stmt = statements.get(sql2(WRITE_ROWS));
    for (; r + WRITE_ROWS <= count; r += WRITE_ROWS) {
      for (let k = 0; k < WRITE_ROWS; k++)
        fill(full, lead.length + k * width, r + k);
      stmt.run(full);
    }
  }
  if (r < count) {
    const stmt = statements.get(sql2(1));
    const params = new Array(lead.length + width);
    for (let k = 0; k < lead.length; k++)
      params[k] = lead[k];
    for (; r < count; r++) {
      fill(params, lead.length, r);
      stmt.run(params);
    }
  }
}

// dist/store/plan-batches.js
import { deflateRawSync, inflateRawSync } from "node:zlib";
var INTS = PLAN_INTS;
var REALS = PLAN_REALS;
var VERSION = 1;
var PLAN_BATCH = 65536;
function packPlanColumns(rows, from, to) {
  const n = to - from;
  const packed = new Uint8Array(4 * (2 + n * INTS) + 8 * n * REALS);
  const head = new Int32Array(packed.buffer, 0, 2);
  head[0] = VERSION;
  head[1] = n;
  new Int32Array(packed.buffer, 8, n * INTS).set(rows.ints.subarray(from * INTS, to * INTS));
  new Float64Array(packed.buffer, 4 * (2 + n * INTS), n * REALS).set(rows.reals.subarray(from * REALS, to * REALS));
  return packed;
}
function* planBatches(rows) {
  for (let at = 0; at < rows.n; at += PLAN_BATCH)
    yield packPlanColumns(rows, at, Math.min(rows.n, at + PLAN_BATCH));
}
function compressPlans(packed) {
  return deflateRawSync(packed, { level: 1 });
}
function decodePlans(data) {
  const raw = inflateRawSync(data);
  const head = new Int32Array(raw.buffer, raw.byteOffset, 2);
  if (head[0] !== VERSION)
    throw new Error(`unknown plan batch version ${head[0]}`);
  const n = head[1];
  const ints = new Int32Array(2 + n * INTS);
  new Uint8Array(ints.buffer).set(raw.subarray(0, ints.byteLength));
  const reals = new Float64Array(n * REALS);
  new Uint8Array(reals.buffer).set(raw.subarray(ints.byteLength, ints.byteLength + reals.byteLength));
  const out = [];
  for (let k = 0; k < n; k++)
    out.push(unpackSubmitted(ints, 2 + k * INTS, reals, k * REALS));
  return out;
}

// dist/store/engine-days.js
function transferables(ops) {
  const out = /* @__PURE__ */ new Set();
  const add = (...arrays) => {
    for (const a of arrays)
      out.add(a.buffer);
  };
  for (const o of ops) {
    if (o.op === "attempts")
      add(o.rows.clientId, o.rows.collectionId, o.rows.period, o.rows.amount, o.rows.reason);
    else if (o.op === "updates")
      add(o.rows.id, o.rows.collected, o.rows.status, o.rows.first, o.rows.last, o.rows.attempts, o.rows.failed, o.rows.failure);
    else if (o.op === "plans")
      add(o.packed);
    else if (o.op === "snapshots")
      add(o.rows.clientId, o.rows.balance);
    else if (o.op === "image")
      add(...o.blocks.map((b) => b.data));
  }
  return [...out];
}
var REASON_CASE = (column) => `case ${column} ${FAILURE_REASONS.map((r, k) => `when ${k + 1} then '${r}'`).join(" ")} end`;
var STATUS_CASE = (column) => `case ${column} ${STATUS_BY_CODE.map((s, k) => `when ${k} then '${s}'`).join(" ")} end`;
var periodCase = (column, periods) => `case ${column} ${periods.map((p, k) => `when ${k} then '${p}'`).join(" ")} end`;
var ATTEMPT_WIDTH = 4;
var insertAttempts = (periods) => (k) => `insert or rollback into attempts (client_id, collection_id, period_month, date, amount, outcome, failure_reason) select v.column1, v.column2, ${periodCase("v.column3", periods)}, t.d, v.column4, case when v.column5 = 0 then 'SUCCESS' else 'FAILED' end, ${REASON_CASE("v.column5")} from (select ? as d) t, (values ${valuesList(k, ATTEMPT_WIDTH + 1)}) v where true`;
var UPDATE_WIDTH = 8;
var updateCollections = (k) => `update or rollback collections set amount_collected = v.column2, status = ${STATUS_CASE("v.column3")}, first_attempt_date = v.column4, last_attempt_date = v.column5, attempts = v.column6, failed_attempts = v.column7, last_failure_reason = ${REASON_CASE("v.column8")} from (values ${valuesList(k, UPDATE_WIDTH)}) as v where collections.id = v.column1`;
var SNAPSHOT_WIDTH = 4;
var keepSnapshots = (k) => `insert or replace into bank_snapshots (client_id, customer_id, as_of, balance) values ${valuesList(k, SNAPSHOT_WIDTH)}`;
var dates = /* @__PURE__ */ new Map();
function dateText(day) {
  if (day === NO_DAY)
    return null;
  let d = dates.get(day);
  if (d === void 0)
    dates.set(day, d = fromDayNumber(day));
  return d;
}
function writeAttempts(statements, date, rows) {
  if (rows.n === 0)
    return;
  runInGroups(statements, insertAttempts(rows.periods), ATTEMPT_WIDTH + 1, rows.n, (p, at, r) => {
    p[at] = rows.clientId[r];
    p[at + 1] = rows.collectionId[r];
    p[at + 2] = rows.period[r];
    p[at + 3] = rows.amount[r];
    p[at + 4] = rows.reason[r];
  }, date);
}
function writeUpdates(statements, rows) {
  if (rows.n === 0)
    return;
  runInGroups(statements, updateCollections, UPDATE_WIDTH, rows.n, (p, at, r) => {
    p[at] = rows.id[r];
    p[at + 1] = rows.collected[r];
    p[at + 2] = rows.status[r];
    p[at + 3] = dateText(rows.first[r]);
    p[at + 4] = dateText(rows.last[r]);
    p[at + 5] = rows.attempts[r];
    p[at + 6] = rows.failed[r];
    p[at + 7] = rows.failure[r];
  });
}
function writeSnapshots(statements, rows) {
  runInGroups(statements, keepSnapshots, SNAPSHOT_WIDTH, rows.customerId.length, (p, at, r) => {
    p[at] = rows.clientId[r];
    p[at + 1] = rows.customerId[r];
    p[at + 2] = rows.asOf;
    p[at + 3] = rows.balance[r];
  });
}
function completeExecutions(statements, period, stampMs) {
  statements.get("update executions set status = 'completed', completed_at = ? where period_month = ? and status = 'processing'").run(stampMs, period);
}
function lapseCandidates(statements, periods) {
  const candidates = statements.get(`select c.policy_id as policyId, c.client_id as clientId from collections c join policies p on p.id = c.policy_id
       where c.period_month = ? and c.status = 'UNPAID' and p.status = 'active' order by c.client_id, c.policy_number`).all(periods[0]);
  const statuses = statements.get(`select period_month, status from collections where policy_id = ? and period_month in (${periods.map(() => "?").join(",")})`);
  return candidates.map((c) => {
    const found = periods.map(() => null);
    for (const r of statuses.all(c.policyId, ...periods))
      found[periods.indexOf(r.period_month)] = r.status;
    return { policyId: c.policyId, clientId: c.clientId, statuses: found };
  });
}
function lapsePolicies(statements, policies, day, stampMs, reason) {
  if (policies.length === 0)
    return;
  const lapse = statements.get("update policies set status = 'lapsed', updated_at = ? where id = ? and status = 'active'");
  const history = statements.get(`insert into policy_status_changes (client_id, policy_id, old_status, new_status, changed_on, changed_at, reason)
     values (?, ?, 'active', 'lapsed', ?, ?, ?)`);
  for (const p of policies) {
    lapse.run(stampMs, p.policyId);
    history.run(p.clientId, p.policyId, day, stampMs, reason);
  }
}
function writeImage(statements, asOf, tag, inputs, consumed, blocks) {
  if (consumed === null)
    statements.get("delete from engine_image").run();
  else
    statements.get("delete from engine_image where wake <= ?").run(consumed);
  const insert = statements.get("insert into engine_image (wake, client_id, customers, collections, data) values (?, ?, ?, ?, ?)");
  for (const b of blocks)
    insert.run(b.wake, b.clientId, b.customers, b.collections, Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength));
  statements.get("insert into engine_image_head (id, as_of, tag, inputs) values (1, ?, ?, ?) on conflict (id) do update set as_of = excluded.as_of, tag = excluded.tag, inputs = excluded.inputs").run(asOf, tag, inputs);
}
function moveClock(statements, date) {
  statements.get("update meta set value = ? where key = 'clock_date'").run(date);
}
var ACKED = 0;
var STOP = 1;

// dist/store/repos/engine-pipeline.js
import { existsSync as existsSync2 } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
var IN_FLIGHT = 2;
var LIGHT_DAYS = 8;
var LIGHT_ROWS = 4e5;
function writerModule() {
  if (process.env.PREMIA_DAY_WRITER === "0")
    return null;
  const here = import.meta.url;
  const url = here.endsWith(".ts") ? new URL("../../../dist/store/day-writer.js", here) : new URL("../day-writer.js", here);
  return existsSync2(fileURLToPath(url)) ? url : null;
}
var divertedSnapshots = /* @__PURE__ */ new WeakMap();
function snapshotsDiverted(store) {
  return divertedSnapshots.get(store);
}
var DayPipeline = class _DayPipeline {
  worker;
  seq = 0;
  inFlight = [];
  /** Days committed since the last `settle`. */
  committed = 0;
  /** A day was dropped because something else wrote: the next unit loads again. */
  changed = false;
  error = null;
  /** Waiters for the in-flight list to shrink, or for a baseline or close answer. */
  waiters = [];
  answer = null;
  /** The cells shared with the writer (day-writer.ts ACKED, STOP). */
  shared;
  /** The last day (seq) committed and reported by `settle`. */
  lastCommitted = 0;
  constructor(worker, shared) {
    this.worker = worker;
    this.shared = new Int32Array(shared);
    worker.on("message", (m) => this.receive(m));
    worker.on("error", (e) => this.fail(e));
  }
  /** Start a writer on `store`'s file (null when there is none to start). */
  static async start(store, cacheSize, busyTimeoutMs) {
    const module = writerModule();
    if (module === null || store.path === ":memory:" || store.path === "")
      return null;
    const shared = new SharedArrayBuffer(8);
    const data = { path: store.path, busyTimeoutMs, cacheSize, shared };
    const worker = new Worker(module, { workerData: data });
    const pipeline = new _DayPipeline(worker, shared);
    await pipeline.request(null, "ready");
    return pipeline;
  }
  receive(m) {
    if (m.type === "committed" || m.type === "dropped" || m.type === "failed") {
      const h = this.inFlight.shift();
      if (m.type === "committed") {
        this.committed++;
        this.lastCommitted = m.seq;
        h.lapsed(new Map(m.lapsed));
      } else if (m.type === "dropped") {
        if (m.changed)
          this.changed = true;
        h.failed(new Error("the day was not written"));
      } else {
        const e = m.error.code ? new PremiaError(m.error.code, m.error.message) : new Error(m.error.message);
        this.error ??= e;
        h.failed(e);
      }
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters)
        w();
      return;
    }
    this.answer?.(m);
  }
  fail(e) {
    this.error ??= e;
    for (const h of this.inFlight.splice(0))
      h.failed(e);
    for (const w of this.waiters.splice(0))
      w();
    this.answer?.({ type: "closed" });
  }
  /** Send `m` (none: just wait) and wait for the answer of type `type`. */
  request(m, type) {
    return new Promise((resolve2) => {
      this.answer = (a) => {
        if (a.type !== type && a.type !== "closed")
          return;
        this.answer = null;
        resolve2();
      };
      if (m)
        this.worker.postMessage(m);
    });
  }
  /** Until at most `n` days are in flight. */
  async drain(n) {
    while (this.inFlight.length > n && this.error === null)
      await new Promise((r) => this.waiters.push(r));
  }
  /** Rethrow what stopped the writer, if anything did. */
  check() {
    if (this.error !== null)
      throw this.error;
  }
  /** Every day handed over written or dropped, and a new baseline taken (before the engine reads the store). */
  async baseline() {
    await this.drain(0);
    this.check();
    Atomics.store(this.shared, ACKED, this.seq);
    await this.request({ type: "baseline" }, "baseline");
    this.changed = false;
  }
  /** Hand a day's operations over. */
  hand(ops, handed) {
    const seq = ++this.seq;
    let rows = 0;
    for (const o of ops)
      if (o.op === "attempts" || o.op === "updates")
        rows += o.rows.n;
    this.inFlight.push({ seq, rows, ...handed });
    this.worker.postMessage({ type: "day", seq, ops }, transferables(ops));
  }
  /**
   * How many days committed since the last call, once: at once ('now'), when few enough are in
   * flight ('room'), or when one more has committed or none is left in flight ('one'). The
   * caller reports them, then calls `reported`.
   */
  async settle(mode) {
    if (mode === "room" && this.committed === 0) {
      while (this.error === null && this.inFlight.length > IN_FLIGHT && (this.inFlight.length > LIGHT_DAYS || this.inFlight.reduce((n2, h) => n2 + h.rows, 0) > LIGHT_ROWS)) {
        await new Promise((r) => this.waiters.push(r));
      }
    }
    if (mode === "one" && this.committed === 0)
      await this.drain(this.inFlight.length === 0 ? 0 : this.inFlight.length - 1);
    this.check();
    const n = this.committed;
    this.committed = 0;
    return n;
  }
  /** The days settled so far are reported: the next may commit (or, with `stop`, none after them). */
  reported(stop) {
    if (stop)
      Atomics.store(this.shared, STOP, 1);
    else
      Atomics.store(this.shared, ACKED, this.lastCommitted);
    Atomics.notify(this.shared, ACKED);
  }
  async close() {
    Atomics.store(this.shared, STOP, 1);
    Atomics.notify(this.shared, ACKED);
    await this.drain(0);
    await this.request({ type: "close" }, "closed");
    await this.worker.terminate();
  }
};
var HandedDay = class {
  reads;
  world;
  ops = [];
  /** The day's lapsed policies, once it commits (when it closes a period). */
  lapsedPromise = null;
  settleLapsed = null;
  failLapsed = null;
  constructor(reads, world) {
    this.reads = reads;
    this.world = world;
  }
  get changedSinceLastDay() {
    return this.reads !== null;
  }
  /** The day's callbacks for the pipeline. */
  handed() {
    return {
      lapsed: (m) => this.settleLapsed?.(m),
      failed: (e) => this.failLapsed?.(e)
    };
  }
  readUnit() {
    if (this.reads === null)
      throw new Error("a handed-over day reads nothing but the clock");
    return this.reads;
  }
  async renewClaim(claim) {
    this.ops.push({ op: "lease", lease: claim });
  }
  async readWorld() {
    return this.reads ? this.reads.readWorld() : this.world;
  }
  countOpenCollections(firstOpen) {
    return this.readUnit().countOpenCollections(firstOpen);
  }
  loadOpenCollections(firstOpen, sink) {
    return this.readUnit().loadOpenCollections(firstOpen, sink);
  }
  loadSubmittedDebits(fromPlanDay, sink) {
    return this.readUnit().loadSubmittedDebits(fromPlanDay, sink);
  }
  readImageHead() {
    return this.readUnit().readImageHead();
  }
  countImage(maxWake) {
    return this.readUnit().countImage(maxWake);
  }
  readImageBlocks(maxWake, sink) {
    return this.readUnit().readImageBlocks(maxWake, sink);
  }
  async insertAttemptColumns(date, rows) {
    this.ops.push({ op: "attempts", date, rows });
  }
  async updateCollectionColumns(rows) {
    this.ops.push({ op: "updates", rows });
  }
  async insertPlanColumns(planDay, clientId, rows) {
    for (const packed of planBatches(rows))
      this.ops.push({ op: "plans", clientId, planDay, packed });
  }
  closePeriod(period, lapseAfter, day, stampMs) {
    this.ops.push({ op: "close", period, lapseAfter, day, stampMs });
    this.lapsedPromise ??= new Promise((resolve2, reject) => {
      this.settleLapsed = resolve2;
      this.failLapsed = reject;
    });
    this.lapsedPromise.catch(() => {
    });
    return this.lapsedPromise;
  }
  async completeExecutions() {
    throw new Error("a handed-over day closes a period with closePeriod");
  }
  async lapseCandidates() {
    throw new Error("a handed-over day closes a period with closePeriod");
  }
  async lapsePolicies() {
    throw new Error("a handed-over day closes a period with closePeriod");
  }
  async moveClock(date) {
    this.ops.push({ op: "clock", date });
  }
  async writeImage(asOf, tag, inputs, consumed, blocks) {
    const kept = [];
    for (const b of blocks)
      kept.push({ wake: b.wake, clientId: b.clientId, customers: b.customers, collections: b.collections, data: b.data.slice() });
    this.ops.push({ op: "image", asOf, tag, inputs, consumed, blocks: kept });
  }
  /** Record the bank's snapshots (diverted from the store while this day is lived). */
  snapshots(rows) {
    this.ops.push({ op: "snapshots", rows });
  }
  /** Divert `store`'s bank snapshots into this day while `fn` runs. */
  async diverting(store, fn) {
    divertedSnapshots.set(store, (rows) => this.snapshots(rows));
    try {
      return await fn();
    } finally {
      divertedSnapshots.delete(store);
    }
  }
};

// dist/store/repos/bank.js
function readImportedRows(statements, keys) {
  const out = /* @__PURE__ */ new Map();
  const stmt = statements.get("select client_id, customer_id, date, amount, description from bank_transactions order by client_id, customer_id, id");
  for (const r of stmt.iterate()) {
    const key = customerKey(r.client_id, r.customer_id);
    if (keys && !keys.has(key))
      continue;
    let list = out.get(key);
    if (!list)
      out.set(key, list = []);
    list.push({ day: dayNumber(r.date), amount: r.amount, description: r.description });
  }
  return out;
}
function readSnapshots(statements, keys, notAfter) {
  const out = /* @__PURE__ */ new Map();
  const stmt = statements.get("select client_id, customer_id, as_of, balance from bank_snapshots where as_of <= ? order by as_of");
  for (const r of stmt.iterate(notAfter)) {
    const key = customerKey(r.client_id, r.customer_id);
    if (keys && !keys.has(key))
      continue;
    out.set(key, { day: dayNumber(r.as_of), balance: r.balance });
  }
  return out;
}
function readAttempts(statements, keys, after) {
  const out = /* @__PURE__ */ new Map();
  const stmt = statements.get(`select c.client_id, c.customer_id, c.policy_number, a.date, a.amount, a.failure_reason
     from attempts a join collections c on c.id = a.collection_id
     where a.date > ? order by a.date, c.client_id, c.policy_number`);
  for (const r of stmt.iterate(after)) {
    const key = customerKey(r.client_id, r.customer_id);
    if (keys && !keys.has(key))
      continue;
    let list = out.get(key);
    if (!list)
      out.set(key, list = []);
    list.push({ day: dayNumber(r.date), amount: r.amount, failure: r.failure_reason, policyNumber: r.policy_number });
  }
  return out;
}
function bankStore(store) {
  if (store.kind === "postgres")
    return pgBankStore(store);
  const statements = store.statements;
  return {
    async settings() {
      const meta = new Map(statements.get("select key, value from meta where key in ('seed', 'bank_epoch', 'calendar', 'calendar.holidays')").all().map((r) => [r.key, r.value]));
      return {
        seed: Number(meta.get("seed")),
        epoch: meta.get("bank_epoch") ?? null,
        calendar: storedCalendar(meta.get(CALENDAR_KEY), meta.get(IMPORTED_HOLIDAYS_KEY))
      };
    },
    async importedRows(keys) {
      return readImportedRows(statements, keys);
    },
    async snapshots(keys, notAfter) {
      return readSnapshots(statements, keys, notAfter);
    },
    async pastAttempts(keys, after) {
      return readAttempts(statements, keys, after);
    },
    async keepBalances(asOf, accounts, columns) {
      const n = accounts.length;
      const rows = { asOf, clientId: new Int32Array(n), customerId: new Array(n), balance: new Float64Array(n) };
      accounts.forEach((i, r) => {
        rows.clientId[r] = columns.clientId[i];
        rows.customerId[r] = columns.customerId[i];
        rows.balance[r] = columns.balance[i];
      });
      const divert = snapshotsDiverted(store);
      if (divert === void 0)
        writeSnapshots(statements, rows);
      else
        divert(rows);
    }
  };
}
async function readCustomerBankInputs(store, clientId, customerId) {
  if (store.kind === "postgres")
    return readPgCustomerBankInputs(store, clientId, customerId);
  return store.withConnection(async (_raw, statements) => {
    const known = statements.get("select 1 from bank_transactions where client_id = ? and customer_id = ? limit 1").get(clientId, customerId) !== void 0 || statements.get("select 1 from policies where client_id = ? and customer_id = ? limit 1").get(clientId, customerId) !== void 0;
    const metaValue = (key) => statements.get("select value from meta where key = ?").get(key)?.value;
    const calendar = storedCalendar(metaValue(CALENDAR_KEY), metaValue(IMPORTED_HOLIDAYS_KEY));
    if (!known)
      return { known, epoch: null, calendar, imported: /* @__PURE__ */ new Map(), attempts: /* @__PURE__ */ new Map() };
    const keys = /* @__PURE__ */ new Set([customerKey(clientId, customerId)]);
    return {
      known,
      epoch: metaValue("bank_epoch") ?? null,
      calendar,
      imported: readImportedRows(statements, keys),
      attempts: readAttempts(statements, keys, "0000-00-00")
    };
  });
}
async function withBankImport(store, clientId, fn) {
  if (store.kind === "postgres")
    return (await import("./bank-pg-C5IKUF4D.js")).withPgBankImport(store, clientId, fn);
  return store.withConnection(async (raw, statements) => {
    raw.exec("begin immediate");
    try {
      const meta = new Map(statements.get("select key, value from meta").all().map((r) => [r.key, r.value]));
      const locked = meta.get("clock_locked") === "1";
      const customers = (sql2) => new Set(statements.get(sql2).all(clientId).map((r) => r.customer_id));
      const insert = statements.get("insert into bank_transactions (client_id, customer_id, date, amount, description) values (?, ?, ?, ?, ?)");
      const sameRowStored = statements.get("select 1 from bank_transactions where client_id = ? and customer_id = ? and date = ? and amount = ? and description = ? and id < ? limit 1");
      const firstNewId = statements.get("select coalesce(max(id), 0) + 1 as n from bank_transactions").get().n;
      const unit = {
        today: meta.get("clock_date"),
        locked,
        imported: customers("select distinct customer_id from bank_transactions where client_id = ?"),
        collecting: locked ? customers("select distinct customer_id from collections where client_id = ?") : /* @__PURE__ */ new Set(),
        storedBefore: (customerId, date, amount, description) => sameRowStored.get(clientId, customerId, date, amount, description, firstNewId) !== void 0,
        insert: (customerId, date, amount, description) => {
          insert.run(clientId, customerId, date, amount, description);
        }
      };
      const out = await fn(unit);
      raw.exec("delete from engine_image; delete from engine_image_head");
      raw.exec("commit");
      return out;
    } catch (e) {
      if (raw.inTransaction)
        raw.exec("rollback");
      throw e;
    }
  });
}

// dist/store/repos/engine-pg.js
import { randomBytes as randomBytes5 } from "node:crypto";
import { hostname as hostname4 } from "node:os";

// dist/store/repos/lapse-candidates.js
function unpaidActiveCollections(db, period) {
  return db.selectFrom("collections as c").innerJoin("policies as p", "p.id", "c.policy_id").select(["c.policy_id as policyId", "c.client_id as clientId"]).where("c.period_month", "=", period).where("c.status", "=", "UNPAID").where("p.status", "=", "active").orderBy("c.client_id").orderBy("c.policy_number").execute();
}

// dist/store/repos/engine-pg.js
var LEASE_KEY2 = "advance_lease";
var WRITE_ROWS2 = 5e3;
var READ_ROWS = 4096;
var POLL_FIRST_MS2 = 25;
var POLL_MAX_MS2 = 500;
function pgEngineStore(store) {
  let lastXid = null;
  return {
    async readClock() {
      return await getMeta(store.db, "clock_date");
    },
    async claimAdvance(resolve2, onWait) {
      const session = await store.openSession();
      const token = randomBytes5(12).toString("hex");
      try {
        let told = false;
        for (let wait = POLL_FIRST_MS2; ; wait = Math.min(POLL_MAX_MS2, wait * 2)) {
          const got = await session.client.query(`select pg_try_advisory_lock(${PG_LOCK_SPACE}, hashtext('advance')) as ok`);
          if (got.rows[0].ok)
            break;
          if (!told && onWait) {
            told = true;
            onWait(await holder(store));
          }
          await new Promise((r) => setTimeout(r, wait));
        }
        const range = await store.transaction(async (trx) => {
          const today = await getMeta(trx, "clock_date");
          const to = resolve2(today);
          const now = Date.now();
          await setMeta(trx, LEASE_KEY2, JSON.stringify({ token, host: hostname4(), pid: process.pid, from: today, to, started_at: now, renewed_at: now }));
          return { from: today, to };
        });
        const claim = { ...range, token, session };
        return claim;
      } catch (e) {
        await session.close();
        throw e;
      }
    },
    async releaseAdvance(claim) {
      const { session, token } = claim;
      try {
        await store.transaction(async (trx) => {
          const lease = await getMeta(trx, LEASE_KEY2);
          if (lease !== void 0 && JSON.parse(lease).token === token) {
            await trx.deleteFrom("meta").where("key", "=", LEASE_KEY2).execute();
          }
        });
      } finally {
        await session.close();
      }
    },
    shards: pgShardedDays(store),
    async beginDays() {
      return false;
    },
    async endDays() {
    },
    async runDay(fn) {
      return store.writeUnit(async (unit) => {
        await unit.client.query("set local synchronous_commit = off");
        const next = (await unit.client.query("select pg_snapshot_xmax(pg_current_snapshot())::text as next")).rows[0].next;
        const changed = lastXid === null || BigInt(next) !== BigInt(lastXid) + 1n;
        lastXid = null;
        const out = await inDayUnit(store, unit, () => fn(new PgAdvanceDay(unit, changed)));
        lastXid = (await unit.client.query("select pg_current_xact_id()::text as xid")).rows[0].xid;
        return out;
      });
    }
  };
}
function pgShardedDays(store) {
  const writerLock = `${PG_LOCK_SPACE}, ${WRITER_LOCK}`;
  const release = async (claim) => {
    const { session } = claim;
    await session.client.query(`select pg_advisory_unlock_shared(${writerLock})`).catch(() => void 0);
  };
  return {
    async openDay() {
      const r = await store.db.selectFrom("engine_shards").select(["day", "shards"]).where("state", "<>", "closed").orderBy("day").limit(1).executeTakeFirst();
      return r ? { day: r.day, shards: Number(r.shards) } : null;
    },
    async readSettings() {
      return getAllMeta(store.db);
    },
    async beginDay(claim, day, shards) {
      const { session } = claim;
      await session.client.query(`select pg_advisory_lock_shared(${writerLock})`);
      try {
        return await store.sessionWriteUnit(session.client, async (unit) => {
          const open2 = await unit.db.selectFrom("engine_shards").select(["day", "shards"]).where("state", "<>", "closed").execute();
          if (open2.length > 0) {
            if (open2.some((r) => r.day !== day)) {
              throw new PremiaError("CONFLICT", `A day in shards is open for ${open2[0].day}, not ${day}: the store's clock and its engine days disagree.`);
            }
            return Number(open2[0].shards);
          }
          await unit.client.query(`insert into engine_shards (day, shard, shards, state) select $1, k, $2, 'pending' from generate_series(0, $2::integer - 1) as k`, [day, shards]);
          return shards;
        });
      } catch (e) {
        await release(claim);
        throw e;
      }
    },
    async join(worker) {
      const session = await store.openSession();
      try {
        await session.client.query(`select pg_advisory_lock(${PG_LOCK_SPACE}, hashtext($1))`, [WORKER_KEY + worker]);
      } catch (e) {
        await session.close();
        throw e;
      }
      return { leave: () => session.close() };
    },
    async workShard(worker, fn) {
      return store.sharedWriteUnit(async (unit) => {
        await unit.client.query("set local synchronous_commit = off");
        const order = await claimOrder(unit.client, worker);
        if (order === null)
          return null;
        const got = await unit.client.query(`select day, shard, shards from engine_shards where day = $1 and state = 'pending' and shard = any($2::integer[])
           order by array_position($2::integer[], shard) for update skip locked limit 1`, [order.day, order.shards]);
        const row = got.rows[0];
        if (row === void 0)
          return null;
        const out = await inDayUnit(store, unit, () => fn(new PgShardDay(unit, row.day, Number(row.shard), Number(row.shards))));
        await unit.client.query("update engine_shards set state = 'done', worker = $1, summary = $2 where day = $3 and shard = $4", [
          worker,
          out.summary,
          row.day,
          row.shard
        ]);
        return { result: out.result };
      });
    },
    async unfinished(day) {
      const r = await store.db.selectFrom("engine_shards").select((eb) => eb.fn.countAll().as("n")).where("day", "=", day).where("state", "=", "pending").executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async endDay(claim, day, fn) {
      const { session } = claim;
      try {
        return await store.sessionWriteUnit(session.client, async (unit) => {
          await unit.client.query("set local synchronous_commit = off");
          const rows = await unit.db.selectFrom("engine_shards").select(["state", "summary"]).where("day", "=", day).orderBy("shard").execute();
          if (rows.length === 0 || rows.some((r) => r.state !== "done")) {
            throw new PremiaError("CONFLICT", `The day ${day} cannot close: ${rows.filter((r) => r.state !== "done").length} of its ${rows.length} shards are not done.`);
          }
          const out = await inDayUnit(store, unit, () => fn(new PgDay(unit, true), rows.map((r) => r.summary ?? "[]")));
          await unit.db.updateTable("engine_shards").set({ state: "closed" }).where("day", "=", day).execute();
          return out;
        });
      } finally {
        await release(claim);
      }
    },
    async abandonDay(claim) {
      await release(claim);
    }
  };
}
var WORKER_KEY = "shard-worker:";
async function claimOrder(client, worker) {
  const open2 = (await client.query("select day, shards from engine_shards where state <> 'closed' order by day limit 1")).rows[0];
  if (open2 === void 0)
    return null;
  const rows = (await client.query(`select s.shard, s.state, s.worker, p.worker as before,
              p.worker is not null and exists (
                select 1 from pg_locks l where l.locktype = 'advisory' and l.granted and l.objsubid = 2 and l.classid = $3::bigint
                  and l.objid::bigint = (hashtext($4 || p.worker)::bigint + 4294967296) % 4294967296) as joined
       from engine_shards s
       left join engine_shards p on p.shard = s.shard and p.shards = s.shards
         and p.day = (select max(day) from engine_shards where day < $1)
       where s.day = $1 and s.shards = $2`, [open2.day, open2.shards, PG_LOCK_SPACE, WORKER_KEY])).rows;
  const before = /* @__PURE__ */ new Map();
  for (const r of rows)
    if (r.before !== null)
      before.set(r.before, (before.get(r.before) ?? 0) + 1);
  const mineBefore = before.get(worker) ?? 0;
  const mineToday = rows.filter((r) => r.worker === worker).length;
  const pending = rows.filter((r) => r.state === "pending");
  const own = pending.filter((r) => r.before === worker);
  const orphans = pending.filter((r) => r.before !== worker && !r.joined);
  const others = mineToday > mineBefore ? [] : pending.filter((r) => r.joined && r.before !== worker && before.get(r.before) >= mineBefore + 2).sort((x, y) => before.get(y.before) - before.get(x.before));
  const order = [...own, ...orphans, ...others].map((r) => Number(r.shard));
  return order.length === 0 && pending.length === 0 ? null : { day: open2.day, shards: order };
}
async function holder(store) {
  const raw = await getMeta(store.db, LEASE_KEY2);
  try {
    const lease = JSON.parse(raw ?? "{}");
    return {
      from: lease.from ?? "?",
      to: lease.to ?? "?",
      host: lease.host ?? "?",
      pid: lease.pid ?? 0,
      since: new Date(lease.started_at ?? Date.now()).toISOString()
    };
  } catch {
    return { from: "?", to: "?", host: "?", pid: 0, since: (/* @__PURE__ */ new Date()).toISOString() };
  }
}
var OPEN_COLLECTIONS = `
  select c.id, c.client_id, c.customer_id, c.policy_number, c.period_month, c.amount_due, c.amount_collected, c.status,
         c.first_attempt_date, c.last_attempt_date, c.attempts, c.failed_attempts, c.last_failure_reason, e.strategy, p.status
  from collections c join executions e on e.id = c.execution_id join policies p on p.id = c.policy_id
  where c.client_id in (select id from clients) and c.period_month >= ?
  order by c.client_id, c.customer_id, c.policy_number`;
var PgDay = class {
  unit;
  changedSinceLastDay;
  constructor(unit, changedSinceLastDay) {
    this.unit = unit;
    this.changedSinceLastDay = changedSinceLastDay;
  }
  get client() {
    return this.unit.client;
  }
  /** The open collections' condition beyond the period (a shard's customers: PgShardDay). */
  shardWhere() {
    return { sql: "", params: [] };
  }
  async renewClaim(claim) {
    const { session, from, to } = claim;
    try {
      await session.client.query("select 1");
    } catch {
      throw new PremiaError("CONFLICT", `This clock advance (from ${from} to ${to}) stopped: its connection to the database, which held the right to advance, was lost. The store is at the end of the last whole day; check 'premia clock'.`);
    }
  }
  async readWorld() {
    const meta = await getAllMeta(this.unit.db);
    return { today: meta.get("clock_date"), settings: meta };
  }
  async countOpenCollections(firstOpen) {
    const shard = this.shardWhere();
    const r = await this.client.query(pgPlaceholders(`select count(*) as n from collections c where c.client_id in (select id from clients) and c.period_month >= ?${shard.sql}`), [firstOpen, ...shard.params]);
    return Number(r.rows[0].n);
  }
  async loadOpenCollections(firstOpen, sink) {
    const row = {};
    const shard = this.shardWhere();
    const query = OPEN_COLLECTIONS.replace("and c.period_month >= ?", `and c.period_month >= ?${shard.sql}`);
    for await (const rows of this.unit.rows(query, [firstOpen, ...shard.params], { raw: true, batch: READ_ROWS })) {
      for (const r of rows) {
        row.id = r[0];
        row.clientId = r[1];
        row.customerId = r[2];
        row.policyNumber = r[3];
        row.period = r[4];
        row.due = r[5];
        row.collected = r[6];
        row.status = r[7];
        row.firstAttempt = r[8];
        row.lastAttempt = r[9];
        row.attempts = r[10];
        row.failed = r[11];
        row.lastFailure = r[12];
        row.strategy = r[13];
        row.policyStatus = r[14];
        sink(row);
      }
    }
  }
  async loadSubmittedDebits(fromPlanDay, sink) {
    for await (const rows of this.unit.rows("select data from plan_batches where client_id in (select id from clients) and plan_day >= ? order by client_id, plan_day, id", [fromPlanDay], { raw: true, batch: 64 })) {
      for (const [data] of rows)
        for (const p of decodePlans(data))
          sink(p);
    }
  }
  async insertAttemptColumns(date, rows) {
    for (let at = 0; at < rows.n; at += WRITE_ROWS2) {
      const end = Math.min(rows.n, at + WRITE_ROWS2);
      const reasons = Array.from(rows.reason.subarray(at, end), (code) => FAILURE_BY_CODE[code]);
      await this.client.query(`insert into attempts (client_id, collection_id, period_month, date, amount, outcome, failure_reason)
         select c, k, p, $4, a, o, f from unnest($1::bigint[], $2::bigint[], $3::text[], $5::bigint[], $6::text[], $7::text[]) as v(c, k, p, a, o, f)`, [
        Array.from(rows.clientId.subarray(at, end)),
        Array.from(rows.collectionId.subarray(at, end)),
        Array.from(rows.period.subarray(at, end), (p) => rows.periods[p]),
        date,
        Array.from(rows.amount.subarray(at, end)),
        reasons.map((r) => r === null ? "SUCCESS" : "FAILED"),
        reasons
      ]);
    }
  }
  async updateCollectionColumns(rows) {
    const date = (day) => day === NO_DAY ? null : fromDayNumber(day);
    for (let at = 0; at < rows.n; at += WRITE_ROWS2) {
      const end = Math.min(rows.n, at + WRITE_ROWS2);
      await this.client.query(`update collections set amount_collected = v.collected, status = v.status, first_attempt_date = v.first, last_attempt_date = v.last,
           attempts = v.attempts, failed_attempts = v.failed, last_failure_reason = v.reason
         from unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[])
           as v(id, collected, status, first, last, attempts, failed, reason)
         where collections.id = v.id`, [
        Array.from(rows.id.subarray(at, end)),
        Array.from(rows.collected.subarray(at, end)),
        Array.from(rows.status.subarray(at, end), (code) => STATUS_BY_CODE[code]),
        Array.from(rows.first.subarray(at, end), date),
        Array.from(rows.last.subarray(at, end), date),
        Array.from(rows.attempts.subarray(at, end)),
        Array.from(rows.failed.subarray(at, end)),
        Array.from(rows.failure.subarray(at, end), (code) => FAILURE_BY_CODE[code])
      ]);
    }
  }
  async insertPlanColumns(planDay, clientId, rows) {
    for (const packed of planBatches(rows)) {
      await this.unit.db.insertInto("plan_batches").values({ client_id: clientId, plan_day: planDay, data: compressPlans(packed) }).execute();
    }
  }
  async completeExecutions(period, stampMs) {
    await this.unit.db.updateTable("executions").set({ status: "completed", completed_at: stampMs }).where("period_month", "=", period).where("status", "=", "processing").execute();
  }
  async lapseCandidates(periods) {
    const candidates = await unpaidActiveCollections(this.unit.db, periods[0]);
    const found = /* @__PURE__ */ new Map();
    for (const c of candidates)
      found.set(c.policyId, periods.map(() => null));
    for (let at = 0; at < candidates.length; at += WRITE_ROWS2) {
      const ids = candidates.slice(at, at + WRITE_ROWS2).map((c) => c.policyId);
      const rows = await this.client.query("select policy_id, period_month, status from collections where policy_id = any($1::bigint[]) and period_month = any($2::text[])", [ids, [...periods]]);
      for (const r of rows.rows)
        found.get(Number(r.policy_id))[periods.indexOf(r.period_month)] = r.status;
    }
    return candidates.map((c) => ({ policyId: c.policyId, clientId: c.clientId, statuses: found.get(c.policyId) }));
  }
  async lapsePolicies(policies, day, stampMs, reason) {
    for (let at = 0; at < policies.length; at += WRITE_ROWS2) {
      const part = policies.slice(at, at + WRITE_ROWS2);
      await this.client.query("update policies set status = 'lapsed', updated_at = $1 where id = any($2::bigint[]) and status = 'active'", [
        stampMs,
        part.map((p) => p.policyId)
      ]);
      await this.client.query(`insert into policy_status_changes (client_id, policy_id, old_status, new_status, changed_on, changed_at, reason)
         select c, p, 'active', 'lapsed', $3, $4, $5 from unnest($1::bigint[], $2::bigint[]) as v(c, p)`, [part.map((p) => p.clientId), part.map((p) => p.policyId), day, stampMs, reason]);
    }
  }
  async moveClock(date) {
    await this.unit.db.updateTable("meta").set({ value: date }).where("key", "=", "clock_date").execute();
  }
  /** The store's engine inputs version (image.ts). */
  async inputsVersion() {
    const r = await this.client.query("select version from engine_inputs where id = 1");
    return Number(r.rows[0].version);
  }
};
var PgAdvanceDay = class extends PgDay {
  async readImageHead() {
    const head = await this.client.query("select as_of, tag, inputs from engine_image_head where id = 1");
    const row = head.rows[0];
    return { head: row ? { asOf: row.as_of, tag: row.tag, inputs: Number(row.inputs) } : null, inputs: await this.inputsVersion() };
  }
  async countImage(maxWake) {
    const r = await this.client.query("select coalesce(sum(customers), 0) as customers, coalesce(sum(collections), 0) as collections from engine_image where wake <= $1", [maxWake ?? Number.MAX_SAFE_INTEGER]);
    return { customers: Number(r.rows[0].customers), collections: Number(r.rows[0].collections) };
  }
  async readImageBlocks(maxWake, sink) {
    for await (const rows of this.unit.rows("select data from engine_image where wake <= ? order by block", [maxWake ?? Number.MAX_SAFE_INTEGER], { raw: true, batch: 8 })) {
      for (const [data] of rows)
        sink(data);
    }
  }
  async writeImage(asOf, tag, inputs, consumed, blocks) {
    if (consumed === null)
      await this.client.query("delete from engine_image");
    else
      await this.client.query("delete from engine_image where wake <= $1", [consumed]);
    for (const b of blocks) {
      await this.client.query("insert into engine_image (wake, client_id, customers, collections, data) values ($1, $2, $3, $4, $5)", [
        b.wake,
        b.clientId,
        b.customers,
        b.collections,
        Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength)
      ]);
    }
    await this.client.query("insert into engine_image_head (id, as_of, tag, inputs) values (1, $1, $2, $3) on conflict (id) do update set as_of = excluded.as_of, tag = excluded.tag, inputs = excluded.inputs", [asOf, tag, inputs]);
  }
};
var SHARD_OF = `mod(mod(hashtextextended(c.client_id::text || '/' || c.customer_id, 0), ?::bigint) + ?::bigint, ?::bigint)`;
var PgShardDay = class extends PgDay {
  day;
  shard;
  shards;
  constructor(unit, day, shard, shards) {
    super(unit, true);
    this.day = day;
    this.shard = shard;
    this.shards = shards;
  }
  shardWhere() {
    return { sql: ` and ${SHARD_OF} = ?`, params: [this.shards, this.shards, this.shards, this.shard] };
  }
};

// dist/store/repos/engine.js
var ADVANCE_CACHE_SIZE = -160 * 1024;
var WRITER_CACHE_SIZE = -64 * 1024;
var READ_CACHE_SIZE = -16 * 1024;
function engineStore(store) {
  if (store.kind === "postgres")
    return pgEngineStore(store);
  let seen = null;
  let cacheSize = null;
  let pipeline = null;
  let handedWorld = null;
  return {
    async readClock() {
      return await getMeta(store.db, "clock_date");
    },
    claimAdvance: (resolve2, onWait) => acquireLease(store, resolve2, onWait),
    releaseAdvance: (claim) => releaseLease(store, claim),
    async beginDays(handOver2) {
      cacheSize = store.raw.pragma("cache_size", { simple: true });
      store.raw.pragma("synchronous = NORMAL");
      pipeline = handOver2 ? await DayPipeline.start(store, WRITER_CACHE_SIZE, DEFAULT_BUSY_TIMEOUT_MS) : null;
      store.raw.pragma(`cache_size = ${pipeline ? READ_CACHE_SIZE : ADVANCE_CACHE_SIZE}`);
      handedWorld = null;
      return pipeline !== null;
    },
    async endDays() {
      try {
        await pipeline?.close();
      } finally {
        pipeline = null;
        store.raw.pragma("synchronous = FULL");
        if (cacheSize !== null)
          store.raw.pragma(`cache_size = ${cacheSize}`);
      }
    },
    async settle(mode) {
      return pipeline ? pipeline.settle(mode) : 0;
    },
    reported(stop) {
      pipeline?.reported(stop);
    },
    async runDay(fn) {
      if (pipeline !== null)
        return handOver(pipeline, fn);
      return store.transaction(async (trx) => {
        const version = dataVersion(store.raw);
        const changed = seen === null || version !== seen.version || store.generation !== seen.generation;
        seen = null;
        const out = await fn(new SqliteDay(trx, store.statements, changed));
        seen = { version, generation: store.generation + 1 };
        return out;
      });
    }
  };
  async function handOver(p, fn) {
    const sqlite = store;
    p.check();
    let day;
    let out;
    if (handedWorld === null || p.changed) {
      await p.baseline();
      out = await sqlite.transaction(async (trx) => {
        const reads = new SqliteDay(trx, sqlite.statements, true);
        handedWorld = await reads.readWorld();
        day = new HandedDay(reads, handedWorld);
        return day.diverting(sqlite, () => fn(day));
      });
    } else {
      day = new HandedDay(null, handedWorld);
      out = await day.diverting(sqlite, () => fn(day));
    }
    const clock = day.ops.findLast((o) => o.op === "clock");
    if (clock === void 0)
      return out;
    handedWorld = { today: clock.date, settings: handedWorld.settings };
    p.hand(day.ops, day.handed());
    return out;
  }
}
function dataVersion(raw) {
  return raw.pragma("data_version", { simple: true });
}
var OPEN_CHUNK_ROWS = 65536;
var OPEN_CHUNK = `select group_concat(line, char(10)), max(id) from (
  select c.id, c.id || ',' || c.client_id || ',' || c.customer_id || ',' || c.policy_number || ',' || c.period_month || ',' ||
    c.amount_due || ',' || c.execution_id || ',' || (case when p.status = 'active' then '' else p.status end) ||
    (case when c.attempts = 0 and c.failed_attempts = 0 and c.amount_collected = 0 and c.status = 'UNPAID'
            and c.first_attempt_date is null and c.last_attempt_date is null and c.last_failure_reason is null then ''
          else ',' || c.amount_collected || ',' || c.status || ',' || ifnull(c.first_attempt_date, '') || ',' ||
            ifnull(c.last_attempt_date, '') || ',' || c.attempts || ',' || c.failed_attempts || ',' || ifnull(c.last_failure_reason, '') end) as line
  from collections c join policies p on p.id = c.policy_id
  where +c.period_month >= ? and c.id > ? and +c.client_id in (select id from clients)
  order by c.id limit ${OPEN_CHUNK_ROWS})`;
function parseOpenLines(text, strategies, row, sink) {
  let at = 0;
  const field = (end) => {
    let comma = text.indexOf(",", at);
    if (comma < 0 || comma > end)
      comma = end;
    const f2 = text.slice(at, comma);
    at = comma + 1;
    return f2;
  };
  const integer = () => {
    let v = 0;
    let c = text.charCodeAt(at);
    const negative = c === 45;
    if (negative)
      c = text.charCodeAt(++at);
    while (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      c = text.charCodeAt(++at);
    }
    at++;
    return negative ? -v : v;
  };
  let period = "";
  while (at < text.length) {
    let end = text.indexOf("\n", at);
    if (end < 0)
      end = text.length;
    row.id = integer();
    row.clientId = integer();
    row.customerId = field(end);
    row.policyNumber = field(end);
    if (!text.startsWith(period, at) || text.charCodeAt(at + period.length) !== 44)
      period = text.slice(at, text.indexOf(",", at));
    at += period.length + 1;
    row.period = period;
    row.due = integer();
    row.strategy = strategies.get(integer());
    const policyStatus = field(end);
    row.policyStatus = policyStatus === "" ? "active" : policyStatus;
    if (at > end) {
      row.collected = 0;
      row.status = "UNPAID";
      row.firstAttempt = null;
      row.lastAttempt = null;
      row.attempts = 0;
      row.failed = 0;
      row.lastFailure = null;
    } else {
      row.collected = integer();
      row.status = field(end);
      const first = field(end);
      row.firstAttempt = first === "" ? null : first;
      const last = field(end);
      row.lastAttempt = last === "" ? null : last;
      row.attempts = integer();
      row.failed = integer();
      const reason = field(end);
      row.lastFailure = reason === "" ? null : reason;
    }
    if (at !== end + 1)
      throw new Error(`unexpected collection line: ${text.slice(text.lastIndexOf("\n", end - 1) + 1, end)}`);
    sink(row);
  }
}
function submittedDebitsQuery(db, fromPlanDay) {
  return db.selectFrom("plan_batches").select("data").where("client_id", "in", (eb) => eb.selectFrom("clients").select("id")).where("plan_day", ">=", fromPlanDay);
}
var SqliteDay = class {
  trx;
  statements;
  changedSinceLastDay;
  constructor(trx, statements, changedSinceLastDay) {
    this.trx = trx;
    this.statements = statements;
    this.changedSinceLastDay = changedSinceLastDay;
  }
  async renewClaim(claim) {
    renewLease(this.statements, claim);
  }
  async readWorld() {
    const meta = await getAllMeta(this.trx);
    return { today: meta.get("clock_date"), settings: meta };
  }
  async countOpenCollections(firstOpen) {
    const row = await this.trx.selectFrom("collections").select((eb) => eb.fn.countAll().as("n")).where("client_id", "in", (eb) => eb.selectFrom("clients").select("id")).where("period_month", ">=", firstOpen).executeTakeFirstOrThrow();
    return row.n;
  }
  async loadOpenCollections(firstOpen, sink) {
    const strategies = new Map(this.statements.get("select id, strategy from executions").all().map((e) => [e.id, e.strategy]));
    const from = this.statements.get("select min(id) as id from collections where client_id in (select id from clients) and period_month >= ?").get(firstOpen);
    if (from.id === null)
      return;
    const chunk = this.statements.get(OPEN_CHUNK).raw(true);
    const row = {};
    for (let after = from.id - 1; ; ) {
      const [text, last] = chunk.get(firstOpen, after);
      if (text === null || last === null)
        return;
      after = last;
      parseOpenLines(text, strategies, row, sink);
    }
  }
  async loadSubmittedDebits(fromPlanDay, sink) {
    const q2 = submittedDebitsQuery(this.trx, fromPlanDay).compile();
    for (const row of this.statements.get(q2.sql).iterate(...q2.parameters)) {
      for (const p of decodePlans(row.data))
        sink(p);
    }
  }
  async insertAttemptColumns(date, rows) {
    writeAttempts(this.statements, date, rows);
  }
  async updateCollectionColumns(rows) {
    writeUpdates(this.statements, rows);
  }
  async insertPlanColumns(planDay, clientId, rows) {
    for (const packed of planBatches(rows)) {
      this.statements.get("insert into plan_batches (client_id, plan_day, data) values (?, ?, ?)").run(clientId, planDay, compressPlans(packed));
    }
  }
  async completeExecutions(period, stampMs) {
    completeExecutions(this.statements, period, stampMs);
  }
  async lapseCandidates(periods) {
    return lapseCandidates(this.statements, periods);
  }
  async lapsePolicies(policies, day, stampMs, reason) {
    lapsePolicies(this.statements, policies, day, stampMs, reason);
  }
  async moveClock(date) {
    moveClock(this.statements, date);
  }
  async readImageHead() {
    const head = this.statements.get("select as_of, tag, inputs from engine_image_head where id = 1").get();
    return { head: head ? { asOf: head.as_of, tag: head.tag, inputs: head.inputs } : null, inputs: inputsVersion(this.statements) };
  }
  async countImage(maxWake) {
    const row = this.statements.get("select coalesce(sum(customers), 0) as customers, coalesce(sum(collections), 0) as collections from engine_image where wake <= ?").get(maxWake ?? Number.MAX_SAFE_INTEGER);
    return row;
  }
  async readImageBlocks(maxWake, sink) {
    const rows = this.statements.get("select data from engine_image where wake <= ? order by block").raw(true).iterate(maxWake ?? Number.MAX_SAFE_INTEGER);
    for (const [data] of rows)
      sink(data);
  }
  async writeImage(asOf, tag, inputs, consumed, blocks) {
    writeImage(this.statements, asOf, tag, inputs, consumed, blocks);
  }
};
function inputsVersion(statements) {
  return statements.get("select version from engine_inputs where id = 1").get().version;
}
async function clientSubmittedDebits(db, clientId, fromPlanDay) {
  const batches = await db.selectFrom("plan_batches").select("data").where("client_id", "=", clientId).where("plan_day", ">=", fromPlanDay).execute();
  return batches.flatMap((b) => decodePlans(b.data));
}

// dist/backend/local/account-helper.js
import { existsSync as existsSync3 } from "node:fs";
import { fileURLToPath as fileURLToPath2 } from "node:url";
import { Worker as Worker2 } from "node:worker_threads";
function workerModule() {
  if (process.env.PREMIA_ACCOUNT_HELPER === "0")
    return null;
  const here = import.meta.url;
  const url = here.endsWith(".ts") ? new URL("../../../dist/backend/local/account-helper-worker.js", here) : new URL("./account-helper-worker.js", here);
  return existsSync3(fileURLToPath2(url)) ? url : null;
}
function accountHelper(store, minAccounts) {
  const module = workerModule();
  if (store.kind !== "sqlite" || store.path === ":memory:" || store.path === "" || module === null)
    return void 0;
  const path = store.path;
  return {
    minAccounts,
    openAccounts(customers, today) {
      const data = { path, clientIds: Int32Array.from(customers.clientId), customerIds: customers.customerId.join("\n"), today };
      const worker = new Worker2(module, { workerData: data });
      return new Promise((resolve2, reject) => {
        worker.once("message", (m) => {
          if (m.type === "blocks")
            resolve2(m.blocks);
          else
            reject(new Error(`the account helper failed: ${m.message}`));
        });
        worker.once("error", reject);
        worker.once("exit", (code) => reject(new Error(`the account helper stopped (exit code ${code})`)));
      }).finally(() => void worker.terminate());
    }
  };
}

// dist/backend/local/memory.js
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
function engineOptionsFromEnv(env) {
  return {
    killBeforeCommit: /^kill-before-commit:(\d{4}-\d{2}-\d{2})$/.exec(env.PREMIA_FAULT ?? "")?.[1],
    killInShard: /^kill-in-shard:(\d{4}-\d{2}-\d{2})$/.exec(env.PREMIA_FAULT ?? "")?.[1],
    debugMemory: Boolean(env.PREMIA_DEBUG_MEM),
    heapSnapshot: env.PREMIA_DEBUG_HEAPSNAPSHOT || void 0
  };
}
var LARGE_WORKING_SET = 5e4;
var HEAP_GROWTH = 96 << 20;
function engineHooks(options) {
  let heapAfterGc = 0;
  return {
    loaded(collections) {
      if (collections >= LARGE_WORKING_SET)
        heapAfterGc = collectGarbage();
      if (options.debugMemory)
        memLog("after load");
      if (options.heapSnapshot)
        v8.writeHeapSnapshot(options.heapSnapshot);
    },
    // Only when a fault is asked for: a hook before each commit keeps the days from being
    // handed over to the store's writer before they commit (engine/advance.ts).
    beforeCommit: options.killBeforeCommit === void 0 && options.failBeforeCommit === void 0 ? void 0 : (date) => {
      if (options.killBeforeCommit === date)
        process.kill(process.pid, "SIGKILL");
      if (options.failBeforeCommit === date)
        throw new Error(`injected failure before ${date} commits`);
    },
    beforeShardCommit: options.killInShard === void 0 ? void 0 : (date) => {
      if (options.killInShard === date)
        process.kill(process.pid, "SIGKILL");
    },
    dayDone() {
      if (options.debugMemory)
        memLog("day committed");
      if (heapAfterGc > 0 && v8.getHeapStatistics().used_heap_size > heapAfterGc + HEAP_GROWTH)
        heapAfterGc = collectGarbage();
    },
    finished() {
      if (options.debugMemory)
        memLog("end of advance");
    }
  };
}
var fullGc;
function collectGarbage() {
  if (fullGc === void 0) {
    fullGc = globalThis.gc ?? null;
    if (fullGc === null) {
      try {
        v8.setFlagsFromString("--expose-gc");
        fullGc = runInNewContext("gc");
      } catch {
        fullGc = null;
      }
    }
  }
  fullGc?.();
  return v8.getHeapStatistics().used_heap_size;
}
function memLog(what) {
  globalThis.gc?.();
  const m = process.memoryUsage();
  const cpu = process.cpuUsage();
  process.stderr.write(`[mem] ${what} at ${process.uptime().toFixed(2)} s (cpu ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s): heap ${(m.heapUsed / 1e6).toFixed(0)} MB, rss ${(m.rss / 1e6).toFixed(0)} MB, external ${(m.external / 1e6).toFixed(0)} MB
`);
}

// dist/backend/local/engine.js
function simulatedBankOn(store) {
  return new SimulatedBank(bankStore(store));
}
function advanceClock(ctx, target, options = {}) {
  const bank = (ctx.bank ?? simulatedBankOn)(ctx.store);
  const helper = ctx.bank === void 0 ? accountHelper(ctx.store) : void 0;
  return advance({ store: engineStore(ctx.store), bank, helper }, target, {
    clientId: ctx.clientId,
    now: ctx.now,
    onDay: options.onDay,
    onWait: options.onWait,
    signal: options.signal,
    hooks: engineHooks(ctx.engine ?? {})
  });
}
async function workEngine(store, options) {
  const engine = { store: engineStore(store), bank: simulatedBankOn(store) };
  if (engine.store.shards === void 0) {
    throw new PremiaError("VALIDATION_ERROR", `premia engine work needs a store several processes share: a PostgreSQL database (--db postgres://\u2026); ${store.path} lives its days in one process.`);
  }
  options.onStart?.();
  const hooks = engineHooks(engineOptionsFromEnv(process.env));
  return workShards(engine, { until: options.until, signal: options.signal, onShard: options.onShard, hooks: { beforeShardCommit: (date, shard) => hooks.beforeShardCommit?.(date, shard) } });
}

// dist/backend/local/admin.js
var LocalAdmin = class {
  store;
  ownBank;
  keys;
  clients;
  settings;
  calendar;
  engine;
  idempotency;
  constructor(store, now, ownBank) {
    this.store = store;
    this.ownBank = ownBank;
    this.keys = {
      create: (client, role) => createKey(store, client, now, role),
      list: () => listKeys(store),
      revoke: (keyId) => revokeKey(store, keyId, now),
      authenticate: (presented) => authenticate(store, presented)
    };
    this.clients = {
      byName: async (name) => {
        const row = await findClientByName(store.db, name);
        return row ? { id: row.id, name: row.name } : null;
      }
    };
    this.settings = {
      list: () => listSettings(store),
      set: (key, value) => setSetting(store, key, value)
    };
    this.calendar = {
      show: (year) => showCalendar(store, year),
      import: (file, options) => importHolidays(store, file, options)
    };
    this.engine = {
      work: (options) => {
        if (ownBank)
          throw new PremiaError("CONFLICT", "premia engine work lives days with the simulated bank of the store; this backend collects through a bank of its own.");
        return workEngine(store, options);
      }
    };
    this.idempotency = {
      owner: processOwner(),
      claim: (input) => claimKey(store, input),
      complete: (clientId, key, response, owner) => completeKey(store, clientId, key, response, owner),
      release: (clientId, key, owner) => releaseKey(store, clientId, key, owner)
    };
  }
  get storePath() {
    return this.store.path;
  }
  get sharedStoreFile() {
    const path = this.store.target;
    return path === ":memory:" || path === "" || this.ownBank ? null : path;
  }
};

// dist/backend/local/row-errors.js
var MAX_REPORTED_ERRORS = 1e4;
var RowErrors = class {
  limit;
  list = [];
  omitted = 0;
  sorted = true;
  constructor(limit = MAX_REPORTED_ERRORS) {
    this.limit = limit;
  }
  push(e) {
    const last = this.list[this.list.length - 1];
    if (last !== void 0 && e.row < last.row)
      this.sorted = false;
    this.list.push(e);
    if (this.list.length >= 2 * this.limit)
      this.trim();
  }
  trim() {
    if (!this.sorted)
      this.list.sort((a, b) => a.row - b.row);
    this.sorted = true;
    if (this.list.length > this.limit) {
      this.omitted += this.list.length - this.limit;
      this.list.length = this.limit;
    }
  }
  /** The reported errors in row order (stable for errors of one row) and how many were left out. */
  result() {
    this.trim();
    return this.omitted > 0 ? { errors: this.list, errors_omitted: this.omitted } : { errors: this.list };
  }
};
function importStopped() {
  return new PremiaError("CANCELLED", "Stopped by Ctrl-C: nothing was imported (the import was rolled back whole).", { exitCode: ExitCode.CANCELLED });
}

// dist/backend/local/accounts.js
function openAccount(inputs, clientId, customerId, today, observer) {
  const set = new AccountSet(1, null, inputs.calendar);
  const summaries = new AccountSummaries(1, analysisDay(today), inputs.calendar);
  const i = replayInto(set, inputs, clientId, customerId, today, summaries.postedDays(today), observer);
  return {
    balance: set.balance(i),
    analysis: summaries.analysis(set, i, {}),
    sourceKind: set.sourceKind(i),
    calendar: inputs.calendar,
    blockedOn: (day) => set.blockedOn(i, day)
  };
}

// dist/backend/local/policies.js
async function findPolicyByRef(db, clientId, idSalt, ref) {
  const rowid = decodeId(IdKind.policy, idSalt, ref);
  if (rowid !== null) {
    const row = await findPolicyById(db, clientId, rowid);
    if (row)
      return row;
  }
  return findPolicyByNumber(db, clientId, ref);
}
async function createPolicy(ctx, input) {
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const existing = await findPolicyByNumber(trx, ctx.clientId, input.policy_number);
    if (existing)
      throw duplicatePolicy(input.policy_number, encodeId(IdKind.policy, world.idSalt, existing.id));
    const now = stamp(world.today, ctx.now());
    const fields = {
      client_id: ctx.clientId,
      policy_number: input.policy_number,
      customer_id: input.customer_id,
      external_customer_ref: input.external_customer_ref,
      product_code: input.product_code,
      collection_amount: input.collection_amount,
      status: "active",
      created_at: now,
      updated_at: now
    };
    const id = await insertPolicy(trx, fields);
    return toPolicy({ id, ...fields }, null, world.idSalt);
  });
}
function duplicatePolicy(policyNumber, id) {
  return conflict("DUPLICATE_POLICY", `Policy number ${policyNumber} already exists (id ${id}). Policy numbers are unique; update that policy instead.`, [
    { field: "policy_number", policy_number: policyNumber, id }
  ]);
}
async function updatePolicy(ctx, ref, patch, hooks = {}) {
  if (patch.collection_amount === void 0 && patch.status === void 0) {
    throw validationError("Nothing to update: give a new amount, a new status, or both.");
  }
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const row = await findPolicyByRef(trx, ctx.clientId, world.idSalt, ref);
    if (!row)
      throw notFound("Policy", ref);
    const now = stamp(world.today, ctx.now());
    const from = row.status;
    const statusMove = patch.status !== void 0 ? checkTransition(from, patch.status, row.policy_number) : "noop";
    let changed = false;
    if (patch.collection_amount !== void 0 && patch.collection_amount !== row.collection_amount) {
      if (from === "cancelled") {
        throw conflict("INVALID_TRANSITION", `Policy ${row.policy_number} is cancelled, which is final: its premium no longer changes.`);
      }
      const effective = nextPeriod(periodOf(world.today));
      await insertAmountChange(trx, {
        client_id: ctx.clientId,
        policy_id: row.id,
        effective_period: effective,
        old_amount: row.collection_amount,
        new_amount: patch.collection_amount,
        changed_on: world.today,
        changed_at: now
      });
      row.collection_amount = patch.collection_amount;
      await hooks.onAmountChange?.(trx, ctx, row, effective, patch.collection_amount);
      changed = true;
    }
    if (statusMove === "change" && patch.status !== void 0) {
      await insertStatusChange(trx, {
        client_id: ctx.clientId,
        policy_id: row.id,
        old_status: from,
        new_status: patch.status,
        changed_on: world.today,
        changed_at: now,
        reason: "update"
      });
      row.status = patch.status;
      await hooks.onStatusChange?.(trx, ctx, row, from, patch.status, world.today);
      changed = true;
    }
    if (changed) {
      row.updated_at = now;
      await updatePolicyRow(trx, ctx.clientId, row.id, {
        collection_amount: row.collection_amount,
        status: row.status,
        updated_at: now
      });
    }
    return toPolicy(row, await latestEffectivePeriod(trx, ctx.clientId, row.id), world.idSalt);
  });
}
async function getPolicy(ctx, ref) {
  const db = ctx.store.db;
  const world = await readWorld(db);
  const row = await findPolicyByRef(db, ctx.clientId, world.idSalt, ref);
  if (!row)
    throw notFound("Policy", ref);
  const amounts2 = await amountChanges(db, ctx.clientId, [row.id]);
  const statuses = await statusChanges(db, ctx.clientId, row.id);
  const amount_history = amounts2.map(({ policy_id: _, ...a }) => a);
  const status_history = statuses.map((s) => ({
    old_status: s.old_status,
    new_status: s.new_status,
    changed_on: s.changed_on,
    reason: s.reason
  }));
  const effective = amounts2.length > 0 ? amounts2[amounts2.length - 1].effective_period : null;
  return { ...toPolicy(row, effective, world.idSalt), amount_history, status_history };
}
async function listPolicies2(ctx, query) {
  const q2 = validatePolicyListQuery({ status: query.status, limit: query.limit, after: query.after });
  const limit = q2.limit ?? DEFAULT_PAGE_LIMIT;
  const world = await readWorld(ctx.store.db);
  const rows = await listPolicies(ctx.store.db, ctx.clientId, { status: q2.status, limit: limit + 1, after: q2.after });
  const page = rows.slice(0, limit);
  const changes = await amountChanges(ctx.store.db, ctx.clientId, page.map((r) => r.id));
  const effective = new Map(changes.map((c) => [c.policy_id, c.effective_period]));
  return {
    data: page.map((r) => toPolicy(r, effective.get(r.id) ?? null, world.idSalt)),
    next_after: rows.length > limit ? page[page.length - 1].policy_number : null
  };
}
function toPolicy(row, effectivePeriod, idSalt) {
  return {
    id: encodeId(IdKind.policy, idSalt, row.id),
    policy_number: row.policy_number,
    customer_id: row.customer_id,
    external_customer_ref: row.external_customer_ref,
    product_code: row.product_code,
    collection_amount: row.collection_amount,
    collection_amount_effective_period: effectivePeriod,
    status: row.status,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at)
  };
}

// dist/backend/local/collections.js
async function executeCollections(ctx, input) {
  const request = validateExecuteRequest({ period_month: input.period_month, policy_ids: input.policy_ids, strategy: input.strategy });
  const period = request.period_month;
  const strategy = request.strategy ?? DEFAULT_STRATEGY;
  if (!isStrategy(strategy)) {
    throw validationError(`strategy must be one of ${STRATEGY_NAMES.join(", ")}; got ${JSON.stringify(strategy)}.`, [
      { field: "strategy", code: "INVALID_VALUE", message: `one of ${STRATEGY_NAMES.join(", ")}` }
    ]);
  }
  const refs = request.policy_ids;
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    if (world.today >= lastDay(period)) {
      throw conflict("PERIOD_CLOSED", `Period ${period} has closed (its last day, ${lastDay(period)}, has run; the clock is at ${world.today}). Its collections can no longer be queued.`);
    }
    let policyIds = null;
    if (refs !== void 0) {
      const problems = [];
      const ids = /* @__PURE__ */ new Set();
      for (const ref of new Set(refs)) {
        const row = await findPolicyByRef(trx, ctx.clientId, world.idSalt, ref);
        if (!row)
          problems.push({ field: "policy_ids", code: "UNKNOWN_POLICY", message: `no policy '${ref}'`, ref });
        else if (row.status !== "active") {
          problems.push({ field: "policy_ids", code: "POLICY_NOT_ACTIVE", message: `policy ${row.policy_number} is ${row.status}`, ref });
        } else
          ids.add(row.id);
      }
      if (problems.length > 0) {
        const unknown = problems.filter((p) => p.code === "UNKNOWN_POLICY").map((p) => p.ref);
        const inactive = problems.filter((p) => p.code === "POLICY_NOT_ACTIVE").map((p) => p.ref);
        const parts = [];
        if (unknown.length > 0)
          parts.push(`unknown policies: ${unknown.join(", ")}`);
        if (inactive.length > 0)
          parts.push(`not active (reinstate them first): ${inactive.join(", ")}`);
        throw validationError(`Nothing was queued: ${parts.join("; ")}.`, problems);
      }
      policyIds = [...ids];
    }
    const now = stamp(world.today, ctx.now());
    const executionId = await insertExecution(trx, {
      client_id: ctx.clientId,
      period_month: period,
      strategy,
      status: "processing",
      policies_queued: 0,
      created_at: now,
      completed_at: null
    });
    const queued = await queueCollections(trx, ctx.clientId, executionId, period, policyIds);
    let answered = executionId;
    if (queued === 0) {
      const holder2 = await executionHolding(trx, ctx.clientId, period, policyIds, executionId);
      if (holder2 !== null) {
        await deleteExecution(trx, ctx.clientId, executionId);
        answered = holder2;
      }
    } else {
      await setPoliciesQueued(trx, ctx.clientId, executionId, queued);
    }
    await setMeta(trx, "clock_locked", "1");
    if (await getMeta(trx, "bank_epoch") === void 0) {
      const first = period < periodOf(world.today) ? period : periodOf(world.today);
      await setMeta(trx, "bank_epoch", fromDayNumber(epochFor(first)));
    }
    return { execution_id: encodeId(IdKind.execution, world.idSalt, answered), status: "processing", policies_queued: queued };
  });
}
function toCollection(r, idSalt) {
  return {
    id: encodeId(IdKind.collection, idSalt, r.id),
    period_month: r.period_month,
    customer_id: r.customer_id,
    external_customer_ref: r.external_customer_ref,
    policy_number: r.policy_number,
    product_code: r.product_code,
    collection_amount_due: r.amount_due,
    collection_amount_collected: r.amount_collected,
    shortfall: asCents(r.amount_due - r.amount_collected),
    collection_status: r.status,
    first_attempt_date: r.first_attempt_date,
    last_attempt_date: r.last_attempt_date,
    number_of_attempts: r.attempts,
    last_failure_reason: r.last_failure_reason,
    policy_id: encodeId(IdKind.policy, idSalt, r.policy_id),
    execution_id: encodeId(IdKind.execution, idSalt, r.execution_id)
  };
}
async function findCollectionRow(ctx, idSalt, id) {
  const rowid = decodeId(IdKind.collection, idSalt, id);
  const row = rowid === null ? void 0 : await findCollection(ctx.store.db, ctx.clientId, rowid);
  if (!row)
    throw notFound("Collection", id);
  return row;
}
async function getCollection(ctx, id) {
  const world = await readWorld(ctx.store.db);
  return toCollection(await findCollectionRow(ctx, world.idSalt, id), world.idSalt);
}
async function listCollections2(ctx, query) {
  const q2 = validateCollectionListQuery({
    period_month: query.period_month,
    status: query.status,
    policy: query.policy,
    limit: query.limit,
    after: query.after
  });
  const limit = q2.limit ?? DEFAULT_PAGE_LIMIT;
  const world = await readWorld(ctx.store.db);
  let policyNumber;
  if (q2.policy !== void 0) {
    const policy = await findPolicyByRef(ctx.store.db, ctx.clientId, world.idSalt, q2.policy);
    if (!policy)
      throw notFound("Policy", q2.policy);
    policyNumber = policy.policy_number;
  }
  const rows = await listCollections(ctx.store.db, ctx.clientId, { period: q2.period_month, status: q2.status, policyNumber, after: q2.after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    data: page.map((r) => toCollection(r, world.idSalt)),
    next_after: rows.length > limit ? page[page.length - 1].policy_number : null
  };
}
async function getExecution(ctx, id) {
  const world = await readWorld(ctx.store.db);
  const rowid = decodeId(IdKind.execution, world.idSalt, id);
  const row = rowid === null ? void 0 : await findExecution(ctx.store.db, ctx.clientId, rowid);
  if (!row)
    throw notFound("Execution", id);
  const counts2 = Object.fromEntries(COLLECTION_STATUSES.map((s) => [s, 0]));
  for (const g of await executionStatusCounts(ctx.store.db, row.id))
    counts2[g.status] = g.count;
  return {
    execution_id: id,
    period_month: row.period_month,
    status: row.status,
    strategy: row.strategy,
    policies_queued: row.policies_queued,
    created_at: iso(row.created_at),
    completed_at: row.completed_at === null ? null : iso(row.completed_at),
    counts: counts2
  };
}
async function exportAttempts(ctx, periodInput, formatInput) {
  const { period_month: period, format } = validateReportQuery({ period_month: periodInput, format: formatInput });
  const world = await readWorld(ctx.store.db);
  const rows = streamPeriodAttempts(ctx.store, ctx.clientId, period);
  const salt = world.idSalt;
  async function* csv() {
    yield csvRow(ATTEMPT_COLUMNS);
    for await (const batch of rows) {
      let out = "";
      for (const r of batch) {
        out += csvRow([encodeId(IdKind.collection, salt, r[0]), r[1], r[2], r[3], formatCents(r[4]), r[5], r[6]]);
      }
      yield out;
    }
  }
  async function* json() {
    yield `{"period_month":${JSON.stringify(period)},"attempts":[`;
    let first = true;
    for await (const batch of rows) {
      let out = "";
      for (const r of batch) {
        out += (first ? "" : ",") + stringifyJson({
          collection_id: encodeId(IdKind.collection, salt, r[0]),
          policy_number: r[1],
          customer_id: r[2],
          date: r[3],
          amount: r[4],
          outcome: r[5],
          failure_reason: r[6]
        });
        first = false;
      }
      yield out;
    }
    yield "]}\n";
  }
  return format === "json" ? { filename: `attempts-${period}.json`, contentType: "application/json; charset=utf-8", body: json() } : { filename: `attempts-${period}.csv`, contentType: "text/csv; charset=utf-8", body: csv() };
}
function incomeView(a, fromDay, calendar) {
  return {
    pattern: a.pattern,
    confidence: a.confidence,
    typical_amount: asCents(a.typicalAmount),
    next_income_dates: predictNext(a, fromDay, calendar),
    description: describeIncome(a)
  };
}
function predictNext(a, fromDay, calendar) {
  if (a.pattern === "irregular" && a.lastIncomeDay !== null && a.meanGap !== null) {
    const next = Math.max(fromDay, Math.round(a.lastIncomeDay + a.meanGap));
    return [`${fromDayNumber(next)}`];
  }
  return predictIncome(a, fromDay, fromDay + 62, calendar).slice(0, 3).map(fromDayNumber);
}
var ORACLE_WHY = blankWhy(WhyCode.ORACLE);
async function explainCollection(ctx, id) {
  const world = await readWorld(ctx.store.db);
  const row = await findCollectionRow(ctx, world.idSalt, id);
  const collection = toCollection(row, world.idSalt);
  const strategy = await executionStrategy(ctx.store.db, row.execution_id);
  const attempts = await attemptsOfCollection(ctx.store.db, row.id);
  const planDays = /* @__PURE__ */ new Set();
  for (const a of attempts)
    for (let k = 1; k <= 4; k++)
      planDays.add(addDays(a.date, -k));
  for (let k = 0; k <= 4; k++)
    planDays.add(addDays(world.today, -k));
  const batches = await planBatchesOn(ctx.store.db, ctx.clientId, [...planDays]);
  const whyOn = /* @__PURE__ */ new Map();
  for (const data of batches) {
    for (const p of decodePlans(data))
      if (p.collection === row.id)
        whyOn.set(p.day, { amount: p.amount, why: p.why });
  }
  const today = dayNumber(world.today);
  const plans = [...whyOn.entries()].filter(([day]) => day > today && row.status !== "CANCELLED").sort((x, y) => x[0] - y[0]).map(([day, p]) => ({ date: fromDayNumber(day), amount: p.amount, reason: renderWhy(p.why) }));
  const epoch = await getMeta(ctx.store.db, "bank_epoch");
  const inputs = await readCustomerBankInputs(ctx.store, ctx.clientId, row.customer_id);
  const account = openAccount({
    seed: world.seed,
    calendar: world.calendar,
    epochDay: epoch ? dayNumber(epoch) : epochFor(periodOf(world.today)),
    imported: inputs.imported,
    snapshots: /* @__PURE__ */ new Map(),
    attempts: inputs.attempts
  }, ctx.clientId, row.customer_id, dayNumber(world.today));
  const plan = plans.map((p) => `${p.date}: debit ${formatCents(p.amount)} planned (${p.reason})`);
  if (plan.length === 0 && collection.shortfall > 0 && row.status !== "CANCELLED" && world.today < lastDay(row.period_month)) {
    plan.push(`No debit is planned yet: the engine plans each debit ${plural(1 + LEAD_DAYS, "day")} ahead, after income it has seen or expects.`);
  }
  const done = collection.collection_amount_collected;
  const summary = `${collection.collection_status}: collected ${formatCents(done)} of ${formatCents(collection.collection_amount_due)} in ${attempts.length} attempt${attempts.length === 1 ? "" : "s"}` + (collection.last_failure_reason ? `; last failure ${collection.last_failure_reason}` : "") + (world.today >= lastDay(row.period_month) ? " (period closed)." : ` (period open; clock at ${world.today}).`);
  return {
    collection,
    strategy,
    income: incomeView(account.analysis, today + 1, account.calendar),
    plan,
    attempts: attempts.map((a) => ({
      collection_id: collection.id,
      policy_number: row.policy_number,
      customer_id: row.customer_id,
      date: a.date,
      amount: a.amount,
      outcome: a.outcome,
      failure_reason: a.failure_reason,
      why: renderWhy(whyOn.get(dayNumber(a.date))?.why ?? ORACLE_WHY)
    })),
    summary
  };
}

// dist/backend/local/bank.js
var BANK_CSV_HEADER = ["customer_id", "date", "amount", "description"];
var DESCRIPTION_MAX = 200;
var RECENT = 25;
async function importBankTransactions(ctx, file, options = {}) {
  return withBankImport(ctx.store, ctx.clientId, async (unit) => {
    const { locked, today, imported, collecting } = unit;
    const errors = new RowErrors();
    let header = null;
    let imported_ = 0;
    let failed = 0;
    let rows = 0;
    const reader = new CsvReader({
      onRecord: (fields, line, problem) => {
        if (header === null) {
          header = fields.map((f2) => trimCell(f2));
          const ok = header.length === 4 && header.every((h, i) => h.toLowerCase() === BANK_CSV_HEADER[i]);
          if (!ok) {
            const hint = bareCrHint(header) ? ` ${CR_LINE_ENDS}` : "";
            throw invalidBankFile(file.name, `line 1: the header must be '${BANK_CSV_HEADER.join(",")}'; found '${printable(header.join(","), 200)}'${hint && `.${hint}`}`);
          }
          return;
        }
        rows++;
        const rowErrors = [];
        const customer = fields.length > 0 ? trimCell(fields[0]) : "";
        const add = (field, code, message) => rowErrors.push({ row: line, customer_id: customer === "" ? null : printable(customer, 64), field, code, message });
        if (fields.length !== 4) {
          add("row", "WRONG_FIELD_COUNT", `expected 4 fields, found ${fields.length}${bareCrHint(fields)}`);
        } else {
          if (problem)
            add("row", "MALFORMED_ROW", problem);
          const idProblem = checkIdentifier(customer, "customer_id");
          if (idProblem)
            add("customer_id", idProblem.code, idProblem.message);
          const date = trimCell(fields[1]);
          if (!isIsoDate(date))
            add("date", "INVALID_DATE", `date '${printable(date, 40)}' is not a date written YYYY-MM-DD`);
          const amount = parseSignedAmount(trimCell(fields[2]));
          if (typeof amount !== "number")
            add("amount", amount.code, `amount ${amount.message}`);
          const description = trimCell(fields[3]);
          if (description.length > DESCRIPTION_MAX || /[\u0000-\u001f\u007f]/.test(description)) {
            add("description", "INVALID_FORMAT", `description must be at most ${DESCRIPTION_MAX} printable characters`);
          }
          if (typeof amount === "number" && amount === 0 && !isAccountEvent(description)) {
            add("amount", "INVALID_AMOUNT", `amount 0 is only for event rows (${ACCOUNT_EVENTS.join(", ")}); '${printable(description, 40)}' is not one`);
          }
          if (rowErrors.length === 0 && locked) {
            if (date <= today)
              add("date", "DATE_IN_PAST", `${date} is on or before the clock's date ${today}; days already lived cannot change`);
            else if (!imported.has(customer) && collecting.has(customer)) {
              add("customer_id", "ACCOUNT_IN_USE", `premia is collecting from the generated account of ${customer}; its history cannot be replaced`);
            }
          }
          if (rowErrors.length === 0 && imported.has(customer) && unit.storedBefore(customer, date, amount, description)) {
            add("row", "DUPLICATE_TRANSACTION", `${customer} already has this transaction on ${date} from an earlier import; a statement is imported once`);
          }
          if (rowErrors.length === 0) {
            unit.insert(customer, date, amount, description);
            imported_++;
            return;
          }
        }
        failed++;
        for (const e of rowErrors)
          errors.push(e);
      }
    });
    try {
      for await (const chunk of file.stream) {
        if (options.signal?.aborted)
          throw importStopped();
        reader.push(chunk);
        options.onProgress?.({ bytes: reader.bytesIn, rows });
        await unit.ready?.();
      }
      reader.end();
    } catch (e) {
      if (e instanceof CsvFormatError)
        throw invalidBankFile(file.name, e.message);
      throw e;
    }
    if (header === null)
      throw invalidBankFile(file.name, "the file is empty; expected a header line and transaction rows");
    return { imported: imported_, failed, ...errors.result() };
  });
}
function invalidBankFile(name, reason) {
  const sentence = /[.!?]$/.test(reason) ? reason : `${reason}.`;
  return new PremiaError("INVALID_FILE", `${name} is not a bank transactions CSV file: ${sentence} Nothing was imported.`, {
    details: [{ field: "file", code: "INVALID_FILE", message: reason }]
  });
}
async function showBankAccount(ctx, customerId) {
  const problem = checkIdentifier(customerId, "customer_id");
  if (problem)
    throw validationError(`${problem.message}.`, [{ field: "customer_id", ...problem }]);
  const world = await readWorld(ctx.store.db);
  const today = dayNumber(world.today);
  const entries = [];
  const labels = [];
  let labelIndex = 0;
  const observer = {
    credit: (day, amount, text, balance) => entries.push({ date: fromDayNumber(day), amount, description: text, outcome: "posted", balance }),
    premiaDebit: (day, amount, reason, balance) => entries.push({
      date: fromDayNumber(day),
      amount: -amount,
      description: `PREMIA DEBIT ${labels[labelIndex++] ?? ""}${reason ? ` (FAILED: ${reason})` : ""}`.trim(),
      outcome: reason ? "declined" : "posted",
      balance
    }),
    debit: (day, amount, text, posted, balance) => entries.push({ date: fromDayNumber(day), amount: -amount, description: text, outcome: posted ? "posted" : "declined", balance })
  };
  const inputs = await readCustomerBankInputs(ctx.store, ctx.clientId, customerId);
  if (!inputs.known) {
    throw new PremiaError("NOT_FOUND", `Customer '${customerId}' is not known: no policy of this client names it and no bank transactions were imported for it. Check the customer_id.`);
  }
  for (const a of inputs.attempts.get(customerKey(ctx.clientId, customerId)) ?? [])
    labels.push(a.policyNumber);
  const account = openAccount({
    seed: world.seed,
    calendar: inputs.calendar,
    epochDay: inputs.epoch ? dayNumber(inputs.epoch) : epochFor(periodOf(world.today)),
    imported: inputs.imported,
    snapshots: /* @__PURE__ */ new Map(),
    attempts: inputs.attempts
  }, ctx.clientId, customerId, today, observer);
  const blocked = account.blockedOn(today);
  const state = blocked === "ACCOUNT_CLOSED" ? "closed" : blocked === "ACCOUNT_FROZEN" ? "frozen" : blocked === "PAYMENT_STOPPED" ? "payment_stopped" : "open";
  return {
    customer_id: customerId,
    source: account.sourceKind,
    as_of: world.today,
    balance: account.balance,
    state,
    recent_transactions: entries.slice(-RECENT),
    income: incomeView(account.analysis, today + 1, account.calendar)
  };
}
async function seedBank(ctx, seed) {
  if (!Number.isInteger(seed) || seed < 0 || seed > 999999999) {
    throw validationError(`The seed must be a whole number from 0 to 999999999; got ${String(seed)}.`, [
      { field: "seed", code: "INVALID_VALUE", message: "a whole number from 0 to 999999999" }
    ]);
  }
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    if (world.locked) {
      throw new PremiaError("SEED_LOCKED", `A collections run exists, so the bank's seed (${world.seed}) can no longer change: generated accounts have been used.`);
    }
    await setMeta(trx, "seed", String(seed));
    return { date: world.today, locked: false, seed };
  });
}

// dist/domain/fees.js
var DISTRIBUTION_FEE_RATE = new Money("0.25");
var COLLECTIONS_FEE_RATE = new Money("0.035");
var VAT_RATE = new Money("0.15");
function settlementFigures(totalCollections) {
  if (!Number.isSafeInteger(totalCollections) || totalCollections < 0) {
    throw new RangeError(`total_collections must be a non-negative whole number of cents, not ${totalCollections}`);
  }
  const distribution_fee = applyRate(totalCollections, DISTRIBUTION_FEE_RATE);
  const collections_fee = applyRate(totalCollections, COLLECTIONS_FEE_RATE);
  const total_fees = asCents(distribution_fee + collections_fee);
  const vat = applyRate(total_fees, VAT_RATE);
  return {
    total_collections: asCents(totalCollections),
    distribution_fee,
    collections_fee,
    total_fees,
    vat,
    net_amount: asCents(totalCollections - total_fees - vat)
  };
}
var WeightTable = class _WeightTable {
  weights = new Float64Array(64);
  counts = new Float64Array(64);
  length = 0;
  static from(pairs) {
    const t = new _WeightTable();
    for (const [w, n] of pairs)
      t.push(w, n);
    return t;
  }
  push(weight, count) {
    if (!Number.isSafeInteger(weight) || weight < 0)
      throw new RangeError(`weight must be non-negative cents, not ${weight}`);
    if (!Number.isSafeInteger(count) || count < 0)
      throw new RangeError(`count must be a non-negative whole number, not ${count}`);
    if (count === 0)
      return;
    this.weights = grown(this.weights, this.length + 1);
    this.counts = grown(this.counts, this.length + 1);
    this.weights[this.length] = weight;
    this.counts[this.length] = count;
    this.length++;
  }
};
var qOut = 0;
var rOut = 0;
function mulDivMod(a, w, W, base) {
  const p = a * w;
  if (p <= Number.MAX_SAFE_INTEGER) {
    const r2 = p % W;
    rOut = r2;
    qOut = (p - r2) / W;
    return;
  }
  let pow = 1;
  while (pow * base <= w)
    pow *= base;
  let q2 = 0;
  let r = 0;
  let x = w;
  for (; pow >= 1; pow /= base) {
    const d = Math.floor(x / pow);
    x -= d * pow;
    const t = r * base + a * d;
    const rr = t % W;
    q2 = q2 * base + (t - rr) / W;
    r = rr;
  }
  qOut = q2;
  rOut = r;
}
function digitBase(W) {
  let base = 1;
  while (2 * base * 2 * W <= 2 ** 53)
    base *= 2;
  return 2 * base * W <= 2 ** 53 && base >= 2 ? base : 0;
}
var ProRataAllocator = class {
  amount;
  total;
  /** Digit base for mulDivMod; 0: use BigInt. */
  base;
  /** Items whose remainder is above this get one extra cent. -1: nobody does. */
  threshold = -1;
  /** Items whose remainder equals the threshold: how many more of each weight get one (first come). */
  atThreshold = /* @__PURE__ */ new Map();
  table;
  floors;
  remainders;
  /**
   * @param amount the cents to split (≥ 0)
   * @param weightCounts how many items there are of each weight (weights ≥ 0, integer cents)
   */
  constructor(amount, weightCounts) {
    if (!Number.isSafeInteger(amount) || amount < 0)
      throw new RangeError(`amount must be non-negative cents, not ${amount}`);
    const table = weightCounts instanceof WeightTable ? weightCounts : WeightTable.from(weightCounts);
    this.table = table;
    const n = table.length;
    const { weights, counts: counts2 } = table;
    let total = 0n;
    let totalN = 0;
    for (let i = 0; i < n; i++)
      totalN += weights[i] * counts2[i];
    if (totalN > Number.MAX_SAFE_INTEGER) {
      for (let i = 0; i < n; i++)
        total += BigInt(weights[i]) * BigInt(counts2[i]);
      if (total > BigInt(Number.MAX_SAFE_INTEGER))
        throw new RangeError("the weights add up to more than 2^53 cents");
    }
    this.amount = amount;
    this.total = totalN;
    this.floors = new Float64Array(n);
    this.remainders = new Float64Array(n);
    this.base = totalN > 0 && amount <= totalN ? digitBase(totalN) : 0;
    if (totalN === 0) {
      if (amount !== 0)
        throw new RangeError(`cannot split ${amount} cents over items that weigh nothing`);
      return;
    }
    let left = amount;
    for (let i = 0; i < n; i++) {
      this.split(weights[i]);
      this.floors[i] = qOut;
      this.remainders[i] = rOut;
      left -= qOut * counts2[i];
    }
    if (left === 0)
      return;
    if (left < 0)
      throw new Error("pro-rata allocation left cents over (weights inconsistent)");
    const BUCKETS2 = 1 << 16;
    const bucketOf = (r) => Math.floor(r * BUCKETS2 / totalN);
    const histogram = new Float64Array(BUCKETS2);
    for (let i = 0; i < n; i++) {
      const r = this.remainders[i];
      if (r > 0)
        histogram[bucketOf(r)] += counts2[i];
    }
    let above = 0;
    let bucket = BUCKETS2 - 1;
    for (; bucket >= 0; bucket--) {
      if (above + histogram[bucket] >= left)
        break;
      above += histogram[bucket];
    }
    if (bucket < 0)
      throw new Error("pro-rata allocation left cents over (weights inconsistent)");
    const inBucket = [];
    for (let i = 0; i < n; i++) {
      const r = this.remainders[i];
      if (r > 0 && bucketOf(r) === bucket)
        inBucket.push(i);
    }
    inBucket.sort((a, b) => this.remainders[b] - this.remainders[a]);
    let lo = 0;
    let need = left - above;
    for (let k = 0; k < inBucket.length; ) {
      const r = this.remainders[inBucket[k]];
      let atR = 0;
      for (; k < inBucket.length && this.remainders[inBucket[k]] === r; k++)
        atR += counts2[inBucket[k]];
      if (atR >= need) {
        lo = r;
        break;
      }
      need -= atR;
    }
    if (lo === 0)
      throw new Error("pro-rata allocation left cents over (weights inconsistent)");
    this.threshold = lo;
    const equal = /* @__PURE__ */ new Map();
    for (let i = 0; i < n; i++) {
      const r = this.remainders[i];
      if (r > lo)
        left -= counts2[i];
      else if (r === lo)
        equal.set(weights[i], (equal.get(weights[i]) ?? 0) + counts2[i]);
    }
    for (const w of [...equal.keys()].sort((a, b) => b - a)) {
      if (left === 0)
        break;
      const give = Math.min(left, equal.get(w));
      this.atThreshold.set(w, give);
      left -= give;
    }
    if (left !== 0)
      throw new Error("pro-rata allocation left cents over (weights inconsistent)");
  }
  /** The share of the next item (call once per item, in order). */
  share(weight) {
    if (this.total === 0)
      return 0;
    this.split(weight);
    const floor = qOut;
    const up = qOut + 1;
    const remainder = rOut;
    if (remainder === 0 || remainder < this.threshold || this.threshold < 0)
      return floor;
    if (remainder > this.threshold)
      return up;
    const left = this.atThreshold.get(weight) ?? 0;
    if (left > 0) {
      this.atThreshold.set(weight, left - 1);
      return up;
    }
    return floor;
  }
  /**
   * The shares the items will get, as counts, without consuming the plan: calls
   * `each(weight, share, count)` for every group of items of one weight with one share.
   * This is what the next allocation of a chain needs for its own plan.
   */
  forEachShare(each) {
    const { weights, counts: counts2, length } = this.table;
    const given = new Map(this.atThreshold);
    for (let i = 0; i < length; i++) {
      const w = weights[i];
      const n = counts2[i];
      if (this.total === 0) {
        each(w, 0, n);
        continue;
      }
      const floor = this.floors[i];
      const r = this.remainders[i];
      if (this.threshold < 0 || r === 0 || r < this.threshold)
        each(w, floor, n);
      else if (r > this.threshold)
        each(w, floor + 1, n);
      else {
        const up = Math.min(n, given.get(w) ?? 0);
        if (up > 0) {
          given.set(w, (given.get(w) ?? 0) - up);
          each(w, floor + 1, up);
        }
        if (n - up > 0)
          each(w, floor, n - up);
      }
    }
  }
  /** floor and remainder of amount × weight / total into qOut / rOut. */
  split(weight) {
    if (this.base > 0) {
      mulDivMod(this.amount, weight, this.total, this.base);
      return;
    }
    const product = BigInt(this.amount) * BigInt(weight);
    const total = BigInt(this.total);
    qOut = Number(product / total);
    rOut = Number(product % total);
  }
};
var StatementSplitter = class {
  distribution;
  rest;
  vat;
  constructor(figures, collectedCounts) {
    if (figures.net_amount < 0)
      throw new RangeError("a statement with a negative net cannot be split into lines");
    this.distribution = new ProRataAllocator(figures.distribution_fee, collectedCounts);
    const byRest = new WeightTable();
    this.distribution.forEachShare((collected, distribution, count) => byRest.push(collected - distribution, count));
    this.rest = new ProRataAllocator(figures.collections_fee + figures.vat, byRest);
    const byShare = new WeightTable();
    this.rest.forEachShare((_rest, share, count) => byShare.push(share, count));
    this.vat = new ProRataAllocator(figures.vat, byShare);
  }
  /** The shares of the next collection (call once per collection, in policy_number order). */
  next(collected) {
    const distribution_fee = this.distribution.share(collected);
    const rest = collected - distribution_fee;
    const share = this.rest.share(rest);
    const vat = this.vat.share(share);
    const collections_fee = share - vat;
    return {
      distribution_fee,
      collections_fee,
      total_fees: distribution_fee + collections_fee,
      vat,
      net_amount: rest - share
    };
  }
};

// dist/store/repos/collection-reports.js
import { createRequire as createRequire2 } from "node:module";
var require3 = createRequire2(import.meta.url);
var PAGE_ROWS = 1024;
async function* periodRowsInOrder(store, columns, keyIndex, clientId, period) {
  const base = `select ${columns} from collections where client_id = ? and period_month = ?`;
  if (store.kind === "postgres" || store.path === ":memory:" || store.path === "") {
    yield* store.streamRows(`${base} order by policy_number`, [clientId, period], { raw: true, batch: PAGE_ROWS });
    return;
  }
  const BetterSqlite = require3("better-sqlite3");
  const reader = new BetterSqlite(store.path, { readonly: true, fileMustExist: true, timeout: DEFAULT_BUSY_TIMEOUT_MS });
  try {
    const first = reader.prepare(`${base} order by policy_number limit ?`).raw(true);
    const next = reader.prepare(`${base} and policy_number > ? order by policy_number limit ?`).raw(true);
    reader.exec("begin");
    let rows = first.all(clientId, period, PAGE_ROWS);
    while (rows.length > 0) {
      yield rows;
      if (rows.length < PAGE_ROWS)
        break;
      rows = next.all(clientId, period, rows[rows.length - 1][keyIndex], PAGE_ROWS);
    }
  } finally {
    if (reader.inTransaction)
      reader.exec("commit");
    reader.close();
  }
}
var REPORT_COLUMNS_SQL = `customer_id, external_customer_ref, policy_number, product_code, amount_due, amount_collected,
  status, first_attempt_date, last_attempt_date, attempts, last_failure_reason, id`;
function streamReportRows(store, clientId, period) {
  return periodRowsInOrder(store, REPORT_COLUMNS_SQL, 2, clientId, period);
}
function copyReportCsv(store, clientId, period, columns) {
  if (!Number.isSafeInteger(clientId))
    throw new RangeError(`not a client id: ${clientId}`);
  if (columns.length !== 13)
    throw new RangeError(`the report has 13 columns, not ${columns.length}`);
  const text = (col) => `nullif(${col}, '')`;
  const money = (expr) => `(${expr}) * 0.01`;
  const cells = [
    text("period_month"),
    text("customer_id"),
    text("external_customer_ref"),
    text("policy_number"),
    text("product_code"),
    money("amount_due"),
    money("amount_collected"),
    money("amount_due - amount_collected"),
    "status",
    text("first_attempt_date"),
    text("last_attempt_date"),
    "attempts",
    text("last_failure_reason")
  ];
  const select = cells.map((cell, i) => `${cell} as ${pgIdentifier(columns[i])}`).join(", ");
  return store.copyOut(`copy (select ${select} from collections where client_id = ${clientId} and period_month = ${pgLiteral(period)} order by policy_number) to stdout with (format csv, header true)`);
}
function pgIdentifier(name) {
  return `"${name.replace(/"/g, '""')}"`;
}
var COLLECTED_COUNTS_SQL = `select amount_collected, count(*)
from collections
where client_id = ? and period_month = ?
group by amount_collected`;
function streamCollectedCounts(store, clientId, period) {
  return store.streamRows(COLLECTED_COUNTS_SQL, [clientId, period], { raw: true, batch: PAGE_ROWS });
}
function streamLineRows(store, clientId, period) {
  return periodRowsInOrder(store, "policy_number, customer_id, external_customer_ref, product_code, amount_collected", 0, clientId, period);
}

// dist/store/repos/settlements.js
async function periodCollectionTotals(db, clientId, period) {
  const row = await db.selectFrom("collections").select((eb) => [eb.fn.countAll().as("count"), eb.fn.coalesce(eb.fn.sum("amount_collected"), eb.lit(0)).as("collected")]).where("client_id", "=", clientId).where("period_month", "=", period).executeTakeFirstOrThrow();
  return { count: Number(row.count), collected: Number(row.collected) };
}
async function findLiveSettlement(db, clientId, period) {
  return db.selectFrom("settlements").selectAll().where("client_id", "=", clientId).where("period_month", "=", period).where("status", "in", ["pending", "paid"]).executeTakeFirst();
}
async function nextSettlementSeq(db, clientId, period) {
  const row = await db.selectFrom("settlements").select((eb) => eb.fn.max("seq").as("seq")).where("client_id", "=", clientId).where("period_month", "=", period).executeTakeFirst();
  return (row?.seq ?? 0) + 1;
}
async function paymentReferenceExists(db, reference) {
  const row = await db.selectFrom("settlements").select("id").where("payment_reference", "=", reference).executeTakeFirst();
  return row !== void 0;
}
async function insertSettlement(db, row) {
  const result = await db.insertInto("settlements").values(row).returning("id").executeTakeFirstOrThrow();
  return Number(result.id);
}
function views(db) {
  return db.selectFrom("settlements").selectAll("settlements").select((eb) => [
    eb.selectFrom("settlements as older").select("older.settlement_number").whereRef("older.id", "=", "settlements.supersedes_id").as("supersedes_number"),
    eb.selectFrom("settlements as newer").select("newer.settlement_number").whereRef("newer.supersedes_id", "=", "settlements.id").limit(1).as("superseded_by_number")
  ]);
}
async function findSettlementById(db, clientId, id) {
  return views(db).where("settlements.client_id", "=", clientId).where("settlements.id", "=", id).executeTakeFirst();
}
async function findSettlementByNumber(db, clientId, settlementNumber2) {
  return views(db).where("settlements.client_id", "=", clientId).where("settlements.settlement_number", "=", settlementNumber2).executeTakeFirst();
}
async function listSettlements(db, clientId, q2) {
  let query = views(db).where("settlements.client_id", "=", clientId);
  if (q2.status !== void 0)
    query = query.where("settlements.status", "=", q2.status);
  if (q2.period !== void 0)
    query = query.where("settlements.period_month", "=", q2.period);
  return query.orderBy("settlements.id", "desc").execute();
}
async function latestSettlement(db, clientId, period) {
  return db.selectFrom("settlements").selectAll().where("client_id", "=", clientId).where("period_month", "=", period).orderBy("seq", "desc").limit(1).executeTakeFirst();
}
async function paidForPeriod(db, clientId, period) {
  const row = await db.selectFrom("settlements").select((eb) => eb.fn.coalesce(eb.fn.sum(eb("period_net", "-", eb.ref("previously_paid"))), eb.lit(0)).as("paid")).where("client_id", "=", clientId).where("period_month", "=", period).where("paid_on", "is not", null).executeTakeFirstOrThrow();
  return Number(row.paid);
}
async function updateSettlement(db, clientId, id, set) {
  await db.updateTable("settlements").set(set).where("client_id", "=", clientId).where("id", "=", id).execute();
}
async function insertSettlementEvent(db, event) {
  await db.insertInto("settlement_events").values(event).execute();
}
function settlementUniqueConflict(e) {
  const pg = e;
  if (pg?.code === "23505" && typeof pg.constraint === "string") {
    return PG_SETTLEMENT_GUARDS[pg.constraint] ?? null;
  }
  const m = /UNIQUE constraint failed: (settlements\.[a-z_]+(?:, settlements\.[a-z_]+)*)$/m.exec(String(e?.message ?? e));
  return m ? SQLITE_SETTLEMENT_GUARDS[m[1]] ?? null : null;
}
var PG_SETTLEMENT_GUARDS = {
  settlements_live_uq: "live",
  settlements_pkey: "id",
  settlements_client_number_uq: "number",
  settlements_client_period_seq_uq: "seq",
  settlements_payment_reference_key: "reference"
};
var SQLITE_SETTLEMENT_GUARDS = {
  "settlements.client_id, settlements.period_month": "live",
  "settlements.id": "id",
  "settlements.client_id, settlements.settlement_number": "number",
  "settlements.client_id, settlements.period_month, settlements.seq": "seq",
  "settlements.payment_reference": "reference"
};

// dist/backend/local/reports.js
var CSV_CONTENT_TYPE = "text/csv; charset=utf-8";
var JSON_CONTENT_TYPE = "application/json; charset=utf-8";
async function collectionsReport(ctx, periodInput, formatInput = "csv") {
  const { period_month: period, format } = validateReportQuery({ period_month: periodInput, format: formatInput });
  const { idSalt, today } = await readWorld(ctx.store.db);
  const periodState = await readPeriodState(ctx, period, today);
  if (format === "csv") {
    const body = ctx.store.kind === "postgres" ? copyReportCsv(ctx.store, ctx.clientId, period, REPORT_COLUMNS) : reportCsv(ctx, period);
    return { filename: `collections-${period}.csv`, contentType: CSV_CONTENT_TYPE, body, periodState };
  }
  return { filename: `collections-${period}.json`, contentType: JSON_CONTENT_TYPE, body: reportJson(ctx, period, idSalt, periodState), periodState };
}
async function readPeriodState(ctx, period, today) {
  if (today >= lastDay(period)) {
    return periodStateOf(period, today, await periodHasCollections(ctx.store.db, ctx.clientId, period) ? 1 : 0, 0);
  }
  const { collections, open: open2 } = await periodOpenCounts(ctx.store.db, ctx.clientId, period);
  return periodStateOf(period, today, collections, open2);
}
var CSV_HEADER = csvRow(REPORT_COLUMNS);
async function* reportCsv(ctx, period) {
  const periodCell = csvCell(period);
  let chunk = CSV_HEADER;
  for await (const rows of streamReportRows(ctx.store, ctx.clientId, period)) {
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      const due = r[4];
      const collected = r[5];
      chunk += periodCell + "," + csvCell(r[0]) + "," + csvCell(r[1]) + "," + csvCell(r[2]) + "," + csvCell(r[3]) + "," + formatCents(due) + "," + formatCents(collected) + "," + formatCents(due - collected) + "," + r[6] + "," + // status: one of four words (CHECK constraint)
      csvCell(r[7]) + "," + csvCell(r[8]) + "," + r[9] + "," + csvCell(r[10]) + "\n";
    }
    yield chunk;
    chunk = "";
  }
  if (chunk !== "")
    yield chunk;
}
var jsonText = (v) => v === null ? "null" : JSON.stringify(v);
function reportRowJson(id, periodJson, r) {
  return '{"id":' + JSON.stringify(id) + ',"period_month":' + periodJson + ',"customer_id":' + JSON.stringify(r[0]) + ',"external_customer_ref":' + JSON.stringify(r[1]) + ',"policy_number":' + JSON.stringify(r[2]) + ',"product_code":' + JSON.stringify(r[3]) + ',"collection_amount_due":' + formatCents(r[4]) + ',"collection_amount_collected":' + formatCents(r[5]) + ',"shortfall":' + formatCents(r[4] - r[5]) + ',"collection_status":' + JSON.stringify(r[6]) + ',"first_attempt_date":' + jsonText(r[7]) + ',"last_attempt_date":' + jsonText(r[8]) + ',"number_of_attempts":' + String(r[9]) + ',"last_failure_reason":' + jsonText(r[10]) + "}";
}
async function* reportJson(ctx, period, idSalt, state) {
  const periodJson = JSON.stringify(period);
  let chunk = `{"period_month":${periodJson},"period_state":${JSON.stringify(state)},"results":[`;
  let first = true;
  for await (const rows of streamReportRows(ctx.store, ctx.clientId, period)) {
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      chunk += (first ? "" : ",") + reportRowJson(encodeId(IdKind.collection, idSalt, r[11]), periodJson, r);
      first = false;
    }
    yield chunk;
    chunk = "";
  }
  yield `${chunk}]}
`;
}

// dist/backend/local/settlements.js
function toSettlement(row, idSalt) {
  return {
    id: encodeId(IdKind.settlement, idSalt, row.id),
    settlement_number: row.settlement_number,
    period_month: row.period_month,
    total_collections: row.total_collections,
    distribution_fee: row.distribution_fee,
    collections_fee: row.collections_fee,
    total_fees: row.total_fees,
    vat: row.vat,
    net_amount: amountDue(row.period_net, row.previously_paid),
    payment_date: row.payment_date,
    status: row.status,
    payment_reference: row.payment_reference,
    created_at: iso(row.created_at),
    collections_count: row.collections_count,
    paid_on: row.paid_on,
    paid_reference: row.paid_reference,
    disputed_on: row.disputed_on,
    dispute_reason: row.dispute_reason,
    previously_paid: row.previously_paid,
    supersedes: row.supersedes_number,
    superseded_by: row.superseded_by_number
  };
}
function stateOf(row) {
  return { ...row, superseded_by: row.superseded_by_number };
}
async function findSettlementByRef(db, clientId, idSalt, ref) {
  const trimmed = ref.trim();
  if (looksLikeId(trimmed)) {
    const rowid = decodeId(IdKind.settlement, idSalt, trimmed);
    return rowid === null ? void 0 : findSettlementById(db, clientId, rowid);
  }
  return findSettlementByNumber(db, clientId, trimmed.toUpperCase());
}
async function requireSettlement(db, ctx, idSalt, ref) {
  if (typeof ref !== "string" || ref.trim() === "") {
    throw validationError("Give a settlement id or settlement number (SETTLE-YYYY-MM-NNN).", [
      { field: "settlement", code: "REQUIRED", message: "is required" }
    ]);
  }
  const row = await findSettlementByRef(db, ctx.clientId, idSalt, ref);
  if (!row)
    throw notFound("Settlement", ref);
  return row;
}
function exists(live, idSalt) {
  return settlementExists({ ...live, id: encodeId(IdKind.settlement, idSalt, live.id) });
}
var CREATE_ATTEMPTS = 3;
async function createSettlement(ctx, periodInput) {
  const { period_month: period } = validateSettlementRequest({ period_month: periodInput });
  for (let attempt = 1; ; attempt++) {
    try {
      return await createSettlementOnce(ctx, period);
    } catch (e) {
      const guard = e instanceof PremiaError ? null : settlementUniqueConflict(e);
      if (guard === null)
        throw e;
      const world = await readWorld(ctx.store.db);
      const live = await findLiveSettlement(ctx.store.db, ctx.clientId, period);
      if (live)
        throw exists(live, world.idSalt);
      if (attempt >= CREATE_ATTEMPTS) {
        throw new PremiaError("STORE_BUSY", `The settlement of ${period} collided ${CREATE_ATTEMPTS} times with statements made at the same time (its ${guard} was taken); nothing was stored. Try again.`, { cause: e });
      }
    }
  }
}
async function createSettlementOnce(ctx, period) {
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    checkPeriodClosed(period, world.today);
    const live = await findLiveSettlement(trx, ctx.clientId, period);
    if (live)
      throw exists(live, world.idSalt);
    const totals = await periodCollectionTotals(trx, ctx.clientId, period);
    if (totals.count === 0)
      throw noCollections(period);
    const replaced = await latestSettlement(trx, ctx.clientId, period);
    const previouslyPaid = replaced ? await paidForPeriod(trx, ctx.clientId, period) : asCents(0);
    const { net_amount: periodNet, ...fees } = settlementFigures(totals.collected);
    const seq = await nextSettlementSeq(trx, ctx.clientId, period);
    const number = settlementNumber(period, seq);
    let reference = paymentReference(world.idSalt, ctx.clientId, number, period, seq);
    for (let attempt = 1; await paymentReferenceExists(trx, reference); attempt++) {
      reference = paymentReference(world.idSalt, ctx.clientId, number, period, seq, attempt);
    }
    const now = stamp(world.today, ctx.now());
    const row = {
      client_id: ctx.clientId,
      period_month: period,
      seq,
      settlement_number: number,
      ...fees,
      period_net: periodNet,
      collections_count: totals.count,
      payment_date: paymentDateOf(period, seq, world.today),
      payment_reference: reference,
      status: "pending",
      created_at: now,
      updated_at: now,
      paid_on: null,
      paid_reference: null,
      disputed_on: null,
      dispute_reason: null,
      previously_paid: previouslyPaid,
      supersedes_id: replaced?.id ?? null
    };
    const id = await insertSettlement(trx, row);
    await insertSettlementEvent(trx, {
      client_id: ctx.clientId,
      settlement_id: id,
      event: "created",
      status: "pending",
      on_date: world.today,
      at: now,
      detail: null
    });
    return toSettlement({ id, ...row, supersedes_number: replaced?.settlement_number ?? null, superseded_by_number: null }, world.idSalt);
  });
}
async function getSettlement(ctx, ref) {
  const world = await readWorld(ctx.store.db);
  return toSettlement(await requireSettlement(ctx.store.db, ctx, world.idSalt, ref), world.idSalt);
}
async function listSettlements2(ctx, query = {}) {
  const q2 = validateSettlementListQuery({ status: query.status, period_month: query.period_month });
  const world = await readWorld(ctx.store.db);
  const rows = await listSettlements(ctx.store.db, ctx.clientId, { status: q2.status, period: q2.period_month });
  return { data: rows.map((r) => toSettlement(r, world.idSalt)), next_after: null };
}
async function markSettlementPaid(ctx, ref, options = {}) {
  const { reference: given } = validateMarkPaidRequest(options.reference === void 0 ? {} : { reference: options.reference });
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const row = await requireSettlement(trx, ctx, world.idSalt, ref);
    checkMarkPaid(stateOf(row));
    const paidReference = given ?? row.payment_reference;
    const now = stamp(world.today, ctx.now());
    const set = { status: "paid", paid_on: world.today, paid_reference: paidReference, updated_at: now };
    await updateSettlement(trx, ctx.clientId, row.id, set);
    await insertSettlementEvent(trx, {
      client_id: ctx.clientId,
      settlement_id: row.id,
      event: "paid",
      status: "paid",
      on_date: world.today,
      at: now,
      detail: paidReference
    });
    return toSettlement({ ...row, ...set }, world.idSalt);
  });
}
async function disputeSettlement(ctx, ref, reason) {
  const { reason: text } = validateDisputeRequest({ reason });
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const row = await requireSettlement(trx, ctx, world.idSalt, ref);
    checkDispute(stateOf(row), world.today);
    const now = stamp(world.today, ctx.now());
    const set = { status: "disputed", disputed_on: world.today, dispute_reason: text, updated_at: now };
    await updateSettlement(trx, ctx.clientId, row.id, set);
    await insertSettlementEvent(trx, {
      client_id: ctx.clientId,
      settlement_id: row.id,
      event: "disputed",
      status: "disputed",
      on_date: world.today,
      at: now,
      detail: text
    });
    return toSettlement({ ...row, ...set }, world.idSalt);
  });
}
var SETTLEMENT_LINE_COLUMNS = [
  "settlement_number",
  "policy_number",
  "customer_id",
  "external_customer_ref",
  "product_code",
  "collection_amount_collected",
  "distribution_fee",
  "collections_fee",
  "total_fees",
  "vat",
  "net_amount"
];
async function exportSettlement(ctx, ref, options = {}) {
  const world = await readWorld(ctx.store.db);
  const row = await requireSettlement(ctx.store.db, ctx, world.idSalt, ref);
  if (options.lines) {
    return { filename: `${row.settlement_number}-lines.csv`, contentType: CSV_CONTENT_TYPE, body: statementLines(ctx, row) };
  }
  const s = toSettlement(row, world.idSalt);
  const cells = SETTLEMENT_EXPORT_COLUMNS.map((c) => {
    const v = s[c];
    return typeof v === "number" ? formatCents(v) : v;
  });
  const body = csvRow(SETTLEMENT_EXPORT_COLUMNS) + csvRow(cells);
  return { filename: `${row.settlement_number}.csv`, contentType: CSV_CONTENT_TYPE, body: once(body) };
}
async function* once(text) {
  yield text;
}
async function* statementLines(ctx, s) {
  const counts2 = new WeightTable();
  let collected = 0;
  let lines = 0;
  for await (const batch of streamCollectedCounts(ctx.store, ctx.clientId, s.period_month)) {
    for (const [amount, count] of batch) {
      counts2.push(amount, count);
      collected += amount * count;
      lines += count;
    }
  }
  if (collected !== s.total_collections || lines !== s.collections_count) {
    throw new PremiaError("INTERNAL", `The collections of ${s.period_month} no longer add up to settlement ${s.settlement_number} (${plural(lines, "collection")}, ${formatCents(collected)} collected; the statement has ${s.collections_count} and ${formatCents(s.total_collections)}). The lines cannot be reconciled; report this to the operator.`);
  }
  const splitter = new StatementSplitter({ ...s, net_amount: s.period_net }, counts2);
  const number = csvCell(s.settlement_number);
  let chunk = csvRow(SETTLEMENT_LINE_COLUMNS);
  let written = 0;
  let writtenCollected = 0;
  for await (const rows of streamLineRows(ctx.store, ctx.clientId, s.period_month)) {
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      const amount = r[4];
      written++;
      writtenCollected += amount;
      const share = splitter.next(amount);
      chunk += number + "," + csvCell(r[0]) + "," + csvCell(r[1]) + "," + csvCell(r[2]) + "," + csvCell(r[3]) + "," + formatCents(amount) + "," + formatCents(share.distribution_fee) + "," + formatCents(share.collections_fee) + "," + formatCents(share.total_fees) + "," + formatCents(share.vat) + "," + formatCents(share.net_amount) + "\n";
    }
    if (chunk.length >= 1 << 16) {
      yield chunk;
      chunk = "";
    }
  }
  if (written !== lines || writtenCollected !== collected) {
    throw new PremiaError("INTERNAL", `The collections of ${s.period_month} changed while the lines of ${s.settlement_number} were written; export again.`);
  }
  yield chunk;
}

// dist/backend/local/previews.js
async function previewAdvance(ctx, target) {
  const db = ctx.store.db;
  const world = await readWorld(db);
  const to = resolveAdvanceTarget(world.today, target);
  const periods = periodsClosedBetween(world.today, to);
  const counts2 = /* @__PURE__ */ new Map();
  for (const r of await periodClosings(db, ctx.clientId, periods)) {
    counts2.set(r.period_month, {
      period_month: r.period_month,
      last_day: lastDay(r.period_month),
      collections: r.collections,
      open: r.open,
      nothing_collected: r.nothing_collected,
      amount_remaining: r.amount_remaining
    });
  }
  return {
    from: world.today,
    to,
    days: daysBetween(world.today, to),
    locked: world.locked,
    periods_closed: periods.map((p) => counts2.get(p) ?? { period_month: p, last_day: lastDay(p), collections: 0, open: 0, nothing_collected: 0, amount_remaining: asCents(0) }),
    planned_debits: await plannedDebits(db, ctx.clientId, world.today, to, null)
  };
}
async function previewSettlement(ctx, period) {
  const { id: _id, created_at: _created, ...statement } = await createSettlement({ ...ctx, store: rollingBack(ctx.store) }, period);
  return statement;
}
var RolledBack = class extends Error {
  value;
  constructor(value) {
    super("rolled back");
    this.value = value;
  }
};
function rollingBack(store) {
  const transaction = async (fn) => {
    try {
      await store.transaction(async (trx) => {
        throw new RolledBack(await fn(trx));
      });
    } catch (e) {
      if (e instanceof RolledBack)
        return e.value;
      throw e;
    }
    throw new Error("unreachable: a rolled-back transaction returned");
  };
  return Object.create(store, { transaction: { value: transaction } });
}
async function previewCancellation(ctx, ref) {
  const db = ctx.store.db;
  const world = await readWorld(db);
  const policy = await findPolicyByRef(db, ctx.clientId, world.idSalt, ref);
  if (!policy)
    throw notFound("Policy", ref);
  const rows = await liveCollectionsOfPolicy(db, ctx.clientId, policy.id, firstOpenPeriod(world.today));
  return {
    policy_number: policy.policy_number,
    customer_id: policy.customer_id,
    status: policy.status,
    collection_amount: policy.collection_amount,
    open_collections: rows.map((r) => ({ period_month: r.period_month, amount_due: r.amount_due, amount_collected: r.amount_collected, status: r.status })),
    planned_debits: await plannedDebits(db, ctx.clientId, world.today, null, new Set(rows.map((r) => r.id)))
  };
}
async function plannedDebits(db, clientId, today, to, only) {
  const none = { count: 0, amount: asCents(0), first_date: null, last_date: null };
  if (to !== null && to <= today || only?.size === 0)
    return none;
  const todayDay = dayNumber(today);
  const toDay = to === null ? Number.MAX_SAFE_INTEGER : dayNumber(to);
  const plans = [];
  for (const p of await clientSubmittedDebits(db, clientId, addDays(today, -1 - Math.max(2, LEAD_DAYS)))) {
    if (p.day > todayDay && p.day <= toDay && (only === null || only.has(p.collection)))
      plans.push(p);
  }
  if (plans.length === 0)
    return none;
  const owed = /* @__PURE__ */ new Map();
  for (const r of await debitStates(db, [...new Set(plans.map((p) => p.collection))])) {
    const blocked = r.status === "CANCELLED" || r.policy_status !== "active" || r.last_failure_reason !== null && !isRetryable(r.last_failure_reason);
    if (!blocked)
      owed.set(r.id, r.amount_due - r.amount_collected);
  }
  plans.sort((a, b) => a.day - b.day || a.collection - b.collection);
  const out = { ...none };
  for (const p of plans) {
    const left = owed.get(p.collection) ?? 0;
    const amount = Math.min(p.amount, left);
    if (amount <= 0)
      continue;
    owed.set(p.collection, left - amount);
    out.count++;
    out.amount = asCents(out.amount + amount);
    out.first_date ??= fromDayNumber(p.day);
    out.last_date = fromDayNumber(p.day);
  }
  return out;
}

// dist/backend/local/policy-import.js
import { existsSync as existsSync4 } from "node:fs";
import { fileURLToPath as fileURLToPath3 } from "node:url";
import { Worker as Worker3 } from "node:worker_threads";

// dist/backend/local/policy-rows.js
var POLICY_CSV_HEADER = ["customer_id", "external_customer_ref", "policy_number", "product_code", "collection_amount"];
var OFFSETS_PER_ROW = 5;
var PolicyRowParser = class {
  fileName;
  onBatch;
  batchRows;
  reader;
  header = null;
  rowsRead = 0;
  /** Per valid row, its fields joined by commas; `at` is where the next row's text starts. */
  texts = [];
  at = 0;
  commas = new Int32Array(4);
  offsets;
  amounts;
  lines;
  count = 0;
  errors = [];
  failed = 0;
  constructor(fileName, onBatch, batchRows = 4096) {
    this.fileName = fileName;
    this.onBatch = onBatch;
    this.batchRows = batchRows;
    this.offsets = new Int32Array(batchRows * OFFSETS_PER_ROW);
    this.amounts = new Int32Array(batchRows);
    this.lines = new Int32Array(batchRows);
    this.reader = new CsvReader({
      onRecord: (fields, line, problem) => this.onRecord(fields, line, problem),
      onPlainLine: (line, lineNo) => this.onPlainLine(line, lineNo)
    });
  }
  get bytesRead() {
    return this.reader.bytesIn;
  }
  /** Take in the next piece of the file. Throws INVALID_FILE when it is not a policy CSV. */
  push(chunk) {
    this.guard(() => this.reader.push(chunk));
  }
  /** The file is over: check it was whole and hand over the last batch. */
  end() {
    this.guard(() => this.reader.end());
    if (this.header === null)
      throw invalidFile(this.fileName, "the file is empty; expected a header line and policy rows");
    this.flush();
  }
  guard(read2) {
    try {
      read2();
    } catch (e) {
      if (e instanceof CsvFormatError)
        throw invalidFile(this.fileName, e.message);
      throw e;
    }
  }
  flush() {
    if (this.count === 0 && this.failed === 0 && this.errors.length === 0)
      return;
    const n = this.count;
    this.onBatch({
      count: n,
      bytes: asciiBytes(this.texts.join("")),
      offsets: this.offsets.slice(0, n * OFFSETS_PER_ROW),
      amounts: this.amounts.slice(0, n),
      lines: this.lines.slice(0, n),
      errors: this.errors,
      failed: this.failed,
      rowsRead: this.rowsRead,
      bytesRead: this.reader.bytesIn
    });
    this.texts = [];
    this.at = 0;
    this.count = 0;
    this.errors = [];
    this.failed = 0;
  }
  onRecord(fields, line, problem) {
    if (this.header === null) {
      this.header = fields.map((f2) => trimCell(f2));
      const wrong = headerProblem(this.header);
      if (wrong)
        throw invalidFile(this.fileName, wrong);
      return;
    }
    this.rowsRead++;
    const rowErrors = validateRow(fields, line, problem);
    if (rowErrors !== null) {
      this.failed++;
      for (const e of rowErrors)
        this.errors.push(e);
      return;
    }
    const policyNumber = trimCell(fields[2]);
    const customerId = trimCell(fields[0]);
    const externalRef = trimCell(fields[1]);
    const productCode = trimCell(fields[3]);
    const amount = trimCell(fields[4]);
    const c1 = customerId.length;
    const c2 = c1 + 1 + externalRef.length;
    const c3 = c2 + 1 + policyNumber.length;
    const c4 = c3 + 1 + productCode.length;
    this.add(`${customerId},${externalRef},${policyNumber},${productCode},${amount}`, c1, c2, c3, c4, parsePremium(amount), line);
  }
  /** A valid row: its text, the positions of its four commas in it, its cents and line. */
  add(text, c1, c2, c3, c4, cents, line) {
    const o = this.count * OFFSETS_PER_ROW;
    const at = this.at;
    this.offsets[o] = at;
    this.offsets[o + 1] = at + c1;
    this.offsets[o + 2] = at + c2;
    this.offsets[o + 3] = at + c3;
    this.offsets[o + 4] = at + c4;
    this.texts.push(text);
    this.at = at + text.length;
    this.amounts[this.count] = cents;
    this.lines[this.count] = line;
    if (++this.count === this.batchRows)
      this.flush();
  }
  /**
   * The common row, checked in one pass over its characters without splitting it: five plain
   * fields, each valid as it stands. Anything else (spaces to trim, quotes, a bad field, the
   * header) is left to onRecord, which words the problem.
   */
  onPlainLine(line, lineNo) {
    if (this.header === null)
      return false;
    const n = line.length;
    const commas = this.commas;
    let start = 0;
    for (let field = 0; field < 4; field++) {
      const end = line.indexOf(",", start);
      if (end === -1)
        return false;
      commas[field] = end;
      const width = end - start;
      const mask = field === 3 ? PRODUCT_CODE_CHAR : IDENTIFIER_CHAR;
      if (width === 0 || width > (field === 3 ? PRODUCT_CODE_MAX : IDENTIFIER_MAX) || line.charCodeAt(start) === 45)
        return false;
      for (let i = start; i < end; i++) {
        const c = line.charCodeAt(i);
        if (c >= 128 || (CHAR_CLASS[c] & mask) === 0)
          return false;
      }
      start = end + 1;
    }
    const cents = plainPremiumCents(line, start, n);
    if (cents < 0)
      return false;
    this.rowsRead++;
    this.add(line, commas[0], commas[1], commas[2], commas[3], cents, lineNo);
    return true;
  }
};
function asciiBytes(text) {
  const bytes = Buffer.alloc(text.length);
  bytes.write(text, "latin1");
  return bytes;
}
var CHAR_CLASS = ASCII_CHAR_CLASS;
function headerProblem(found) {
  const expected = POLICY_CSV_HEADER.join(",");
  const same = found.length === POLICY_CSV_HEADER.length && found.every((f2, i) => f2.toLowerCase() === POLICY_CSV_HEADER[i]);
  if (same)
    return null;
  const foundText = printable(found.join(","), 200);
  const sameSet = found.length === POLICY_CSV_HEADER.length && [...found].map((f2) => f2.toLowerCase()).sort().join(",") === [...POLICY_CSV_HEADER].sort().join(",");
  const hint = sameSet ? " The columns are right but in the wrong order." : bareCrHint(found) ? ` ${CR_LINE_ENDS}` : "";
  return `line 1: the header must be '${expected}'; found '${foundText}'.${hint}`;
}
function validateRow(fields, line, problem) {
  if (fields.length !== POLICY_CSV_HEADER.length) {
    const policyNumber2 = fields.length > 2 ? numberForError(trimCell(fields[2])) : null;
    return [
      {
        row: line,
        policy_number: policyNumber2,
        field: "row",
        code: "WRONG_FIELD_COUNT",
        message: `expected ${POLICY_CSV_HEADER.length} fields, found ${fields.length}${bareCrHint(fields)}`
      }
    ];
  }
  const customerId = trimCell(fields[0]);
  const externalRef = trimCell(fields[1]);
  const policyNumber = trimCell(fields[2]);
  const productCode = trimCell(fields[3]);
  const amountText = trimCell(fields[4]);
  const p1 = checkIdentifier(customerId, "customer_id");
  const p2 = checkIdentifier(externalRef, "external_customer_ref");
  const p3 = checkIdentifier(policyNumber, "policy_number");
  const p4 = checkProductCode(productCode);
  const amount = parsePremium(amountText);
  if (p1 === null && p2 === null && p3 === null && p4 === null && typeof amount === "number" && problem === null)
    return null;
  const number = numberForError(policyNumber);
  const out = [];
  const add = (field, code, message) => out.push({ row: line, policy_number: number, field, code, message });
  if (problem !== null)
    add("row", "MALFORMED_ROW", problem);
  if (p1)
    add("customer_id", p1.code, p1.message);
  if (p2)
    add("external_customer_ref", p2.code, p2.message);
  if (p3)
    add("policy_number", p3.code, p3.message);
  if (p4)
    add("product_code", p4.code, p4.message);
  if (typeof amount !== "number")
    add("collection_amount", amount.code, `collection_amount ${amount.message}`);
  return out;
}
function numberForError(value) {
  if (value === "")
    return null;
  return printable(value, 64);
}
function invalidFile(name, reason) {
  const sentence = /[.!?]$/.test(reason) ? reason : `${reason}.`;
  return new PremiaError("INVALID_FILE", `${name} is not a policy CSV file: ${sentence} Nothing was imported.`, {
    details: [{ field: "file", code: "INVALID_FILE", message: reason }]
  });
}

// dist/backend/local/policy-import.js
var PROGRESS_EVERY = 2e4;
var INLINE_MAX_BYTES = 4 << 20;
var CHUNK_BYTES = 1 << 20;
var CHUNKS_IN_FLIGHT = 4;
async function importPolicies(ctx, file, options = {}) {
  try {
    return await inPolicyImport(ctx.store, ctx.clientId, async (session) => {
      const sink = new BatchSink(options);
      sink.into(session.sink(stamp(session.today, ctx.now()), (d) => sink.duplicate(d)));
      await read(file, sink, options.signal);
      return sink.result();
    });
  } catch (e) {
    file.stream.destroy?.();
    throw e;
  }
}
var BatchSink = class {
  options;
  failed = 0;
  rows = 0;
  bytes = 0;
  nextProgress = PROGRESS_EVERY;
  errors = new RowErrors();
  store;
  constructor(options) {
    this.options = options;
  }
  into(store) {
    this.store = store;
  }
  take(batch) {
    for (const e of batch.errors)
      this.errors.push(e);
    this.failed += batch.failed;
    this.store.insert(batch);
    this.read(batch.rowsRead, batch.bytesRead);
  }
  /** Resolves once the store can take more batches (undefined: at once). */
  ready() {
    return this.store.ready();
  }
  duplicate({ line, policyNumber: number, firstLine }) {
    this.failed++;
    this.errors.push(firstLine === null ? {
      row: line,
      policy_number: number,
      field: "policy_number",
      code: "DUPLICATE_POLICY",
      message: `policy ${number} already exists; update it instead of importing it again`
    } : {
      row: line,
      policy_number: number,
      field: "policy_number",
      code: "DUPLICATE_IN_FILE",
      message: `policy ${number} already appears on row ${firstLine} of this file`
    });
  }
  /** Progress: rows read so far and bytes of the file taken in. */
  read(rows, bytes) {
    this.rows = Math.max(this.rows, rows);
    this.bytes = Math.max(this.bytes, bytes);
    if (this.options.onProgress && this.rows >= this.nextProgress) {
      this.options.onProgress({ bytes: this.bytes, rows: this.rows });
      this.nextProgress = this.rows + PROGRESS_EVERY;
    }
  }
  async result() {
    const imported = await this.store.finish();
    this.options.onProgress?.({ bytes: this.bytes, rows: this.rows });
    return { imported, failed: this.failed, ...this.errors.result() };
  }
};
async function read(file, sink, signal) {
  const url = workerModule2();
  if (url !== null && file.size !== void 0 && file.size > INLINE_MAX_BYTES)
    return readInWorker([], file.stream, file.name, sink, url, signal);
  const iterator = file.stream[Symbol.asyncIterator]();
  const head = [];
  let size = 0;
  let ended = false;
  try {
    while (url !== null && size <= INLINE_MAX_BYTES) {
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        break;
      }
      if (signal?.aborted)
        throw importStopped();
      const piece = typeof next.value === "string" ? Buffer.from(next.value) : next.value;
      head.push(piece);
      size += piece.byteLength;
    }
    const rest = {
      [Symbol.asyncIterator]: () => ({
        next: () => ended ? Promise.resolve({ done: true, value: void 0 }) : iterator.next(),
        return: async () => {
          await iterator.return?.();
          return { done: true, value: void 0 };
        }
      })
    };
    if (url === null || ended)
      await readInline(head, rest, file.name, sink, signal);
    else
      await readInWorker(head, rest, file.name, sink, url, signal);
  } catch (e) {
    await iterator.return?.().catch(() => void 0);
    throw e;
  }
}
async function readInline(head, rest, name, sink, signal) {
  const parser = new PolicyRowParser(name, (batch) => sink.take(batch));
  for (const chunk of head)
    parser.push(chunk);
  sink.read(0, parser.bytesRead);
  for await (const chunk of rest) {
    if (signal?.aborted)
      throw importStopped();
    parser.push(chunk);
    sink.read(0, parser.bytesRead);
    await sink.ready();
  }
  parser.end();
  sink.read(0, parser.bytesRead);
}
async function readInWorker(head, rest, name, sink, url, signal) {
  const worker = new Worker3(url, { workerData: { fileName: name } });
  let failure = null;
  let finished = false;
  let inFlight = 0;
  let wake2 = null;
  const poke = () => {
    const w = wake2;
    wake2 = null;
    w?.();
  };
  const fail = (e) => {
    if (failure === null)
      failure = e;
    poke();
  };
  worker.on("message", (m) => {
    if (failure !== null)
      return;
    try {
      if (m.type === "batch")
        sink.take(m.batch);
      else if (m.type === "ack")
        inFlight--;
      else if (m.type === "done")
        finished = true;
      else
        fail(m.error.premia ? new PremiaError(m.error.code, m.error.message, { details: m.error.details }) : new Error(`policy import: ${m.error.message}`));
    } catch (e) {
      fail(e);
    }
    poke();
  });
  worker.on("error", (e) => fail(e));
  worker.on("exit", () => {
    if (!finished)
      fail(new Error("policy import: the reading thread stopped before the end of the file"));
  });
  const onAbort = () => fail(importStopped());
  if (signal?.aborted)
    onAbort();
  signal?.addEventListener("abort", onAbort, { once: true });
  const until = async (ready) => {
    while (failure === null && !ready())
      await new Promise((resolve2) => wake2 = resolve2);
  };
  const send = async (pieces, size) => {
    const data = new Uint8Array(size);
    let at = 0;
    for (const p of pieces) {
      data.set(p, at);
      at += p.byteLength;
    }
    inFlight++;
    worker.postMessage({ type: "chunk", data }, [data.buffer]);
    await until(() => inFlight < CHUNKS_IN_FLIGHT);
    await sink.ready();
  };
  try {
    let pieces = [];
    let size = 0;
    for (const piece of head) {
      pieces.push(piece);
      size += piece.byteLength;
    }
    for await (const chunk of rest) {
      const piece = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      pieces.push(piece);
      size += piece.byteLength;
      if (size >= CHUNK_BYTES) {
        await send(pieces, size);
        pieces = [];
        size = 0;
      }
      if (failure !== null)
        break;
    }
    if (failure === null) {
      if (size > 0)
        await send(pieces, size);
      worker.postMessage({ type: "end" });
      await until(() => finished);
    }
    if (failure !== null)
      throw failure;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    finished = true;
    await worker.terminate();
  }
}
function workerModule2() {
  if (process.env.PREMIA_IMPORT_THREADS === "0")
    return null;
  const here = import.meta.url;
  const url = here.endsWith(".ts") ? new URL("../../../dist/backend/local/policy-import-worker.js", here) : new URL("./policy-import-worker.js", here);
  return existsSync4(fileURLToPath3(url)) ? url : null;
}

// dist/store/copy.js
import { resolve } from "node:path";
var MONEY_COLUMNS = {
  policies: ["collection_amount"],
  policy_amount_changes: ["old_amount", "new_amount"],
  collections: ["amount_due", "amount_collected"],
  attempts: ["amount"],
  bank_transactions: ["amount"],
  bank_snapshots: ["balance"],
  settlements: ["total_collections", "distribution_fee", "collections_fee", "total_fees", "vat", "period_net", "previously_paid"]
};
var SKIPPED = /* @__PURE__ */ new Set([MIGRATION_TABLE, MARKER_TABLE, "sqlite_sequence", "sqlite_stat1", "engine_inputs"]);
var q = (id) => `"${id.replace(/"/g, '""')}"`;
var Mismatch = class extends Error {
  tables;
  constructor(tables) {
    super("the copy differs from its source");
    this.tables = tables;
  }
};
async function copyStore(options) {
  const same = (a, b) => {
    if (isPostgresUrl(a) && isPostgresUrl(b)) {
      const place = (url) => {
        const c = pgSettings(url).client;
        return `${c.host ?? "localhost"}:${c.port ?? 5432}/${c.database}`;
      };
      return place(a) === place(b);
    }
    return !isPostgresUrl(a) && !isPostgresUrl(b) && a !== ":memory:" && resolve(a) === resolve(b);
  };
  if (same(options.from, options.to)) {
    throw new PremiaError("USAGE_ERROR", "--from and --to name the same store: copy it to another one.");
  }
  const source = await openStore({ path: options.from, create: false });
  try {
    const target = await openStore({ path: options.to, create: true });
    try {
      return await copyBetween(source, target, options);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
async function copyBetween(source, target, options) {
  const tables = await shapes(target);
  const sourceTables = new Map((await tableColumns(source)).map((t) => [t.name, t]));
  for (const t of tables) {
    const from = sourceTables.get(t.name);
    const missing = from === void 0 ? ["the table"] : t.columns.filter((c) => !from.columns.includes(c));
    if (missing.length > 0) {
      throw new PremiaError("VALIDATION_ERROR", `${source.path} has no ${missing.join(", ")} of table ${t.name}: is it a premia store of another version?`);
    }
    t.key = from.key;
  }
  const held = (await inTarget(target, (w) => w.counts(tables), false)).filter((c) => c.rows > 0);
  if (held.length > 0) {
    if (!options.replace)
      throw notEmpty(target.path, held);
    await options.confirm?.({ target: target.path, tables: held });
  }
  try {
    return await inSource(source, async (reader) => {
      const from = /* @__PURE__ */ new Map();
      for (const t of tables)
        from.set(t.name, await reader.totals(t));
      return inTarget(target, async (writer) => {
        const now = (await writer.counts(tables)).filter((c) => c.rows > 0);
        if (JSON.stringify(now) !== JSON.stringify(held)) {
          throw new PremiaError("CONFLICT", `${target.path} changed while the copy was starting (it now holds ${heldText(now)}); nothing was copied. Run the copy again.`);
        }
        if (held.length > 0)
          await writer.clear(tables);
        for (const t of tables) {
          const n = await writer.write(t, reader.rows(t));
          options.onTable?.(t.name, n);
        }
        await writer.lineUpIds();
        const report = [];
        for (const t of tables) {
          const a = from.get(t.name);
          const b = await writer.totals(t);
          report.push({ table: t.name, from: a, to: b, same: a.rows === b.rows && a.money === b.money });
        }
        if (!report.every((r) => r.same))
          throw new Mismatch(report);
        return { from: source.path, to: target.path, tables: report, identical: true, replaced: held };
      }, true);
    });
  } catch (e) {
    if (e instanceof Mismatch)
      return { from: source.path, to: target.path, tables: e.tables, identical: false, replaced: [] };
    throw e;
  }
}
function heldText(held) {
  return held.length === 0 ? "no rows" : held.map((h) => `${h.table} (${String(h.rows).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} ${h.rows === 1 ? "row" : "rows"})`).join(", ");
}
function notEmpty(display, held) {
  return new PremiaError("CONFLICT", `The target ${display} is not empty: it holds ${heldText(held)}. Nothing was copied. Give --yes to replace all of it with the copy, or copy into an empty database.`);
}
async function tableColumns(store) {
  if (store.kind === "sqlite") {
    return store.withConnection(async (raw) => {
      const names = raw.prepare(`select name from sqlite_master where type = 'table' order by name`).all().map((r) => r.name);
      return names.filter((n) => !SKIPPED.has(n)).map((name) => {
        const info = raw.prepare(`select name, pk from pragma_table_info(?) order by cid`).all(name);
        const key = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
        return { name, columns: info.map((c) => c.name), key, money: [] };
      });
    });
  }
  const rows = await store.readUnit(async (unit) => (await unit.client.query(`select c.relname as "table", a.attname as "column",
                array_position(i.indkey::int2[], a.attnum) as "key"
           from pg_class c
           join pg_namespace n on n.oid = c.relnamespace
           join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
           left join pg_index i on i.indrelid = c.oid and i.indisprimary
          where n.nspname = current_schema() and c.relkind = 'r'
          order by c.relname, a.attnum`)).rows);
  const out = /* @__PURE__ */ new Map();
  for (const r of rows) {
    if (SKIPPED.has(r.table))
      continue;
    let t = out.get(r.table);
    if (!t)
      out.set(r.table, t = { name: r.table, columns: [], key: [], money: [], keyAt: /* @__PURE__ */ new Map() });
    t.columns.push(r.column);
    if (r.key !== null)
      t.keyAt.set(r.column, Number(r.key));
  }
  return [...out.values()].map((t) => ({ name: t.name, columns: t.columns, key: [...t.keyAt].sort((a, b) => a[1] - b[1]).map(([c]) => c), money: [] }));
}
async function shapes(store) {
  const tables = await tableColumns(store);
  const edges = await foreignKeys(store);
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered = [];
  const state = /* @__PURE__ */ new Map();
  const visit2 = (name) => {
    if (state.get(name) !== void 0 || !byName.has(name))
      return;
    state.set(name, "visiting");
    for (const e of edges)
      if (e.child === name && e.parent !== name)
        visit2(e.parent);
    state.set(name, "done");
    ordered.push(byName.get(name));
  };
  for (const t of tables)
    visit2(t.name);
  for (const t of ordered)
    t.money = (MONEY_COLUMNS[t.name] ?? []).filter((c) => t.columns.includes(c));
  return ordered;
}
async function foreignKeys(store) {
  if (store.kind === "sqlite") {
    return store.withConnection(async (raw) => raw.prepare(`select m.name as child, f."table" as parent from sqlite_master m, pragma_foreign_key_list(m.name) f where m.type = 'table'`).all());
  }
  return store.readUnit(async (unit) => (await unit.client.query(`select cc.relname as child, pc.relname as parent
             from pg_constraint c join pg_namespace n on n.oid = c.connamespace
             join pg_class cc on cc.oid = c.conrelid join pg_class pc on pc.oid = c.confrelid
            where c.contype = 'f' and n.nspname = current_schema()`)).rows);
}
var BATCH = 5e3;
function totalsSql(t, pg) {
  const text = (e) => pg ? `(${e})::text` : `cast(${e} as text)`;
  const money = t.money.length === 0 ? "null" : text(t.money.map((c) => `coalesce(sum(${q(c)}), 0)`).join(" + "));
  return `select ${text("count(*)")} as rows, ${money} as money from ${q(t.name)}`;
}
function selectSql(t) {
  const order = t.key.length > 0 ? ` order by ${t.key.map(q).join(", ")}` : "";
  return `select ${t.columns.map(q).join(", ")} from ${q(t.name)}${order}`;
}
async function inSource(store, fn) {
  if (store.kind === "postgres")
    return store.readUnit((unit) => fn(pgReader(unit)));
  return store.withConnection(async (raw) => {
    raw.exec("begin");
    try {
      return await fn(sqliteReader(raw));
    } finally {
      raw.exec("rollback");
    }
  });
}
function sqliteReader(raw) {
  return {
    async totals(t) {
      const r = raw.prepare(totalsSql(t, false)).get();
      return { table: t.name, rows: r.rows, money: r.money };
    },
    async *rows(t) {
      const stmt = raw.prepare(selectSql(t)).raw(true).safeIntegers(true);
      let batch = [];
      for (const row of stmt.iterate()) {
        batch.push(row);
        if (batch.length >= BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0)
        yield batch;
    }
  };
}
function pgReader(unit) {
  return {
    async totals(t) {
      const r = (await unit.client.query(totalsSql(t, true))).rows[0];
      return { table: t.name, rows: r.rows, money: r.money };
    },
    rows: (t) => unit.rows(selectSql(t), [], { raw: true, batch: BATCH })
  };
}
async function inTarget(store, fn, commit) {
  if (store.kind === "postgres") {
    if (!commit)
      return store.readUnit((unit) => fn(pgWriter(unit)));
    return store.writeUnit((unit) => fn(pgWriter(unit)));
  }
  return store.withConnection(async (raw) => {
    raw.exec(commit ? "begin immediate" : "begin");
    let done = false;
    try {
      const out = await fn(sqliteWriter(raw));
      if (commit) {
        raw.exec("commit");
        done = true;
      }
      return out;
    } finally {
      if (!done)
        raw.exec("rollback");
    }
  });
}
async function counts(tables, count) {
  const out = [];
  for (const t of tables)
    out.push({ table: t.name, rows: await count(`select count(*) as n from ${q(t.name)}`) });
  return out;
}
function csvField(v) {
  if (v === null || v === void 0)
    return "";
  if (typeof v === "string")
    return `"${v.replace(/"/g, '""')}"`;
  if (typeof v === "number" || typeof v === "bigint")
    return String(v);
  if (v instanceof Uint8Array)
    return `\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex")}`;
  throw new Error(`cannot copy a value of type ${typeof v}`);
}
function pgWriter(unit) {
  const client = unit.client;
  return {
    counts: (tables) => counts(tables, async (s) => Number((await client.query(s)).rows[0].n)),
    async clear(tables) {
      await client.query(`truncate table ${tables.map((t) => q(t.name)).join(", ")}`);
    },
    async write(t, rows) {
      const copy = new CopyIn(client, `copy ${q(t.name)} (${t.columns.map(q).join(", ")}) from stdin with (format csv)`);
      let n = 0;
      for await (const batch of rows) {
        let text = "";
        for (const row of batch)
          text += `${row.map(csvField).join(",")}
`;
        copy.write(text);
        n += batch.length;
        await copy.ready();
      }
      await copy.end();
      return n;
    },
    async lineUpIds() {
      const statement = await idSyncSql(unit.db);
      if (statement !== null)
        await client.query(statement);
    },
    async totals(t) {
      const r = (await client.query(totalsSql(t, true))).rows[0];
      return { table: t.name, rows: r.rows, money: r.money };
    }
  };
}
function sqliteWriter(raw) {
  return {
    counts: (tables) => counts(tables, async (s) => Number(raw.prepare(s).get().n)),
    async clear(tables) {
      for (const t of [...tables].reverse())
        raw.prepare(`delete from ${q(t.name)}`).run();
    },
    async write(t, rows) {
      const insert = raw.prepare(`insert into ${q(t.name)} (${t.columns.map(q).join(", ")}) values (${t.columns.map(() => "?").join(", ")})`);
      let n = 0;
      for await (const batch of rows) {
        for (const row of batch)
          insert.run(row);
        n += batch.length;
      }
      return n;
    },
    async lineUpIds() {
    },
    async totals(t) {
      const r = raw.prepare(totalsSql(t, false)).get();
      return { table: t.name, rows: r.rows, money: r.money };
    }
  };
}

// dist/backend/local/index.js
async function openLocalBackend(options) {
  const now = options.now ?? (() => /* @__PURE__ */ new Date());
  const store = await openStore({ path: options.path, create: options.create });
  try {
    await initWorld(store, { realToday: now().toISOString().slice(0, 10), seed: options.seed });
  } catch (e) {
    await store.close();
    throw e;
  }
  return new LocalBackend({ store, clientId: options.clientId ?? LOCAL_CLIENT_ID, now, bank: options.bank }, true);
}
var LocalBackend = class _LocalBackend {
  ownsStore;
  mode = "local";
  adminObject;
  ctx;
  constructor(ctx, ownsStore) {
    this.ownsStore = ownsStore;
    this.ctx = ctx.engine ? ctx : { ...ctx, engine: engineOptionsFromEnv(process.env) };
  }
  get store() {
    return this.ctx.store;
  }
  /** The operator's functions on this store: keys, clients, settings, idempotency records. */
  get admin() {
    this.adminObject ??= new LocalAdmin(this.ctx.store, this.ctx.now, this.ctx.bank !== void 0);
    return this.adminObject;
  }
  /**
   * The same store, acting for another client (the server makes one per request). `now`: another
   * wall clock (the server's job thread stamps with the request's). `ownsStore`: the new backend
   * closes the store, instead of this one (local mode's --as-client).
   */
  forClient(clientId, options = {}) {
    return new _LocalBackend({ ...this.ctx, clientId, now: options.now ?? this.ctx.now }, options.ownsStore === true);
  }
  async describe() {
    const client = await findClientById(this.store.db, this.ctx.clientId);
    return { mode: "local", db: this.store.path, client: client?.name ?? null };
  }
  // -- policies ------------------------------------------------------------------------------
  createPolicy(input) {
    return createPolicy(this.ctx, input);
  }
  importPolicies(file, options) {
    return importPolicies(this.ctx, file, options);
  }
  updatePolicy(ref, patch) {
    return updatePolicy(this.ctx, ref, patch, POLICY_HOOKS);
  }
  previewCancellation(ref) {
    return previewCancellation(this.ctx, ref);
  }
  getPolicy(ref) {
    return getPolicy(this.ctx, ref);
  }
  listPolicies(query) {
    return listPolicies2(this.ctx, query);
  }
  // -- clock and bank ------------------------------------------------------------------------
  async getClock() {
    const world = await readWorld(this.store.db);
    return { date: world.today, locked: world.locked, seed: world.seed };
  }
  async setClock(dateInput) {
    const { date } = validateClockSetRequest({ date: dateInput });
    return this.store.transaction(async (trx) => {
      const world = await readWorld(trx);
      if (world.locked) {
        throw new PremiaError("CLOCK_LOCKED", `The clock is at ${world.today} and a collections run exists, so it can no longer be set; move it forward with 'premia clock advance'.`);
      }
      const last = await latestPolicyChangeDay(trx);
      if (last !== null && date < last) {
        throw new PremiaError("CLOCK_BACKWARDS", `Policy changes were recorded on ${last} (premium or status); the clock cannot be set back before that day, or their history would run out of order.`);
      }
      await setMeta(trx, "clock_date", date);
      return { date, locked: false, seed: world.seed };
    });
  }
  advanceClock(target, options) {
    return advanceClock(this.ctx, target, options);
  }
  previewAdvance(target) {
    return previewAdvance(this.ctx, target);
  }
  seedBank(seed) {
    return seedBank(this.ctx, seed);
  }
  importBankTransactions(file, options) {
    return importBankTransactions(this.ctx, file, options);
  }
  showBankAccount(customerId) {
    return showBankAccount(this.ctx, customerId);
  }
  // -- collections ---------------------------------------------------------------------------
  executeCollections(input) {
    return executeCollections(this.ctx, input);
  }
  getCollection(id) {
    return getCollection(this.ctx, id);
  }
  listCollections(query) {
    return listCollections2(this.ctx, query);
  }
  exportAttempts(period, format) {
    return exportAttempts(this.ctx, period, format);
  }
  explainCollection(id) {
    return explainCollection(this.ctx, id);
  }
  getExecution(id) {
    return getExecution(this.ctx, id);
  }
  collectionsReport(period, format) {
    return collectionsReport(this.ctx, period, format);
  }
  // -- settlements ---------------------------------------------------------------------------
  createSettlement(period) {
    return createSettlement(this.ctx, period);
  }
  previewSettlement(period) {
    return previewSettlement(this.ctx, period);
  }
  getSettlement(ref) {
    return getSettlement(this.ctx, ref);
  }
  exportSettlement(ref, options) {
    return exportSettlement(this.ctx, ref, options);
  }
  listSettlements(query) {
    return listSettlements2(this.ctx, query);
  }
  markSettlementPaid(ref, options) {
    return markSettlementPaid(this.ctx, ref, options);
  }
  disputeSettlement(ref, reason) {
    return disputeSettlement(this.ctx, ref, reason);
  }
  async close() {
    if (this.ownsStore)
      await this.store.close();
  }
};
var POLICY_HOOKS = {
  async onStatusChange(trx, ctx, policy, _from, to, today) {
    if (to !== "cancelled")
      return;
    await cancelPolicyCollections(trx, ctx.clientId, policy.id, firstOpenPeriod(today));
  },
  async onAmountChange(trx, ctx, policy, effective, amount) {
    await repriceUnattempted(trx, ctx.clientId, policy.id, effective, amount);
  }
};

export {
  processIsAlive,
  copyStore,
  openLocalBackend,
  LocalBackend
};
