import {
  isIsoDate,
  lastDay
} from "./chunk-CXYRJJKB.js";

// dist/domain/period-state.js
var PERIOD_STATES = ["open", "closed", "not_run"];
var PERIOD_STATE_HEADER = "premia-period-state";
function periodStateOf(period, today, collections, openCollections) {
  const closes_on = lastDay(period);
  const closed = today >= closes_on;
  return {
    state: collections === 0 ? "not_run" : closed ? "closed" : "open",
    as_of: closed ? closes_on : today,
    closes_on,
    open_collections: collections === 0 || closed ? 0 : openCollections
  };
}
function formatPeriodStateHeader(s) {
  return `${s.state}; as_of=${s.as_of}; closes_on=${s.closes_on}; open_collections=${s.open_collections}`;
}
function parsePeriodStateHeader(value) {
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== "string")
    return null;
  const [state, ...params] = text.split(";").map((p) => p.trim());
  if (!PERIOD_STATES.includes(state ?? ""))
    return null;
  const fields = new Map(params.map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]));
  const asOf = fields.get("as_of");
  const closesOn = fields.get("closes_on");
  const open = fields.get("open_collections");
  if (!isIsoDate(asOf) || !isIsoDate(closesOn) || open === void 0 || !/^\d{1,15}$/.test(open))
    return null;
  return { state, as_of: asOf, closes_on: closesOn, open_collections: Number(open) };
}
function periodStateNote(period, s) {
  if (s.state === "closed")
    return null;
  if (s.state === "not_run") {
    return s.as_of >= s.closes_on ? `${period} was never run: it has no collections, and its last day ${s.closes_on} has passed.` : `${period} has not been run: it has no collections (the clock is at ${s.as_of}).`;
  }
  const n = s.open_collections;
  const still = n === 0 ? "none of its collections is still being collected, but more may be queued" : `${n === 1 ? "1 collection is" : `${n.toLocaleString("en-US")} collections are`} still being collected`;
  return `${period} is open: the clock is at ${s.as_of}; ${still} (the report is final once ${s.closes_on} has run).`;
}

export {
  PERIOD_STATE_HEADER,
  periodStateOf,
  formatPeriodStateHeader,
  parsePeriodStateHeader,
  periodStateNote
};
