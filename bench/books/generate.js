#!/usr/bin/env node
/**
 * The independent books: policy books and bank histories for premia's evaluation, written from a
 * description of how South African current accounts behave (see README.md here), not from
 * premia's simulated bank. Each customer belongs to one family; the family is written to a side
 * file, never into the CSVs premia reads.
 *
 *   node bench/books/generate.js --seed 3 --period 2026-11 [--customers 1500] --out DIR
 *
 * writes DIR/policies.csv (premia's policy CSV), DIR/bank.csv (`premia bank import`'s CSV:
 * customer_id,date,amount,description), DIR/families.csv (customer_id,family,income,detail) and
 * DIR/book.json (what was generated). The same seed, period and size give the same bytes.
 *
 * Money is integer cents throughout.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  addMonths,
  businessDayOnOrAfter,
  businessDayOnOrBefore,
  dayFrom,
  daysInMonth,
  isoOf,
  lastBusinessDay,
  parsePeriod,
  partsOf,
  payDate,
  periodName,
  weekdayOf,
} from './calendar.js';

/** Months of history before the evaluated period (premia's income analysis reads 120 days). */
export const HISTORY_MONTHS = 5;

/** The families, their share of a book and what they are. */
export const FAMILIES = [
  { name: 'monthly_fixed', weight: 15, what: 'salary on a fixed day of the month (1st, 7th, 15th, 20th, 23rd, 25th, 26th, 28th), paid on the business day before when that day is a weekend or public holiday' },
  { name: 'month_end', weight: 9, what: 'salary on the last business day of the month' },
  { name: 'twice_monthly', weight: 7, what: 'half the salary on the 15th and half on the last business day (15th moved back like any payday)' },
  { name: 'weekly', weight: 7, what: 'wages every Friday (Thursday when the Friday is a public holiday)' },
  { name: 'fortnightly', weight: 7, what: 'wages every second Friday' },
  { name: 'irregular', weight: 10, what: 'gig and informal income: deposits of widely varying size at irregular intervals, with dry spells' },
  { name: 'tight', weight: 12, what: 'monthly salary; several debit orders on payday take 55-80% of it and the rest is spent within two days' },
  { name: 'small_deposits', weight: 7, what: 'lives on transfers and cash deposits each smaller than the premium, mostly spent within days' },
  { name: 'closed_stopped', weight: 9, what: 'a regular earner whose account is closed (emptied first, nothing after), or who stops premia\'s debits, or whose account is frozen, on a day of the period' },
  { name: 'multi_policy', weight: 10, what: 'a regular earner holding two or three policies' },
  { name: 'no_history', weight: 7, what: 'an account with nothing in it for months (one opening deposit withdrawn the same day, six to eight months before the history starts) that is first funded during the period (70%) or stays dormant (30%)' },
];

const FAMILY_NAMES = FAMILIES.map((f) => f.name);

const PRODUCTS = ['FUNERAL_BASIC', 'FUNERAL_FAMILY', 'LIFE_STANDARD', 'LIFE_PREMIER', 'DISABILITY', 'HOSPITAL_CASH'];
const EMPLOYERS = ['SALARY ACME MINING', 'SALARY DEPT OF EDUCATION', 'SALARY SHOPRITE HOLDINGS', 'SALARY CITY OF TSHWANE', 'PAYROLL NETCARE', 'SALARY TRANSNET', 'PAYROLL BIDVEST', 'SALARY SPAR GROUP', 'SALARY SAPS', 'PAYROLL MEDICLINIC'];
const WAGE_PAYERS = ['WAGES BUILDIT CONSTRUCTION', 'WAGES FARM OOSTENBERG', 'WAGES KFC FRANCHISE', 'WAGES SECURITAS', 'WAGES CLEANCO'];
const GIG_PAYERS = ['EFT CREDIT UBER BV', 'EFT CREDIT MR D FOOD', 'CASH DEPOSIT', 'EFT CREDIT CLIENT', 'TRANSFER FROM BUSINESS ACC', 'EFT CREDIT TAKEALOT', 'EFT CREDIT BOLT'];
const SMALL_PAYERS = ['TRANSFER FROM FAMILY', 'CASH DEPOSIT', 'TRANSFER FROM SPOUSE', 'CASH DEPOSIT ATM', 'INSTANT MONEY RECEIVED'];
const CREDITORS = ['DEBIT ORDER HOME LOAN', 'DEBIT ORDER RENT', 'DEBIT ORDER VEHICLE FINANCE', 'DEBIT ORDER VODACOM', 'DEBIT ORDER MTN', 'DEBIT ORDER SCHOOL FEES', 'DEBIT ORDER MEDICAL AID', 'DEBIT ORDER STORE CARD', 'DEBIT ORDER PERSONAL LOAN', 'DEBIT ORDER GYM', 'DEBIT ORDER DSTV', 'DEBIT ORDER CREDIT CARD'];
const SPENDING = ['CARD PURCHASE CHECKERS', 'CARD PURCHASE PICK N PAY', 'CARD PURCHASE SHOPRITE', 'CARD PURCHASE WOOLWORTHS', 'CARD PURCHASE ENGEN', 'CARD PURCHASE CLICKS', 'ATM WITHDRAWAL', 'PREPAID AIRTIME', 'PREPAID ELECTRICITY', 'EFT PAYMENT', 'CARD PURCHASE TAKEALOT', 'TRANSFER TO SAVINGS'];
const SIDE_INCOME = ['TRANSFER FROM FAMILY', 'REFUND', 'TRANSFER FROM FRIEND'];

// ---------------------------------------------------------------------------------------------
// Random numbers: a 32-bit hash of a string seeds sfc32 (small, fast, good enough for data).

function hash32(text) {
  let h = 1779033703 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  h = Math.imul(h ^ (h >>> 16), 2246822507);
  h = Math.imul(h ^ (h >>> 13), 3266489909);
  return (h ^= h >>> 16) >>> 0;
}

export function rngFor(text) {
  let a = hash32(`a${text}`);
  let b = hash32(`b${text}`);
  let c = hash32(`c${text}`);
  let d = hash32(`d${text}`);
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  const r = {
    next,
    uniform: (lo, hi) => lo + (hi - lo) * next(),
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
    /** A value whose logarithm is uniform between those of lo and hi. */
    logUniform: (lo, hi) => Math.exp(Math.log(lo) + (Math.log(hi) - Math.log(lo)) * next()),
    normal: () => {
      const u = Math.max(next(), 1e-12);
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
    },
    weighted: (pairs) => {
      let total = 0;
      for (const [, w] of pairs) total += w;
      let x = next() * total;
      for (const [v, w] of pairs) if ((x -= w) < 0) return v;
      return pairs[pairs.length - 1][0];
    },
  };
  return r;
}

// ---------------------------------------------------------------------------------------------
// Money

export function formatCents(cents) {
  const sign = cents < 0 ? '-' : '';
  const a = Math.abs(cents);
  return `${sign}${Math.floor(a / 100)}.${String(a % 100).padStart(2, '0')}`;
}

/** Rands → cents, rounded. */
const cents = (rand) => Math.round(rand * 100);

/** A premium as insurers price them: often whole or half rands, otherwise any cents. */
function premiumCents(r, rand) {
  const clamped = Math.min(1500, Math.max(80, rand));
  if (r.chance(0.5)) return Math.round(clamped * 2) * 50;
  return cents(clamped);
}

// ---------------------------------------------------------------------------------------------
// Income schedules: lists of {day, cents, desc}, ascending, covering [from, to].

function monthsCovering(from, to) {
  const out = [];
  const a = partsOf(from);
  let ym = { year: a.year, month: a.month };
  // Pay due early in the month after `to` can land inside the span (1st → last business day before).
  const end = partsOf(to + 7);
  for (;;) {
    out.push(ym);
    if (ym.year === end.year && ym.month === end.month) break;
    ym = addMonths(ym, 1);
  }
  return [addMonths(out[0], -1), ...out];
}

/**
 * Salary amount for a pay: the same figure most months, now and then a little more or less
 * (overtime, deductions); a customer with a 13th cheque gets one extra month's pay with the
 * first pay of December.
 */
function salaryFor(r, base, day, bonus) {
  let amount = base;
  if (r.chance(0.2)) amount = Math.round(base * r.uniform(0.93, 1.08));
  const { year, month } = partsOf(day);
  if (bonus.amount > 0 && month === 12 && !bonus.paid.has(year)) {
    bonus.paid.add(year);
    amount += bonus.amount;
  }
  return amount;
}

function monthlyFixedPays(r, dom, base, bonus, desc, from, to) {
  const out = [];
  for (const ym of monthsCovering(from, to)) {
    const day = payDate(ym.year, ym.month, dom);
    if (day >= from && day <= to) out.push({ day, cents: salaryFor(r, base, day, bonus), desc });
  }
  return out;
}

function monthEndPays(r, base, bonus, desc, from, to) {
  const out = [];
  for (const ym of monthsCovering(from, to)) {
    const day = lastBusinessDay(ym.year, ym.month);
    if (day >= from && day <= to) out.push({ day, cents: salaryFor(r, base, day, bonus), desc });
  }
  return out;
}

function twiceMonthlyPays(r, base, bonus, desc, from, to) {
  const half = Math.round(base / 2);
  const out = [];
  for (const ym of monthsCovering(from, to)) {
    for (const day of [payDate(ym.year, ym.month, 15), lastBusinessDay(ym.year, ym.month)]) {
      if (day >= from && day <= to) out.push({ day, cents: salaryFor(r, half, day, bonus), desc });
    }
  }
  return out;
}

function fridayPays(r, every, phase, base, desc, from, to) {
  const out = [];
  let friday = from + ((5 - weekdayOf(from) + 7) % 7);
  let k = 0;
  for (; friday <= to + 7; friday += 7, k++) {
    if (k % every !== phase) continue;
    const day = businessDayOnOrBefore(friday);
    if (day < from || day > to) continue;
    // Hours vary: wages move by up to ±12% from week to week.
    out.push({ day, cents: Math.round(base * r.uniform(0.88, 1.12)), desc });
  }
  return out;
}

function irregularPays(r, monthly, meanGap, from, to, payers, sizeSpread) {
  const out = [];
  let day = from + r.int(0, Math.round(meanGap));
  while (day <= to) {
    const typical = (monthly * meanGap) / 30.4;
    const amount = Math.round(typical * Math.exp(sizeSpread * r.normal()));
    if (amount >= 2_000) out.push({ day, cents: amount, desc: r.pick(payers) });
    let gap = Math.max(1, Math.round(-meanGap * Math.log(Math.max(r.next(), 1e-9))));
    if (r.chance(0.06)) gap += r.int(10, 21); // a dry spell
    day += gap;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Customers

function regularIncome(r, kind, from, to) {
  const bonus = { amount: 0, paid: new Set() };
  switch (kind) {
    case 'monthly_fixed': {
      const dom = r.weighted([[1, 15], [7, 5], [15, 12], [20, 10], [23, 5], [25, 35], [26, 8], [28, 10]]);
      const base = cents(r.logUniform(6_000, 60_000));
      if (r.chance(0.3)) bonus.amount = base;
      return { label: `monthly day ${dom}`, monthly: base, pays: monthlyFixedPays(r, dom, base, bonus, r.pick(EMPLOYERS), from, to), cycle: 30 };
    }
    case 'month_end': {
      const base = cents(r.logUniform(6_000, 60_000));
      if (r.chance(0.3)) bonus.amount = base;
      return { label: 'last business day', monthly: base, pays: monthEndPays(r, base, bonus, r.pick(EMPLOYERS), from, to), cycle: 30 };
    }
    case 'twice_monthly': {
      const base = cents(r.logUniform(8_000, 50_000));
      if (r.chance(0.3)) bonus.amount = base;
      return { label: '15th and last business day', monthly: base, pays: twiceMonthlyPays(r, base, bonus, r.pick(EMPLOYERS), from, to), cycle: 15 };
    }
    case 'weekly': {
      const monthly = cents(r.logUniform(5_000, 26_000));
      const weekly = Math.round((monthly * 12) / 52);
      return { label: 'weekly, Fridays', monthly, pays: fridayPays(r, 1, 0, weekly, r.pick(WAGE_PAYERS), from, to), cycle: 7 };
    }
    case 'fortnightly': {
      const monthly = cents(r.logUniform(6_000, 30_000));
      const phase = r.int(0, 1);
      const pay = Math.round((monthly * 12) / 26);
      return { label: `fortnightly, Fridays (phase ${phase})`, monthly, pays: fridayPays(r, 2, phase, pay, r.pick(WAGE_PAYERS), from, to), cycle: 14 };
    }
    default:
      throw new Error(`unknown income kind ${kind}`);
  }
}

/**
 * What happens to real salaries: now and then a payroll runs a business day or two late, and
 * some people change jobs (a new payday pattern and amount from then on) in the months before
 * the period.
 */
function lifeEvents(r, inc, kind, ctx) {
  const { from, to, periodFirst } = ctx;
  const notes = [];
  if (inc.cycle >= 15 && r.chance(0.07) && periodFirst - 20 > from + 45) {
    const change = r.int(from + 45, periodFirst - 20);
    const newKind = r.weighted([['monthly_fixed', 50], ['month_end', 30], ['twice_monthly', 20]].filter(([k]) => k !== kind || k === 'monthly_fixed'));
    const next = regularIncome(r, newKind, change, to);
    const scale = r.uniform(0.85, 1.3);
    for (const p of next.pays) p.cents = Math.round(p.cents * (inc.monthly / next.monthly) * scale);
    inc.pays = [...inc.pays.filter((p) => p.day < change), ...next.pays.filter((p) => p.day >= change + 3)];
    inc.monthly = Math.round(inc.monthly * scale);
    inc.cycle = next.cycle;
    notes.push(`changed job ${isoOf(change)}: now ${next.label}`);
  }
  let late = 0;
  for (const p of inc.pays) {
    if (!r.chance(0.04)) continue;
    const day = businessDayOnOrAfter(p.day + 1 + (r.chance(0.3) ? 1 : 0));
    if (day <= to) {
      p.day = businessDayOnOrAfter(day);
      late++;
    }
  }
  inc.pays.sort((a, b) => a.day - b.day);
  if (late > 0) notes.push(`${late} pay(s) late`);
  return notes;
}

/** A customer's reserve: the balance they tend not to spend below. */
function floorFor(r, monthly) {
  const f = r.weighted([[0, 40], [1, 30], [2, 20], [3, 10]]);
  if (f === 0) return 0;
  if (f === 1) return Math.round(monthly * r.uniform(0.02, 0.15));
  if (f === 2) return Math.round(monthly * r.uniform(0.15, 0.6));
  return Math.round(monthly * r.uniform(0.6, 2));
}

/**
 * Debit orders: fixed amounts on fixed days. Salary-aligned ones run on the actual payday; the
 * others on a day of the month, moved to the next business day when it is not one.
 */
function debitOrders(r, monthly, share, count, pays, from, to, alignedShare, dayAfterShare = 0.25) {
  const orders = [];
  const amounts = [];
  let weights = 0;
  for (let i = 0; i < count; i++) {
    const w = r.uniform(0.3, 1.7);
    amounts.push(w);
    weights += w;
  }
  const creditors = [...CREDITORS];
  for (let i = 0; i < count; i++) {
    const amount = Math.max(5_000, Math.round((monthly * share * amounts[i]) / weights));
    const desc = creditors.splice(r.int(0, creditors.length - 1), 1)[0];
    const aligned = r.chance(alignedShare);
    const dom = r.pick([1, 1, 3, 5, 7, 15, 20, 25, 25, 26, 28]);
    orders.push({ amount, desc, aligned, dom, afterPay: aligned && r.chance(dayAfterShare) ? 1 : 0 });
  }
  const out = [];
  // A salary-aligned order runs with the pay of each month's cycle (a pay due on the 1st but
  // paid on the 30th takes the orders with it; a twice-monthly earner's orders go with one of
  // the two pays): the pays at least 20 days after the last one that carried them.
  const alignedDays = [];
  for (const p of pays) if (alignedDays.length === 0 || p.day - alignedDays[alignedDays.length - 1] >= 20) alignedDays.push(p.day);
  for (const o of orders) {
    if (o.aligned && alignedDays.length > 0) {
      for (const payDay of alignedDays) {
        const day = o.afterPay ? businessDayOnOrAfter(payDay + 1) : payDay;
        if (day >= from && day <= to) out.push({ day, cents: -o.amount, desc: o.desc });
      }
      continue;
    }
    for (const ym of monthsCovering(from, to)) {
      const day = businessDayOnOrAfter(dayFrom(ym.year, ym.month, Math.min(o.dom, daysInMonth(ym.year, ym.month))));
      if (day >= from && day <= to) out.push({ day, cents: -o.amount, desc: o.desc });
    }
  }
  return out;
}

/**
 * Live the account day by day as the bank posts it (credits, then debit orders, then spending;
 * a debit larger than the balance is declined) and write the customer's own spending, sized
 * from the balance they see: a share of what is above their reserve, more right after pay,
 * spread so that it lasts until the next income.
 */
function liveAccount(r, c, opts) {
  const { from, to, credits, orders, floor, style, nextIncome } = opts;
  const rows = [];
  const byDay = new Map();
  const add = (row, kind) => {
    let list = byDay.get(row.day);
    if (!list) byDay.set(row.day, (list = { credits: [], orders: [] }));
    list[kind].push(row);
  };
  for (const x of credits) add(x, 'credits');
  for (const x of orders) add(x, 'orders');
  const incomeDays = new Set(opts.incomeDays);
  // Debit orders falling on days [a, b), in cents: prefix sums over the orders by day.
  const orderDays = orders.map((o) => o.day).sort((x, y) => x - y);
  const orderSums = [0];
  for (const o of [...orders].sort((x, y) => x.day - y.day)) orderSums.push(orderSums[orderSums.length - 1] - o.cents);
  const firstAtOrAfter = (d) => {
    let lo = 0;
    let hi = orderDays.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (orderDays[mid] < d) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const ordersBetween = (a, b) => (b <= a ? 0 : orderSums[firstAtOrAfter(b)] - orderSums[firstAtOrAfter(a)]);
  let balance = 0;
  let lastIncome = null;
  let leftover = 0;
  const shopProb = style.shopProb;
  for (let day = from; day <= to; day++) {
    const today = byDay.get(day);
    if (today) {
      for (const x of today.credits) {
        balance += x.cents;
        rows.push(x);
      }
      for (const x of today.orders) {
        rows.push(x); // declined by the bank when it exceeds the balance, as here
        if (-x.cents <= balance) balance += x.cents;
      }
    }
    if (incomeDays.has(day)) {
      lastIncome = day;
      if (style.kind === 'tight') leftover = Math.round(opts.monthly * r.uniform(0, 0.06));
    }
    if (opts.stopSpendingFrom !== undefined && day >= opts.stopSpendingFrom) continue;
    if (lastIncome === null) continue;
    const t = day - lastIncome;
    // Most people keep back what their debit orders will take before the next pay.
    const reserved = style.mindsOrders ? ordersBetween(day + 1, nextIncome(day)) : 0;
    const spendable = balance - floor - reserved;
    if (spendable <= 0) continue;
    let amount = 0;
    if (style.kind === 'tight') {
      if (t === 0) amount = spendable * r.uniform(0.05, 0.15);
      else if (t === 1) amount = spendable * r.uniform(0.4, 0.7);
      else if (t === 2) amount = Math.max(0, spendable - leftover);
      else if (r.chance(shopProb)) amount = (spendable * r.uniform(0.3, 0.8)) / Math.max(2, nextIncome(day) - day);
    } else if (style.kind === 'deposits') {
      // Each deposit is mostly gone within a few days; what stays is spent slowly.
      if (t === 0) amount = spendable * r.uniform(0.2, 0.6);
      else if (t <= 2) amount = spendable * r.uniform(0.3, 0.7);
      else if (r.chance(shopProb)) amount = spendable * r.uniform(0.05, 0.25);
    } else {
      if (!(t <= 2 || r.chance(shopProb))) continue;
      const remainingDays = Math.max(1, nextIncome(day) - day);
      let share = (style.pace * r.uniform(0.6, 1.4)) / (remainingDays * shopProb + 1);
      if (t <= 2) share += style.paydayBoost * r.uniform(0.5, 1.5);
      amount = spendable * Math.min(0.95, share);
    }
    amount = Math.round(amount);
    if (amount < 2_000) continue;
    // Several purchases rather than one sum: a debit premia makes first declines one of them.
    const n = amount > 200_000 ? r.int(2, 4) : amount > 40_000 ? r.int(1, 3) : 1;
    let left = amount;
    for (let i = 0; i < n; i++) {
      const part = i === n - 1 ? left : Math.round(left * r.uniform(0.25, 0.6));
      left -= part;
      if (part < 500) continue;
      rows.push({ day, cents: -part, desc: r.pick(SPENDING) });
      balance -= part;
    }
  }
  if (opts.closeOn !== undefined) {
    // The customer empties the account into the new one and closes it: nothing after that day.
    const kept = rows.filter((x) => x.day <= opts.closeOn);
    let bal = 0;
    for (const x of kept) if (x.cents > 0 || -x.cents <= bal) bal += x.cents;
    if (bal > 0) kept.push({ day: opts.closeOn, cents: -bal, desc: 'TRANSFER TO NEW ACCOUNT' });
    return kept;
  }
  return rows;
}

function spendingStyle(r, kind) {
  if (kind === 'tight') return { kind, shopProb: r.uniform(0.3, 0.6) };
  if (kind === 'deposits') return { kind, shopProb: r.uniform(0.3, 0.7) };
  return { kind: 'normal', shopProb: r.uniform(0.35, 0.85), pace: r.chance(0.3) ? r.uniform(1.5, 3) : r.uniform(0.8, 1.5), paydayBoost: r.uniform(0.05, 0.3), mindsOrders: r.chance(0.75) };
}

function sideIncome(r, monthly, from, to) {
  const out = [];
  if (!r.chance(0.3)) return out;
  for (let day = from + r.int(0, 30); day <= to; day += r.int(15, 60)) {
    out.push({ day, cents: cents(r.uniform(50, Math.min(800, Math.max(60, monthly / 100 / 20)))), desc: r.pick(SIDE_INCOME) });
  }
  return out;
}

function nextIncomeFinder(incomeDays, fallbackGap) {
  const days = [...incomeDays].sort((a, b) => a - b);
  return (day) => {
    let lo = 0;
    let hi = days.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (days[mid] <= day) lo = mid + 1;
      else hi = mid;
    }
    return lo < days.length ? days[lo] : day + fallbackGap;
  };
}

const REGULAR = [['monthly_fixed', 40], ['month_end', 25], ['twice_monthly', 15], ['weekly', 10], ['fortnightly', 10]];

function makeCustomer(r, family, index, ctx) {
  const { from, to, periodFirst, periodLast } = ctx;
  const c = { family, income: '', detail: [], rows: [], premiums: [] };
  let policies = 1;
  let incomeKind = family;
  if (family === 'closed_stopped' || family === 'multi_policy') incomeKind = r.weighted(REGULAR);
  if (family === 'multi_policy') policies = r.chance(0.7) ? 2 : 3;

  if (family === 'irregular') {
    const monthly = cents(r.logUniform(3_000, 25_000));
    const meanGap = r.uniform(3, 12);
    const pays = irregularPays(r, monthly, meanGap, from, to, GIG_PAYERS, r.uniform(0.4, 0.9));
    c.income = `irregular, about ${formatCents(monthly)} a month, mean gap ${meanGap.toFixed(1)} days`;
    const floor = Math.floor(floorFor(r, monthly) / 2);
    const orders = debitOrders(r, monthly, r.uniform(0.1, 0.35), r.int(1, 3), [], from, to, 0);
    const incomeDays = pays.map((p) => p.day);
    c.rows = liveAccount(r, c, {
      from, to, credits: [{ day: from, cents: floor + cents(r.uniform(0, 500)), desc: 'BALANCE BROUGHT FORWARD' }, ...pays], orders, floor,
      style: spendingStyle(r, 'normal'), incomeDays, monthly, nextIncome: (day) => Math.max(day + 2, (incomeDays.filter((d) => d <= day).pop() ?? day) + Math.round(meanGap)),
    });
    c.detail.push(`reserve ${formatCents(floor)}`);
    c.premiums.push(premiumCents(r, (monthly / 100) * r.uniform(0.015, 0.07)));
  } else if (family === 'small_deposits') {
    const premium = premiumCents(r, r.logUniform(300, 1500));
    const perMonth = r.int(3, 9);
    const pays = [];
    for (let day = from + r.int(0, 5); day <= to; day += Math.max(1, Math.round(-(30.4 / perMonth) * Math.log(Math.max(r.next(), 1e-9))))) {
      pays.push({ day, cents: Math.max(2_000, Math.round(premium * r.uniform(0.15, 0.9))), desc: r.pick(SMALL_PAYERS) });
    }
    c.income = `${perMonth} small deposits a month, each below the premium of ${formatCents(premium)}`;
    const orders = r.chance(0.5) ? debitOrders(r, premium * 2, 0.2, 1, [], from, to, 0) : [];
    const incomeDays = pays.map((p) => p.day);
    c.rows = liveAccount(r, c, {
      from, to, credits: pays, orders, floor: 0, style: spendingStyle(r, 'deposits'), incomeDays, monthly: premium * 2,
      nextIncome: (day) => day + Math.round(30.4 / perMonth),
    });
    c.premiums.push(premium);
  } else if (family === 'tight') {
    const kind = r.weighted([['monthly_fixed', 65], ['month_end', 35]]);
    const inc = regularIncome(r, kind, from, to);
    c.detail.push(...lifeEvents(r, inc, kind, ctx));
    // Tight budgets: modest salaries.
    const scale = Math.min(1, cents(r.logUniform(6_000, 35_000)) / inc.monthly);
    for (const p of inc.pays) p.cents = Math.round(p.cents * scale);
    const monthly = Math.round(inc.monthly * scale);
    c.income = inc.label;
    const share = r.uniform(0.55, 0.8);
    const orders = debitOrders(r, monthly, share, r.int(3, 6), inc.pays, from, to, 1, 0); // all on payday itself
    const incomeDays = inc.pays.map((p) => p.day);
    c.rows = liveAccount(r, c, {
      from, to, credits: [...inc.pays, ...sideIncome(r, monthly, from, to)], orders, floor: 0, style: spendingStyle(r, 'tight'),
      incomeDays, monthly, nextIncome: nextIncomeFinder(incomeDays, inc.cycle),
    });
    c.detail.push(`debit orders ${(share * 100).toFixed(0)}% of pay on payday`);
    c.premiums.push(premiumCents(r, (monthly / 100) * r.uniform(0.02, 0.05)));
  } else if (family === 'no_history') {
    // Every no-history account has one opening row long before the history starts (a deposit
    // withdrawn the same day): premia sees an account with nothing in it for months. (A first
    // row inside the period, ctx.newAccountsInPeriod, is what a brand-new account's statement
    // would look like; premia 0.1.0 lives such an account out of step with the calendar, see
    // README.md here, so the default keeps the opening row.)
    const openedLongAgo = from - 180 - r.int(0, 60);
    const openingAmount = cents(r.pick([50, 100, 200]));
    const opening = [
      { day: openedLongAgo, cents: openingAmount, desc: 'CASH DEPOSIT ACCOUNT OPENING' },
      { day: openedLongAgo, cents: -openingAmount, desc: 'ATM WITHDRAWAL' },
    ];
    if (r.chance(0.3)) {
      c.rows = opening;
      c.income = 'dormant: nothing since the opening deposit';
      c.detail.push(`opened ${isoOf(openedLongAgo)}`);
      c.premiums.push(premiumCents(r, r.logUniform(80, 600)));
    } else {
      const funded = periodFirst + r.int(0, 17);
      const kind = r.weighted([['monthly_fixed', 45], ['month_end', 25], ['weekly', 15], ['fortnightly', 15]]);
      const inc = regularIncome(r, kind, funded, to);
      c.income = `${inc.label}; first money in ${isoOf(funded)}`;
      const floor = Math.floor(floorFor(r, inc.monthly) / 4);
      const orders = debitOrders(r, inc.monthly, r.uniform(0.15, 0.45), r.int(1, 4), inc.pays, funded, to, inc.cycle >= 28 ? 0.5 : 0);
      const incomeDays = [funded, ...inc.pays.map((p) => p.day)];
      const rows = liveAccount(r, c, {
        from: funded, to, credits: [{ day: funded, cents: cents(r.uniform(50, 500)), desc: 'CASH DEPOSIT' }, ...inc.pays], orders, floor,
        style: spendingStyle(r, 'normal'), incomeDays, monthly: inc.monthly, nextIncome: nextIncomeFinder(incomeDays, inc.cycle),
      });
      c.rows = ctx.newAccountsInPeriod ? rows : [...opening, ...rows];
      c.detail.push(ctx.newAccountsInPeriod ? `opened ${isoOf(funded)}` : `opened ${isoOf(openedLongAgo)}, unused until ${isoOf(funded)}`);
      c.premiums.push(premiumCents(r, (inc.monthly / 100) * r.uniform(0.012, 0.05)));
    }
  } else {
    // Regular earners: monthly_fixed, month_end, twice_monthly, weekly, fortnightly, and the
    // regular earners of closed_stopped and multi_policy.
    const inc = regularIncome(r, incomeKind, from, to);
    c.income = inc.label;
    c.detail.push(...lifeEvents(r, inc, incomeKind, ctx));
    const floor = floorFor(r, inc.monthly);
    const orders = debitOrders(r, inc.monthly, r.uniform(0.15, 0.5), r.int(1, 5), inc.pays, from, to, inc.cycle >= 15 ? 0.5 : 0);
    const incomeDays = inc.pays.map((p) => p.day);
    const opts = {
      from, to,
      credits: [{ day: from, cents: floor + Math.round(inc.monthly * r.uniform(0, 0.3)), desc: 'BALANCE BROUGHT FORWARD' }, ...inc.pays, ...sideIncome(r, inc.monthly, from, to)],
      orders, floor, style: spendingStyle(r, 'normal'), incomeDays, monthly: inc.monthly, nextIncome: nextIncomeFinder(incomeDays, inc.cycle),
    };
    c.detail.push(`reserve ${formatCents(floor)}`);
    let event = null;
    if (family === 'closed_stopped') {
      const day = periodFirst + r.int(1, Math.min(26, periodLast - periodFirst));
      const kind = r.weighted([['ACCOUNT_CLOSED', 45], ['PAYMENT_STOPPED', 45], ['ACCOUNT_FROZEN', 10]]);
      event = { day, kind };
      if (kind === 'ACCOUNT_CLOSED') {
        opts.closeOn = day;
      } else if (kind === 'ACCOUNT_FROZEN') {
        opts.stopSpendingFrom = day; // a frozen account still receives money; nothing leaves it
        opts.orders = orders.filter((o) => o.day < day);
      }
      c.detail.push(`${kind} ${isoOf(day)}`);
    }
    c.rows = liveAccount(r, c, opts);
    if (event) c.rows.push({ day: event.day, cents: 0, desc: event.kind });
    for (let k = 0; k < policies; k++) {
      const share = policies === 1 ? r.uniform(0.012, 0.06) : r.uniform(0.008, 0.035);
      c.premiums.push(premiumCents(r, (inc.monthly / 100) * share));
    }
  }
  // File order within a day is posting order for debits; keep the simulated order, by day.
  c.rows.sort((a, b) => a.day - b.day); // a stable sort: same-day rows keep their order
  return c;
}

/**
 * One book: `customers` customers of seed `seed`, with history from the first day of the month
 * HISTORY_MONTHS before `period` to the period's last day.
 */
export function generateBook({ seed, period, customers = 1500, newAccountsInPeriod = false }) {
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`seed must be a whole number ≥ 0, got ${seed}`);
  if (!Number.isInteger(customers) || customers < FAMILIES.length) throw new Error(`customers must be a whole number ≥ ${FAMILIES.length}`);
  const ym = parsePeriod(period);
  const start = addMonths(ym, -HISTORY_MONTHS);
  const ctx = {
    from: dayFrom(start.year, start.month, 1),
    to: dayFrom(ym.year, ym.month, daysInMonth(ym.year, ym.month)),
    periodFirst: dayFrom(ym.year, ym.month, 1),
    periodLast: dayFrom(ym.year, ym.month, daysInMonth(ym.year, ym.month)),
    newAccountsInPeriod,
  };
  const book = rngFor(`book|${seed}|${period}`);
  // Family quotas by largest remainder, every family at least one customer, then shuffled so
  // that customer numbers say nothing about families.
  const total = FAMILIES.reduce((s, f) => s + f.weight, 0);
  const quotas = FAMILIES.map((f) => ({ name: f.name, n: Math.max(1, Math.floor((customers * f.weight) / total)), rem: (customers * f.weight) / total % 1 }));
  let assigned = quotas.reduce((s, q) => s + q.n, 0);
  for (const q of [...quotas].sort((a, b) => b.rem - a.rem)) {
    if (assigned >= customers) break;
    q.n++;
    assigned++;
  }
  const families = quotas.flatMap((q) => Array(q.n).fill(q.name));
  while (families.length > customers) families.splice(families.lastIndexOf('monthly_fixed'), 1);
  for (let i = families.length - 1; i > 0; i--) {
    const j = Math.floor(book.next() * (i + 1));
    [families[i], families[j]] = [families[j], families[i]];
  }

  const policyLines = ['customer_id,external_customer_ref,policy_number,product_code,collection_amount'];
  const bankLines = ['customer_id,date,amount,description'];
  const familyLines = ['customer_id,family,income,detail'];
  const counts = Object.fromEntries(FAMILY_NAMES.map((f) => [f, { customers: 0, policies: 0 }]));
  let rowsWritten = 0;
  for (let i = 0; i < customers; i++) {
    const family = families[i];
    const r = rngFor(`customer|${seed}|${period}|${i}`);
    const c = makeCustomer(r, family, i, ctx);
    const id = `BK${seed}-${String(i + 1).padStart(5, '0')}`;
    const ext = `EXT-${String(hash32(`${seed}|${i}`) % 1_000_000).padStart(6, '0')}`;
    c.premiums.forEach((p, k) => {
      policyLines.push(`${id},${ext},BKP${seed}-${String(i + 1).padStart(5, '0')}-${k + 1},${r.pick(PRODUCTS)},${formatCents(p)}`);
    });
    for (const x of c.rows) bankLines.push(`${id},${isoOf(x.day)},${formatCents(x.cents)},${x.desc}`);
    rowsWritten += c.rows.length;
    familyLines.push(`${id},${family},${csvCell(c.income)},${csvCell(c.detail.join('; '))}`);
    counts[family].customers++;
    counts[family].policies += c.premiums.length;
  }
  return {
    policiesCsv: policyLines.join('\n') + '\n',
    bankCsv: bankLines.join('\n') + '\n',
    familiesCsv: familyLines.join('\n') + '\n',
    meta: {
      seed,
      period,
      customers,
      new_accounts_in_period: newAccountsInPeriod,
      policies: policyLines.length - 1,
      bank_rows: rowsWritten,
      history_from: isoOf(ctx.from),
      history_to: isoOf(ctx.to),
      families: counts,
    },
  };
}

function csvCell(text) {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Write a book's files into `dir`; returns the paths. */
export function writeBook(book, dir) {
  mkdirSync(dir, { recursive: true });
  const files = {
    policies: join(dir, 'policies.csv'),
    bank: join(dir, 'bank.csv'),
    families: join(dir, 'families.csv'),
    meta: join(dir, 'book.json'),
  };
  writeFileSync(files.policies, book.policiesCsv);
  writeFileSync(files.bank, book.bankCsv);
  writeFileSync(files.families, book.familiesCsv);
  writeFileSync(files.meta, JSON.stringify(book.meta, null, 2) + '\n');
  return files;
}

export { periodName };

function main() {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      period: { type: 'string', default: '2026-11' },
      customers: { type: 'string', default: '1500' },
      'new-accounts-in-period': { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || !values.out) {
    process.stderr.write('usage: node bench/books/generate.js --seed N --period YYYY-MM [--customers N] [--new-accounts-in-period] --out DIR\n');
    process.exit(values.help ? 0 : 2);
  }
  const book = generateBook({ seed: Number(values.seed), period: values.period, customers: Number(values.customers), newAccountsInPeriod: values['new-accounts-in-period'] });
  const files = writeBook(book, resolve(values.out));
  process.stderr.write(`${book.meta.customers} customers, ${book.meta.policies} policies, ${book.meta.bank_rows} bank rows → ${files.policies}, ${files.bank}, ${files.families}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
