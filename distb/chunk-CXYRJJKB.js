// dist/domain/period.js
var PERIOD_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;
var DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
var MS_PER_DAY = 864e5;
function isPeriod(s) {
  return typeof s === "string" && PERIOD_RE.test(s) && s >= "1900-01" && s <= "2999-12";
}
function isIsoDate(s) {
  if (typeof s !== "string")
    return false;
  const m = DATE_RE.exec(s);
  if (!m)
    return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (y < 1900 || y > 2999 || mo < 1 || mo > 12 || d < 1)
    return false;
  return d <= daysInMonth(y, mo);
}
function daysInMonth(year, month) {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
function dayNumber(date) {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  const d = Number(date.slice(8, 10));
  return Math.round(Date.UTC(y, m - 1, d) / MS_PER_DAY);
}
var DATE_CACHE = /* @__PURE__ */ new Map();
function fromDayNumber(day) {
  let s = DATE_CACHE.get(day);
  if (s === void 0) {
    s = new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
    if (DATE_CACHE.size < 1e5)
      DATE_CACHE.set(day, s);
  }
  return s;
}
function addDays(date, days) {
  return fromDayNumber(dayNumber(date) + days);
}
function weekday(date) {
  const day = typeof date === "number" ? date : dayNumber(date);
  return ((day + 4) % 7 + 7) % 7;
}
function periodOf(date) {
  return date.slice(0, 7);
}
function firstDay(period) {
  return `${period}-01`;
}
function lastDay(period) {
  const y = Number(period.slice(0, 4));
  const m = Number(period.slice(5, 7));
  return `${period}-${String(daysInMonth(y, m)).padStart(2, "0")}`;
}
function nextPeriod(period) {
  return shiftPeriod(period, 1);
}
function previousPeriod(period) {
  return shiftPeriod(period, -1);
}
function shiftPeriod(period, months) {
  const y = Number(period.slice(0, 4));
  const m = Number(period.slice(5, 7)) - 1 + months;
  const year = y + Math.floor(m / 12);
  const month = (m % 12 + 12) % 12 + 1;
  return `${year}-${String(month).padStart(2, "0")}`;
}
function firstOpenPeriod(today) {
  return periodOf(addDays(today, 1));
}
function dateInPeriod(period, dayOfMonth) {
  const y = Number(period.slice(0, 4));
  const m = Number(period.slice(5, 7));
  const d = Math.min(Math.max(1, dayOfMonth), daysInMonth(y, m));
  return `${period}-${String(d).padStart(2, "0")}`;
}
var NO_DAY = -2147483647;

export {
  isPeriod,
  isIsoDate,
  dayNumber,
  fromDayNumber,
  addDays,
  weekday,
  periodOf,
  firstDay,
  lastDay,
  nextPeriod,
  previousPeriod,
  shiftPeriod,
  firstOpenPeriod,
  dateInPeriod,
  NO_DAY
};
