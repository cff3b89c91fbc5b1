import {
  addDays,
  dayNumber,
  fromDayNumber,
  lastDay,
  nextPeriod,
  periodOf
} from "./chunk-CXYRJJKB.js";
import {
  PremiaError
} from "./chunk-U6UK7MPY.js";

// dist/domain/advance.js
function advanceTargetDate(today, target) {
  if (target.days !== void 0)
    return addDays(today, target.days);
  if (target.to_month_end)
    return lastDay(periodOf(addDays(today, 1)));
  return target.to ?? today;
}
function periodsClosedBetween(from, to) {
  const out = [];
  if (to <= from)
    return out;
  for (let p = periodOf(addDays(from, 1)); lastDay(p) <= to; p = nextPeriod(p))
    out.push(p);
  return out;
}
function daysBetween(from, to) {
  return Math.max(0, dayNumber(to) - dayNumber(from));
}
function resolveAdvanceTarget(today, target) {
  const given = [target.days !== void 0, target.to !== void 0, target.to_month_end === true].filter(Boolean).length;
  if (given !== 1) {
    throw new PremiaError("VALIDATION_ERROR", "Say how far to advance with exactly one of days, to or to_month_end.", {
      details: [{ field: "target", code: "REQUIRED", message: "give exactly one of days, to, to_month_end" }]
    });
  }
  if (target.days !== void 0) {
    if (!Number.isInteger(target.days) || target.days < 0 || target.days > 3660) {
      throw new PremiaError("VALIDATION_ERROR", `days must be a whole number from 0 to 3660; got ${String(target.days)}.`, {
        details: [{ field: "days", code: "INVALID_VALUE", message: "a whole number from 0 to 3660" }]
      });
    }
    return addDays(today, target.days);
  }
  if (target.to_month_end)
    return lastDay(periodOf(addDays(today, 1)));
  const to = target.to;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(to) || fromDayNumber(dayNumber(to)) !== to) {
    throw new PremiaError("VALIDATION_ERROR", `'${to}' is not a date; write it as YYYY-MM-DD.`, {
      details: [{ field: "to", code: "INVALID_FORMAT", message: "expected YYYY-MM-DD" }]
    });
  }
  if (to < today) {
    throw new PremiaError("CLOCK_BACKWARDS", `The clock is at ${today}; it only moves forward, so it cannot go back to ${to}.`);
  }
  if (dayNumber(to) - dayNumber(today) > 3660) {
    throw new PremiaError("VALIDATION_ERROR", `${to} is more than ten years ahead of the clock (${today}).`);
  }
  return to;
}

export {
  advanceTargetDate,
  periodsClosedBetween,
  daysBetween,
  resolveAdvanceTarget
};
