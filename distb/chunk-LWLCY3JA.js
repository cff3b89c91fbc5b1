import {
  hashString32
} from "./chunk-K26TIJNB.js";
import {
  addDays,
  dateInPeriod,
  lastDay,
  nextPeriod,
  periodOf
} from "./chunk-CXYRJJKB.js";
import {
  conflict
} from "./chunk-U6UK7MPY.js";

// dist/domain/collection.js
var COLLECTION_STATUSES = ["PAID_FULL", "PAID_PARTIAL", "UNPAID", "CANCELLED"];
var STATUS_BY_CODE = ["UNPAID", "PAID_PARTIAL", "PAID_FULL", "CANCELLED"];

// dist/domain/settlement.js
var SETTLEMENT_STATUSES = ["pending", "paid", "disputed"];
var PAYMENT_DAY_OF_NEXT_MONTH = 3;
var DISPUTE_WINDOW_DAYS = 30;
var DISPUTE_REASON_MAX = 500;
var PAID_REFERENCE_MAX = 35;
var PAID_REFERENCE_RE = /^[A-Z0-9/-]{1,35}$/;
var CHECK_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
function settlementNumber(period, seq) {
  return `SETTLE-${period}-${String(seq).padStart(3, "0")}`;
}
function paymentDate(period, regeneratedOn) {
  const due = dateInPeriod(nextPeriod(period), PAYMENT_DAY_OF_NEXT_MONTH);
  if (regeneratedOn === void 0)
    return due;
  const month = periodOf(regeneratedOn);
  const day = Number(regeneratedOn.slice(8, 10));
  const fresh = dateInPeriod(day < PAYMENT_DAY_OF_NEXT_MONTH ? month : nextPeriod(month), PAYMENT_DAY_OF_NEXT_MONTH);
  return fresh > due ? fresh : due;
}
function paymentDateOf(period, seq, today) {
  return seq === 1 ? paymentDate(period) : paymentDate(period, today);
}
function lastDisputeDate(payment) {
  return addDays(payment, DISPUTE_WINDOW_DAYS);
}
function paymentReference(idSalt, clientId, number, period, seq, attempt = 0) {
  const key = `${clientId}:${number}:${attempt}`;
  const a = hashString32(key, idSalt);
  const b = hashString32(key, a ^ 1540483477);
  const bits = [a & 1048575, b & 1048575];
  let code = "";
  for (const part of bits) {
    for (let shift = 15; shift >= 0; shift -= 5)
      code += CHECK_ALPHABET[part >>> shift & 31];
  }
  return `PRM${period.slice(2, 4)}${period.slice(5, 7)}${String(seq).padStart(3, "0")}-${code}`;
}
function amountDue(periodNet, previouslyPaid) {
  return periodNet - previouslyPaid;
}
function checkPeriodClosed(period, today) {
  const closesOn = lastDay(period);
  if (today >= closesOn)
    return;
  throw conflict("PERIOD_OPEN", `Period ${period} is still open: its last day ${closesOn} has not run (the clock is at ${today}). Create the settlement once the clock has reached ${closesOn}.`, [{ period_month: period, closes_on: closesOn, today }]);
}
function settlementExists(existing) {
  const { id, settlement_number, status, period_month } = existing;
  return conflict("SETTLEMENT_EXISTS", `Period ${period_month} already has settlement ${settlement_number} (id ${id}, ${status}). Only one live statement is allowed per period; dispute it first if it must be regenerated.`, [{ id, settlement_number, status, period_month }]);
}
function noCollections(period) {
  return conflict("NO_COLLECTIONS", `Period ${period} has no collections: it was never executed. Run 'premia collections execute --period ${period}' first.`, [{ period_month: period }]);
}
var NEXT = {
  pending: ["paid", "disputed"],
  paid: ["disputed"],
  disputed: []
  // final: a new statement is generated for the period instead
};
function checkMarkPaid(s) {
  if (!NEXT[s.status].includes("paid"))
    throw invalidTransition(s, "paid");
}
function checkDispute(s, today) {
  if (!NEXT[s.status].includes("disputed"))
    throw invalidTransition(s, "disputed");
  const lastAllowed = lastDisputeDate(s.payment_date);
  if (today > lastAllowed) {
    throw conflict("DISPUTE_WINDOW_CLOSED", `The dispute window of ${s.settlement_number} closed on ${lastAllowed} (${DISPUTE_WINDOW_DAYS} days after its payment date ${s.payment_date}); the clock is at ${today}. Raise the matter with the operator.`, [{ settlement_number: s.settlement_number, payment_date: s.payment_date, last_allowed_date: lastAllowed, today }]);
  }
}
function invalidTransition(s, to) {
  if (s.superseded_by !== null) {
    return conflict("INVALID_TRANSITION", `Settlement ${s.settlement_number} is ${s.status} and cannot become ${to}: it was superseded by ${s.superseded_by}, which nets out what was already paid for ${s.period_month}. ${to === "paid" ? "Pay or record that one instead." : "Dispute that one instead."}`, [{ field: "status", from: s.status, to, settlement_number: s.settlement_number, superseded_by: s.superseded_by }]);
  }
  const allowed = NEXT[s.status].length > 0 ? NEXT[s.status].join(" or ") : "nothing (a disputed statement is final; create a new one for the period)";
  return conflict("INVALID_TRANSITION", `Settlement ${s.settlement_number} is ${s.status} and cannot become ${to}; from ${s.status} it can become ${allowed}.`, [{ field: "status", from: s.status, to, settlement_number: s.settlement_number }]);
}
function disputeReasonProblem(text) {
  return /[\u0000-\u001f\u007f]/.test(text) ? "has a control character (such as a line break); write it on one line" : null;
}

export {
  COLLECTION_STATUSES,
  STATUS_BY_CODE,
  SETTLEMENT_STATUSES,
  DISPUTE_REASON_MAX,
  PAID_REFERENCE_MAX,
  PAID_REFERENCE_RE,
  settlementNumber,
  paymentDateOf,
  paymentReference,
  amountDue,
  checkPeriodClosed,
  settlementExists,
  noCollections,
  checkMarkPaid,
  checkDispute,
  disputeReasonProblem
};
