import {
  CopyIn
} from "./chunk-KIJGBPVL.js";
import {
  dayNumber,
  fromDayNumber,
  isIsoDate
} from "./chunk-CXYRJJKB.js";

// dist/domain/calendar.js
var months = /* @__PURE__ */ new Map();
function monthKey(day) {
  const d = new Date(day * 864e5);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth();
  return { key: year * 12 + month, year, month };
}
var DAY_BASE = -25567;
var DAY_SPAN = 73049;
var dayToMonth = new Array(DAY_SPAN);
function monthOf(day) {
  const slot = day - DAY_BASE;
  let info = slot >= 0 && slot < DAY_SPAN ? dayToMonth[slot] : void 0;
  if (info)
    return info;
  const { key, year, month } = monthKey(day);
  info = months.get(key);
  if (!info) {
    const first = Math.round(Date.UTC(year, month, 1) / 864e5);
    const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
    info = {
      period: fromDayNumber(first).slice(0, 7),
      index: key,
      firstDay: first,
      lastDay: first + daysInMonth - 1,
      daysInMonth
    };
    months.set(key, info);
  }
  if (slot >= 0 && slot < DAY_SPAN)
    dayToMonth[slot] = info;
  return info;
}
function monthAt(index) {
  const year = Math.floor(index / 12);
  return monthOf(Math.round(Date.UTC(year, index - 12 * year, 1) / 864e5));
}
function weekdayOf(day) {
  return ((day + 4) % 7 + 7) % 7;
}
var CALENDAR_BASES = ["za", "none"];
var DEFAULT_CALENDAR = "za";
function isCalendarBase(s) {
  return typeof s === "string" && CALENDAR_BASES.includes(s);
}
function easterSunday(year) {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = (h + l - 7 * m + 114) % 31 + 1;
  return Math.round(Date.UTC(year, month - 1, day) / 864e5);
}
var FIXED_HOLIDAYS = [
  [1, 1, "New Year's Day"],
  [3, 21, "Human Rights Day"],
  [4, 27, "Freedom Day"],
  [5, 1, "Workers' Day"],
  [6, 16, "Youth Day"],
  [8, 9, "National Women's Day"],
  [9, 24, "Heritage Day"],
  [12, 16, "Day of Reconciliation"],
  [12, 25, "Christmas Day"],
  [12, 26, "Day of Goodwill"]
];
var zaYears = /* @__PURE__ */ new Map();
function zaHolidays(year) {
  let map = zaYears.get(year);
  if (map)
    return map;
  map = /* @__PURE__ */ new Map();
  const easter = easterSunday(year);
  const named = [
    ...FIXED_HOLIDAYS.map(([m, d, name]) => [Math.round(Date.UTC(year, m - 1, d) / 864e5), name]),
    [easter - 2, "Good Friday"],
    [easter + 1, "Family Day"]
  ];
  named.sort((x, y) => x[0] - y[0]);
  for (const [day, name] of named)
    map.set(day, name);
  for (const [day, name] of named) {
    if (weekdayOf(day) !== 0)
      continue;
    let monday = day + 1;
    while (map.has(monday))
      monday++;
    map.set(monday, `${name} (observed)`);
  }
  zaYears.set(year, map);
  return map;
}
var PAY_BASE = 1900 * 12;
var PAY_SPAN = 200 * 12;
var Calendar = class {
  base;
  imported;
  /** Per day of 1900..2099: 0 not computed, 1 business day, 2 not a business day. */
  flags = new Uint8Array(DAY_SPAN);
  /** Where each month's paydays land, by month index − PAY_BASE (a dense array: read millions of times a month). */
  pays = new Array(PAY_SPAN).fill(null);
  importedDays;
  constructor(base, imported) {
    this.base = base;
    this.imported = imported;
    this.importedDays = new Map(imported.map((h) => [dayNumber(h.date), h.name]));
  }
  /** The calendar's name as shown: `za`, `none`, with "+ N imported dates" when there are some. */
  get label() {
    return this.imported.length === 0 ? this.base : `${this.base} + ${this.imported.length} imported date${this.imported.length === 1 ? "" : "s"}`;
  }
  /** The holiday on `day` (base or imported), or null (weekends are not holidays). */
  holidayOn(day) {
    const imported = this.importedDays.get(day);
    if (imported !== void 0)
      return { date: fromDayNumber(day), name: imported, source: "imported" };
    if (this.base === "za") {
      const name = zaHolidays(new Date(day * 864e5).getUTCFullYear()).get(day);
      if (name !== void 0)
        return { date: fromDayNumber(day), name, source: "za" };
    }
    return null;
  }
  /** The holidays of a year, in date order (imported ones included). */
  holidaysOf(year) {
    const first = Math.round(Date.UTC(year, 0, 1) / 864e5);
    const last = Math.round(Date.UTC(year, 11, 31) / 864e5);
    const out = [];
    for (let day = first; day <= last; day++) {
      const h = this.holidayOn(day);
      if (h)
        out.push(h);
    }
    return out;
  }
  isBusinessDay(day) {
    const slot = day - DAY_BASE;
    if (slot < 0 || slot >= DAY_SPAN)
      return this.compute(day);
    let f = this.flags[slot];
    if (f === 0)
      this.flags[slot] = f = this.compute(day) ? 1 : 2;
    return f === 1;
  }
  compute(day) {
    const w = weekdayOf(day);
    return w !== 0 && w !== 6 && this.holidayOn(day) === null;
  }
  /** The business day on or before `day`. */
  onOrBefore(day) {
    while (!this.isBusinessDay(day))
      day--;
    return day;
  }
  /** The business day on or after `day`. */
  onOrAfter(day) {
    while (!this.isBusinessDay(day))
      day++;
    return day;
  }
  /** Where the paydays of month `m` land. */
  payMonth(m) {
    const slot = m.index - PAY_BASE;
    let p = slot >= 0 && slot < PAY_SPAN ? this.pays[slot] : null;
    if (p)
      return p;
    const payDay = new Int32Array(32);
    for (let t = 1; t <= 31; t++)
      payDay[t] = this.onOrBefore(m.firstDay + Math.min(t, m.daysInMonth) - 1);
    p = { payDay, lastBusinessDay: this.onOrBefore(m.lastDay) };
    if (slot >= 0 && slot < PAY_SPAN)
      this.pays[slot] = p;
    return p;
  }
  /** The day a pay due on day `t` of the month containing `day` lands on. */
  payDayOf(day, t) {
    return this.payMonth(monthOf(day)).payDay[t];
  }
};
var calendars = /* @__PURE__ */ new Map();
function calendarOf(base, imported = []) {
  const sorted = [...imported].sort((a, b) => a.date < b.date ? -1 : a.date > b.date ? 1 : 0);
  const key = `${base}|${sorted.map((h) => h.date).join(",")}|${sorted.map((h) => h.name).join("")}`;
  let cal = calendars.get(key);
  if (!cal) {
    if (calendars.size > 64)
      calendars.clear();
    calendars.set(key, cal = new Calendar(base, sorted));
  }
  return cal;
}
var ZA_CALENDAR = calendarOf("za");
var NO_HOLIDAYS = calendarOf("none");
var CALENDAR_KEY = "calendar";
var IMPORTED_HOLIDAYS_KEY = "calendar.holidays";
function parseStoredHolidays(stored) {
  if (stored === void 0)
    return [];
  try {
    const rows = JSON.parse(stored);
    if (!Array.isArray(rows))
      return [];
    const out = [];
    for (const r of rows) {
      if (Array.isArray(r) && isIsoDate(r[0]) && typeof r[1] === "string")
        out.push({ date: r[0], name: r[1] });
    }
    return out;
  } catch {
    return [];
  }
}
function storedHolidaysText(holidays) {
  const sorted = [...holidays].sort((a, b) => a.date < b.date ? -1 : a.date > b.date ? 1 : 0);
  return JSON.stringify(sorted.map((h) => [h.date, h.name]));
}
function storedCalendar(base, holidays) {
  return calendarOf(isCalendarBase(base) ? base : DEFAULT_CALENDAR, parseStoredHolidays(holidays));
}

// dist/domain/customer.js
function customerKey(clientId, customerId) {
  return `${clientId}\0${customerId}`;
}

// dist/store/repos/pg-day.js
var running = /* @__PURE__ */ new WeakMap();
function dayUnitOf(store) {
  return running.get(store);
}
async function inDayUnit(store, unit, fn) {
  running.set(store, unit);
  try {
    return await fn();
  } finally {
    running.delete(store);
  }
}

// dist/store/repos/bank-pg.js
var BATCH = 4096;
var SNAPSHOT_ROWS = 5e3;
function onUnit(store, fn) {
  const day = dayUnitOf(store);
  return day ? fn(day) : store.readUnit(fn);
}
async function importedRows(unit, keys, only) {
  const out = /* @__PURE__ */ new Map();
  const where = only ? "where client_id = ? and customer_id = ?" : "";
  for await (const rows of unit.rows(`select client_id, customer_id, date, amount, description from bank_transactions ${where} order by client_id, customer_id, id`, only ? [only.clientId, only.customerId] : [], { raw: true, batch: BATCH })) {
    for (const [clientId, customerId, date, amount, description] of rows) {
      const key = customerKey(clientId, customerId);
      if (keys && !keys.has(key))
        continue;
      let list = out.get(key);
      if (!list)
        out.set(key, list = []);
      list.push({ day: dayNumber(date), amount, description });
    }
  }
  return out;
}
async function snapshots(unit, keys, notAfter) {
  const out = /* @__PURE__ */ new Map();
  for await (const rows of unit.rows("select client_id, customer_id, as_of, balance from bank_snapshots where as_of <= ? order by as_of", [notAfter], { raw: true, batch: BATCH })) {
    for (const [clientId, customerId, asOf, balance] of rows) {
      const key = customerKey(clientId, customerId);
      if (keys && !keys.has(key))
        continue;
      out.set(key, { day: dayNumber(asOf), balance });
    }
  }
  return out;
}
async function attempts(unit, keys, after, only) {
  const out = /* @__PURE__ */ new Map();
  const where = only ? "and c.client_id = ? and c.customer_id = ?" : "";
  for await (const rows of unit.rows(`select c.client_id, c.customer_id, c.policy_number, a.date, a.amount, a.failure_reason
     from attempts a join collections c on c.id = a.collection_id
     where a.date > ? ${where} order by a.date, c.client_id, c.policy_number`, only ? [after, only.clientId, only.customerId] : [after], { raw: true, batch: BATCH })) {
    for (const [clientId, customerId, policyNumber, date, amount, failure] of rows) {
      const key = customerKey(clientId, customerId);
      if (keys && !keys.has(key))
        continue;
      let list = out.get(key);
      if (!list)
        out.set(key, list = []);
      list.push({ day: dayNumber(date), amount, failure, policyNumber });
    }
  }
  return out;
}
function pgBankStore(store) {
  return {
    settings: () => onUnit(store, async (unit) => {
      const rows = (await unit.client.query("select key, value from meta where key in ('seed', 'bank_epoch', 'calendar', 'calendar.holidays')")).rows;
      const meta = new Map(rows.map((r) => [r.key, r.value]));
      return {
        seed: Number(meta.get("seed")),
        epoch: meta.get("bank_epoch") ?? null,
        calendar: storedCalendar(meta.get(CALENDAR_KEY), meta.get(IMPORTED_HOLIDAYS_KEY))
      };
    }),
    importedRows: (keys) => onUnit(store, (unit) => importedRows(unit, keys)),
    snapshots: (keys, notAfter) => onUnit(store, (unit) => snapshots(unit, keys, notAfter)),
    pastAttempts: (keys, after) => onUnit(store, (unit) => attempts(unit, keys, after)),
    async keepBalances(asOf, accounts, columns) {
      const write = async (unit) => {
        for (let at = 0; at < accounts.length; at += SNAPSHOT_ROWS) {
          const part = accounts.slice(at, at + SNAPSHOT_ROWS);
          await unit.client.query(`insert into bank_snapshots (client_id, customer_id, as_of, balance)
             select c, k, $3, b from unnest($1::bigint[], $2::text[], $4::bigint[]) as v(c, k, b)
             on conflict (client_id, customer_id, as_of) do update set balance = excluded.balance`, [part.map((i) => columns.clientId[i]), part.map((i) => columns.customerId[i]), asOf, part.map((i) => columns.balance[i])]);
        }
      };
      const day = dayUnitOf(store);
      await (day ? write(day) : store.writeUnit(write));
    }
  };
}
async function readPgCustomerBankInputs(store, clientId, customerId) {
  return store.readUnit(async (unit) => {
    const known = (await unit.client.query("select 1 from bank_transactions where client_id = $1 and customer_id = $2 limit 1", [clientId, customerId])).rowCount > 0 || (await unit.client.query("select 1 from policies where client_id = $1 and customer_id = $2 limit 1", [clientId, customerId])).rowCount > 0;
    const meta = new Map((await unit.client.query("select key, value from meta where key in ('bank_epoch', 'calendar', 'calendar.holidays')")).rows.map((r) => [r.key, r.value]));
    const calendar = storedCalendar(meta.get(CALENDAR_KEY), meta.get(IMPORTED_HOLIDAYS_KEY));
    if (!known)
      return { known, epoch: null, calendar, imported: /* @__PURE__ */ new Map(), attempts: /* @__PURE__ */ new Map() };
    const keys = /* @__PURE__ */ new Set([customerKey(clientId, customerId)]);
    const epoch = meta.get("bank_epoch") ?? null;
    const only = { clientId, customerId };
    return { known, epoch, calendar, imported: await importedRows(unit, keys, only), attempts: await attempts(unit, keys, "0000-00-00", only) };
  });
}
function csvField(value) {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
async function withPgBankImport(store, clientId, fn) {
  return store.writeUnit(async (unit) => {
    const { client } = unit;
    const meta = new Map((await client.query("select key, value from meta")).rows.map((r) => [r.key, r.value]));
    const locked = meta.get("clock_locked") === "1";
    const customers = async (query) => new Set((await client.query(query, [clientId])).rows.map((r) => r.customer_id));
    const imported = await customers("select distinct customer_id from bank_transactions where client_id = $1");
    const collecting = locked ? await customers("select distinct customer_id from collections where client_id = $1") : /* @__PURE__ */ new Set();
    const before = /* @__PURE__ */ new Set();
    if (imported.size > 0) {
      for await (const rows of unit.rows("select customer_id, date, amount, description from bank_transactions where client_id = ?", [clientId], { raw: true, batch: BATCH })) {
        for (const [customerId, date, amount, description] of rows)
          before.add(`${customerId}\0${date}\0${amount}\0${description}`);
      }
    }
    const copy = new CopyIn(client, "copy bank_transactions (client_id, customer_id, date, amount, description) from stdin with (format csv)");
    const out = await fn({
      today: meta.get("clock_date"),
      locked,
      imported,
      collecting,
      storedBefore: (customerId, date, amount, description) => before.has(`${customerId}\0${date}\0${amount}\0${description}`),
      insert: (customerId, date, amount, description) => {
        copy.write(`${clientId},${csvField(customerId)},${date},${amount},${csvField(description)}
`);
      },
      ready: () => copy.ready()
    });
    await copy.end();
    await client.query("delete from engine_image");
    await client.query("delete from engine_image_head");
    return out;
  });
}

export {
  monthOf,
  monthAt,
  CALENDAR_BASES,
  DEFAULT_CALENDAR,
  isCalendarBase,
  CALENDAR_KEY,
  IMPORTED_HOLIDAYS_KEY,
  parseStoredHolidays,
  storedHolidaysText,
  storedCalendar,
  customerKey,
  inDayUnit,
  pgBankStore,
  readPgCustomerBankInputs,
  withPgBankImport
};
