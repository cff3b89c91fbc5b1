/**
 * Generated accounts: a deterministic synthetic bank account for every customer without
 * imported rows, a pure function of (seed, customer_id, epoch, day). Nothing is stored per
 * transaction, which keeps a million customers cheap. The engine never reads a profile: it sees
 * only the transactions the ledger posts.
 *
 * The mix (shares of customers):
 *   income   monthly on a fixed day (30%: mostly the 25th), last business day (14%), twice
 *            monthly on the 15th and the last day (12%), fortnightly (10%), weekly (10%),
 *            irregular gig income of varying size (18%), no income at all (6%).
 *            A payday that is not a business day (a weekend or a holiday of the store's
 *            calendar) moves to the business day before, into the month before if need be.
 *   outgoings comfortable 55% (55-85% of income), tight 30% (90-100%: income barely covers
 *            outgoings), short 15% (105-130%, debt-strapped: debit orders take 85-100% of
 *            outgoings on payday itself, so most of them never can pay a premium).
 *            Otherwise 40-65% of outgoings are 1-4 competing debit orders on payday and the day
 *            after (fixed days early in the month for non-monthly earners); the rest is
 *            spending spread over the month, declined when the balance cannot bear it.
 *   events   from three months after the epoch a monthly hazard of about 1.35% that the account
 *            is closed (no activity from then on), frozen (no debits; credits still arrive) or
 *            has premia's debits stopped.
 * The account opens on the epoch (the first day of the month three months before the first
 * collections period), with a balance of 0.
 */
import { fmix32, hashString32, mix32, Rng, unitFloat } from '../domain/hash.js';
import { monthAt, monthOf, type Calendar, type MonthInfo } from '../domain/calendar.js';
import { grown } from '../domain/typed-arrays.js';
import { premiaDebits, type DayFacts, type PremiaDebits } from './ledger.js';
import type { AccountEvent, AccountSource, Credit, DayActivity, FailureReason } from './types.js';

export type ProfileKind =
  | 'monthly_fixed_day'
  | 'monthly_last_business_day'
  | 'twice_monthly'
  | 'fortnightly'
  | 'weekly'
  | 'irregular'
  | 'none';

export type Affordability = 'comfortable' | 'tight' | 'short';

interface DebitOrder {
  /** 'payday': `offset` days after each main payday; 'dom': on day `offset` of every month. */
  mode: 'payday' | 'dom';
  offset: number;
  amount: number;
  text: string;
}

export interface GeneratedProfile {
  kind: ProfileKind;
  affordability: Affordability;
  /** Monthly income in cents (on average). */
  monthlyIncome: number;
  payDom: number;
  /** A payday (day number) that weekly/fortnightly pay repeats from. */
  anchor: number;
  payAmount: number;
  gigRate: number;
  debitOrders: DebitOrder[];
  spendProb: number;
  spendMean: number;
  event: AccountEvent | null;
  eventDay: number;
}

const KIND_WEIGHTS: Array<[ProfileKind, number]> = [
  ['monthly_fixed_day', 0.3],
  ['monthly_last_business_day', 0.14],
  ['twice_monthly', 0.12],
  ['fortnightly', 0.1],
  ['weekly', 0.1],
  ['irregular', 0.18],
  ['none', 0.06],
];

const PAY_DOM_WEIGHTS: Array<[number, number]> = [
  [25, 0.6],
  [20, 0.1],
  [15, 0.08],
  [28, 0.08],
  [1, 0.07],
  [30, 0.07],
];

const EMPLOYERS = ['ACME MINING', 'CITY COUNCIL', 'BLUE RETAIL', 'NORTH LOGISTICS', 'HARBOUR FOODS', 'STATE HEALTH'];
const DEBIT_ORDER_TEXT = ['DEBIT ORDER VEHICLE FINANCE', 'DEBIT ORDER HOME LOAN', 'DEBIT ORDER CELLPHONE', 'DEBIT ORDER RETAIL CREDIT', 'DEBIT ORDER SCHOOL FEES', 'DEBIT ORDER GYM'];

/** The index of a weighted table's entry drawn by `rng` (one draw). */
function weighted(rng: Rng, weights: readonly number[]): number {
  let r = rng.next();
  for (let k = 0; k < weights.length; k++) {
    if ((r -= weights[k]!) < 0) return k;
  }
  return weights.length - 1;
}

const KIND_WEIGHT = KIND_WEIGHTS.map(([, w]) => w);
const PAY_DOM_WEIGHT = PAY_DOM_WEIGHTS.map(([, w]) => w);
const AFFORDABILITY: readonly Affordability[] = ['comfortable', 'tight', 'short'];

const round10 = (cents: number) => Math.max(10, Math.round(cents / 10) * 10);

/**
 * Draw the profile of (seed, customer) opening on `epochDay` into the integer columns `v` at
 * offset `o` and the real columns `f` at offset `r` of a book (see I_* and F_*). Returns the
 * affordability's index in AFFORDABILITY. Draws nothing but numbers: a million profiles are
 * made when a million-policy book is first opened.
 */
function drawProfile(seed: number, customerId: string, epochDay: number, v: Int32Array, o: number, f: Float64Array, r: number): number {
  const rng = new Rng(hashString32(customerId, seed ^ 0x5bd1e995));
  const kind = weighted(rng, KIND_WEIGHT);
  const affordabilityRoll = rng.next();
  const affordability = affordabilityRoll < 0.55 ? 0 : affordabilityRoll < 0.85 ? 1 : 2;
  // Monthly income log-uniform between 3 500.00 and 65 000.00.
  const monthlyIncome = Math.round(350_000 * Math.pow(6_500_000 / 350_000, rng.next()));
  const ratio = affordability === 0 ? 0.55 + 0.3 * rng.next() : affordability === 1 ? 0.9 + 0.1 * rng.next() : 1.05 + 0.25 * rng.next();
  const outgoings = monthlyIncome * ratio;
  // Debt-strapped customers: debit orders take nearly everything on payday itself.
  const debitShare = affordability === 2 ? 0.85 + 0.15 * rng.next() : 0.4 + 0.25 * rng.next();
  const payDom = PAY_DOM_WEIGHTS[weighted(rng, PAY_DOM_WEIGHT)]![0];
  // First Friday on or after the epoch, then a random phase for fortnightly pay; weekly wages are
  // paid on Fridays (80%) or Thursdays.
  let firstFriday = epochDay;
  while (((firstFriday + 4) % 7 + 7) % 7 !== 5) firstFriday++;
  const anchor = firstFriday - (kind === K_WEEKLY && rng.next() < 0.2 ? 1 : 0) + (kind === K_FORTNIGHTLY && rng.next() < 0.5 ? 7 : 0);
  const payAmount =
    kind === K_TWICE
      ? Math.round(monthlyIncome / 2)
      : kind === K_FORTNIGHTLY
        ? Math.round((monthlyIncome * 12) / 26)
        : kind === K_WEEKLY
          ? Math.round((monthlyIncome * 12) / 52)
          : monthlyIncome;
  f[r + F_GIG] = 0.12 + 0.23 * rng.next();

  const count = 1 + Math.floor(rng.next() * 4);
  let left = outgoings * debitShare;
  const monthlyPay = kind <= K_TWICE;
  for (let i = 0; i < count; i++) {
    const amount = i === count - 1 ? left : left * (0.3 + 0.4 * rng.next());
    left -= amount;
    const offset = monthlyPay ? (affordability === 2 || rng.next() < 0.55 ? 0 : 1) : 1 + Math.floor(rng.next() * 6);
    v[o + I_AMOUNT0 + i] = round10(amount);
    const meta = ((monthlyPay ? 1 : 0) << 8) | (offset << 4) | Math.floor(rng.next() * DEBIT_ORDER_TEXT.length);
    v[o + I_METAS + (i >> 1)] = v[o + I_METAS + (i >> 1)]! | (meta << ((i & 1) << 4));
  }
  const spendProb = 0.3 + 0.3 * rng.next();
  f[r + F_SPENDP] = spendProb;
  f[r + F_SPENDM] = (outgoings * (1 - debitShare)) / (30.4 * spendProb);

  // Account events: months until the first event, geometric with a monthly hazard.
  let event = 0;
  let eventDay = NO_DAY;
  const hazard = 0.0135;
  const u = rng.next();
  const monthsAfter = Math.floor(Math.log(1 - u) / Math.log(1 - hazard));
  if (monthsAfter < 240) {
    const roll = rng.next();
    event = roll < 0.37 ? 1 : roll < 0.63 ? 2 : 3;
    const month = monthAt(monthOf(epochDay).index + 3 + monthsAfter);
    eventDay = month.firstDay + Math.floor(rng.next() * month.daysInMonth);
  }

  v[o + I_KEY] = keyOf(seed, customerId);
  v[o + I_SHAPE] = shape(kind, payDom, event, count);
  v[o + I_ANCHOR] = anchor;
  v[o + I_PAY] = payAmount;
  v[o + I_MONTHLY] = monthlyIncome;
  v[o + I_EVENTDAY] = eventDay;
  v[o + I_START] = epochDay;
  return affordability;
}

/** The key a generated account's per-day draws start from. */
function keyOf(seed: number, customerId: string): number {
  return hashString32(customerId, seed ^ 0x1b873593);
}

/** The profile of (seed, customer) opening on `epochDay`, as an object (what a book keeps in its columns). */
export function generatedProfile(seed: number, customerId: string, epochDay: number): GeneratedProfile {
  const v = new Int32Array(I_STRIDE);
  const f = new Float64Array(F_STRIDE);
  const affordability = drawProfile(seed, customerId, epochDay, v, 0, f, 0);
  const debitOrders: DebitOrder[] = [];
  for (let k = 0; k < ordersOf(v, 0); k++) {
    const meta = orderMeta(v, 0, k);
    debitOrders.push({ mode: meta >> 8 === 0 ? 'dom' : 'payday', offset: (meta >> 4) & 15, amount: v[I_AMOUNT0 + k]!, text: DEBIT_ORDER_TEXT[meta & 15]! });
  }
  return {
    kind: KIND_WEIGHTS[kindOf(v, 0)]![0],
    affordability: AFFORDABILITY[affordability]!,
    monthlyIncome: v[I_MONTHLY]!,
    payDom: payDomOf(v, 0),
    anchor: v[I_ANCHOR]!,
    payAmount: v[I_PAY]!,
    gigRate: f[F_GIG]!,
    debitOrders,
    spendProb: f[F_SPENDP]!,
    spendMean: f[F_SPENDM]!,
    event: EVENT_NAMES[eventOf(v, 0)] ?? null,
    eventDay: eventOf(v, 0) === 0 ? Number.POSITIVE_INFINITY : v[I_EVENTDAY]!,
  };
}

// Kind codes: the index in KIND_WEIGHTS.
const K_TWICE = 2;
const K_FORTNIGHTLY = 3;
const K_WEEKLY = 4;
const EVENT_NAMES: Array<AccountEvent | null> = [null, 'ACCOUNT_CLOSED', 'ACCOUNT_FROZEN', 'PAYMENT_STOPPED'];
const NO_DAY = 0x7fffffff;
const TWO_POW_MINUS_32 = 1 / 4294967296;
/** The no-income kind's transfers: unitFloat(h) < 0.03 (quietDays). */
const NONE_BELOW = 0.03 * 4294967296;

// Integer columns of an account (I_STRIDE per account): its small fields in one (SHAPE), then its
// up to 4 debit orders: their metas (mode << 8 | offset << 4 | text, 16 bits each, two an
// integer: orderMeta) and their amounts: 13 integers (a field an integer would take 19, 24 bytes
// more an account). The employer is drawn from the key (employerOf).
const I_KEY = 0;
const I_SHAPE = 1;
const I_ANCHOR = 2;
const I_PAY = 3;
const I_MONTHLY = 4;
const I_EVENTDAY = 5;
const I_START = 6;
const I_METAS = 7;
const I_AMOUNT0 = 9;
const I_STRIDE = I_AMOUNT0 + 4;

/** The small fields of an account, in its SHAPE integer: kind (3 bits), pay day of month (5), event (2), debit orders (3). */
const shape = (kind: number, payDom: number, event: number, orders: number): number => kind | (payDom << 3) | (event << 8) | (orders << 10);
const kindOf = (v: Int32Array, o: number): number => v[o + I_SHAPE]! & 7;
const payDomOf = (v: Int32Array, o: number): number => (v[o + I_SHAPE]! >> 3) & 31;
const eventOf = (v: Int32Array, o: number): number => (v[o + I_SHAPE]! >> 8) & 3;
const ordersOf = (v: Int32Array, o: number): number => (v[o + I_SHAPE]! >> 10) & 7;
/** Debit order k's meta (mode << 8 | offset << 4 | text). */
const orderMeta = (v: Int32Array, o: number, k: number): number => (v[o + I_METAS + (k >> 1)]! >>> ((k & 1) << 4)) & 0xffff;
/** The employer named in an account's income (the key as drawn, unsigned). */
const employerOf = (v: Int32Array, o: number): number => (v[o + I_KEY]! >>> 0) % EMPLOYERS.length;
// Real columns.
const F_GIG = 0;
const F_SPENDP = 1;
const F_SPENDM = 2;
const F_STRIDE = 3;

/** The integers and the doubles of one account's profile in a book (GeneratedBook.profileInto). */
export const PROFILE_INTS = I_STRIDE;
export const PROFILE_REALS = F_STRIDE;

/**
 * Generated accounts, column-wise: a million of them live in memory during a run, so each is a
 * slice of two typed arrays (76 bytes) rather than an object. The paydays of the month
 * an account is living are kept for the account last entered (enterMonth), so living a day is a
 * few comparisons and one hash. Paydays are on the business days of `calendar` (the store's).
 */
export class GeneratedBook {
  private ints: Int32Array;
  private reals: Float64Array;
  private count = 0;
  // The month of the account entered last (offset `mo`): its days, and the account's main paydays
  // in it, the month before and the month after (-1: none), and its mid-month payday (twice
  // monthly; else -1). One set for the book, not per account: 32 bytes an account (24 MiB at
  // 800,000 accounts) held only to skip these few lookups when an account's next day comes.
  private mo = -1;
  private mFirst = 1;
  private mLast = 0;
  private payMain = -1;
  private payPrev = -1;
  private payNext = -1;
  private payMid = -1;

  constructor(
    capacity: number,
    private readonly calendar: Calendar,
  ) {
    this.ints = new Int32Array(capacity * I_STRIDE);
    this.reals = new Float64Array(capacity * F_STRIDE);
  }

  get size(): number {
    return this.count;
  }

  /** Add the account of (seed, customer) opening on `epochDay`; returns its index. */
  add(seed: number, customerId: string, epochDay: number): number {
    this.ints = grown(this.ints, (this.count + 1) * I_STRIDE);
    this.reals = grown(this.reals, (this.count + 1) * F_STRIDE);
    const i = this.count++;
    drawProfile(seed, customerId, epochDay, this.ints, i * I_STRIDE, this.reals, i * F_STRIDE);
    return i;
  }

  /** Account i's profile into ints[io ..] and reals[ro ..] (PROFILE_INTS and PROFILE_REALS of them), for `addDrawn`. */
  profileInto(i: number, ints: Int32Array, io: number, reals: Float64Array, ro: number): void {
    for (let x = 0; x < I_STRIDE; x++) ints[io + x] = this.ints[i * I_STRIDE + x]!;
    for (let x = 0; x < F_STRIDE; x++) reals[ro + x] = this.reals[i * F_STRIDE + x]!;
  }

  /**
   * Add the account of (seed, customer) opening on `epochDay` with the profile another book drew
   * for it (profileInto: the same function of the three), copied rather than drawn again; drawn
   * after all when that profile is not this account's (another key or first day).
   */
  addDrawn(seed: number, customerId: string, epochDay: number, ints: Int32Array, io: number, reals: Float64Array, ro: number): number {
    if (ints[io + I_KEY] !== (keyOf(seed, customerId) | 0) || ints[io + I_START] !== epochDay) return this.add(seed, customerId, epochDay);
    this.ints = grown(this.ints, (this.count + 1) * I_STRIDE);
    this.reals = grown(this.reals, (this.count + 1) * F_STRIDE);
    const i = this.count++;
    for (let x = 0; x < I_STRIDE; x++) this.ints[i * I_STRIDE + x] = ints[io + x]!;
    for (let x = 0; x < F_STRIDE; x++) this.reals[i * F_STRIDE + x] = reals[ro + x]!;
    return i;
  }

  startDay(i: number): number {
    return this.ints[i * I_STRIDE + I_START]!;
  }

  /** The day month m's main pay lands on (possibly in the month before), or -1. */
  private mainPaydayOf(o: number, m: MonthInfo): number {
    switch (kindOf(this.ints, o)) {
      case 0:
        return this.calendar.payMonth(m).payDay[payDomOf(this.ints, o)]!;
      case 1:
      case 2:
        return this.calendar.payMonth(m).lastBusinessDay;
      default:
        return -1;
    }
  }

  /** The day a weekly or fortnightly wage due on `due` is paid: the business day on or before it. */
  private cyclePay(due: number): number {
    return this.calendar.onOrBefore(due);
  }

  /** Enter `day`'s month for the account at offset `o` (mFirst .. payMid are then its). */
  private enterMonth(o: number, day: number): void {
    if (o === this.mo && day <= this.mLast && day >= this.mFirst) return;
    const m = monthOf(day);
    this.mo = o;
    this.mFirst = m.firstDay;
    this.mLast = m.lastDay;
    this.payMain = this.mainPaydayOf(o, m);
    this.payPrev = this.mainPaydayOf(o, monthOf(m.firstDay - 1));
    this.payNext = this.mainPaydayOf(o, monthOf(m.lastDay + 1));
    this.payMid = kindOf(this.ints, o) === 2 ? this.calendar.payMonth(m).payDay[15]! : -1;
  }

  /** Whether `day` (this month or the last days of the one before) is a main payday of the account entered. */
  private isMainPayday(day: number): boolean {
    if (this.payMain < 0) return false;
    return day === this.payMain || day === this.payPrev || day === this.payNext;
  }

  /** The income credit of a day, or 0 (`day`'s month must be entered for the account: enterMonth). */
  private incomeOn(i: number, o: number, day: number): number {
    const v = this.ints;
    if (day < v[o + I_START]!) return 0;
    if (day >= v[o + I_EVENTDAY]! && eventOf(v, o) === 1) return 0;
    const kind = kindOf(v, o);
    switch (kind) {
      case 0:
      case 1:
        // This month's pay, or next month's paid early (its day 1 moved back into this month).
        return day === this.payMain || day === this.payNext ? v[o + I_PAY]! : 0;
      case 2:
        return day === this.payMain || day === this.payMid ? v[o + I_PAY]! : 0;
      case 3:
      case 4: {
        // Wages are due every period from the anchor, paid the business day before when the due
        // day is not one.
        const period = kind === 4 ? 7 : 14;
        // The due day on or after `day`.
        const due = day + ((((v[o + I_ANCHOR]! - day) % period) + period) % period);
        if (this.cyclePay(due) !== day) return 0;
        // Wages vary a little with hours worked.
        return Math.round(v[o + I_PAY]! * (0.92 + 0.16 * unitFloat(mix32(v[o + I_KEY]!, due))));
      }
      case 5:
        return gigIncome(mix32(v[o + I_KEY]! ^ GIG_SALT, day), this.reals[i * F_STRIDE + F_GIG]!, v[o + I_MONTHLY]!);
      default:
        return otherIncome(mix32(v[o + I_KEY]! ^ OTHER_SALT, day));
    }
  }

  private incomeText(o: number): string {
    const employer = employerOf(this.ints, o);
    switch (kindOf(this.ints, o)) {
      case 5:
        return 'GIG PLATFORM PAYOUT';
      case 6:
        return 'TRANSFER FROM FAMILY';
      case 3:
      case 4:
        return WAGE_TEXT[employer]!;
      default:
        return SALARY_TEXT[employer]!;
    }
  }

  /**
   * Whether the debit order of `meta` (orderMeta) of the account entered (enterMonth) is due on
   * `day` (in the month that starts on `mFirst`): on its day of the month, or `offset` days after
   * a main payday.
   */
  private orderDue(meta: number, day: number, mFirst: number): boolean {
    const offset = (meta >> 4) & 15;
    return meta >> 8 === 0 ? day - mFirst + 1 === offset : this.isMainPayday(day - offset);
  }

  dayActivity(i: number, day: number, out: DayActivity): void {
    out.clear();
    const v = this.ints;
    const o = i * I_STRIDE;
    if (day < v[o + I_START]!) return;
    this.enterMonth(o, day);
    const eventDay = v[o + I_EVENTDAY]!;
    const event = eventOf(v, o);
    if (day === eventDay) out.addEvent(EVENT_NAMES[event]!);
    if (day >= eventDay && event === 1) return;
    const income = this.incomeOn(i, o, day);
    if (income > 0) out.addCredit(income, this.incomeText(o));
    if (day >= eventDay && event === 2) return; // a frozen account pays nothing out
    const orders = ordersOf(v, o);
    for (let k = 0; k < orders; k++) {
      const meta = orderMeta(v, o, k);
      if (this.orderDue(meta, day, this.mFirst)) out.addDebit(v[o + I_AMOUNT0 + k]!, DEBIT_ORDER_TEXT[meta & 15]!);
    }
    const h = mix32(v[o + I_KEY]! ^ 0x3c6ef372, day);
    const r = i * F_STRIDE;
    if (unitFloat(h) < this.reals[r + F_SPENDP]!) {
      const amount = Math.round(this.reals[r + F_SPENDM]! * (0.3 + 1.4 * unitFloat(fmix32(h ^ 0x165667b1))));
      if (amount > 0) out.addDebit(amount, h % 3 === 0 ? 'CASH WITHDRAWAL' : 'CARD PURCHASE');
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
  liveDays(
    i: number,
    first: number,
    last: number,
    opening: number,
    blocked: FailureReason | null,
    premia: PremiaDebits | null,
    outcomes: Array<FailureReason | null>,
    facts: DayFacts,
    amounts: number[],
    onDay: ((day: number, facts: DayFacts) => void) | null,
  ): number {
    const v = this.ints;
    const o = i * I_STRIDE;
    const r = i * F_STRIDE;
    // The account's columns, once for the run of days.
    const start = v[o + I_START]!;
    const key = v[o + I_KEY]!;
    const kind = kindOf(v, o);
    const pay = v[o + I_PAY]!;
    const eventDay = v[o + I_EVENTDAY]!;
    const event = eventOf(v, o);
    const closedFrom = event === 1 ? eventDay : NO_DAY;
    const frozenFrom = event === 2 ? eventDay : NO_DAY;
    const period = kind === 4 ? 7 : 14;
    const anchor = v[o + I_ANCHOR]!;
    const spendProb = this.reals[r + F_SPENDP]!;
    const spendMean = this.reals[r + F_SPENDM]!;
    const orders = ordersOf(v, o);
    // The month entered (none yet), and the wage's due day and payday (none yet: 0).
    let mFirst = 1;
    let mLast = 0;
    let cycleDue = 0;
    let cyclePay = 0;
    let balance = opening;
    for (let day = first; day <= last; day++) {
      let credits = 0;
      // 0: no activity (before the first day, or closed); 1: credits only (frozen); 2: everything.
      let activity = 0;
      if (day >= start && day < closedFrom) {
        if (day > mLast || day < mFirst || this.mo !== o) {
          this.enterMonth(o, day);
          mFirst = this.mFirst;
          mLast = this.mLast;
        }
        let income = 0;
        if (kind === 3 || kind === 4) {
          // Wages are due every period from the anchor, paid the business day before when the due
          // day is not one; the due day on or after `day` is the one found last while `day` is in its cycle.
          if (day > cycleDue || day <= cycleDue - period) {
            cycleDue = day + ((((anchor - day) % period) + period) % period);
            cyclePay = this.cyclePay(cycleDue);
          }
          // Wages vary a little with hours worked.
          if (cyclePay === day) income = Math.round(pay * (0.92 + 0.16 * unitFloat(mix32(key, cycleDue))));
        } else income = this.incomeOn(i, o, day);
        if (income > 0) {
          balance += income;
          credits = income;
        }
        activity = day >= frozenFrom ? 1 : 2;
      }
      facts.collected = 0;
      facts.premiaDebits = 0;
      if (premia !== null) balance = premiaDebits(premia, day, balance, blocked, outcomes, facts, amounts);
      let posted = 0;
      if (activity === 2) {
        for (let k = 0; k < orders; k++) {
          if (!this.orderDue(orderMeta(v, o, k), day, mFirst)) continue;
          const amount = v[o + I_AMOUNT0 + k]!;
          if (amount <= balance) {
            balance -= amount;
            posted += amount;
          }
        }
        const h = mix32(key ^ 0x3c6ef372, day);
        if (unitFloat(h) < spendProb) {
          const amount = Math.round(spendMean * (0.3 + 1.4 * unitFloat(fmix32(h ^ 0x165667b1))));
          if (amount > 0 && amount <= balance) {
            balance -= amount;
            posted += amount;
          }
        }
      }
      facts.credits = credits;
      facts.postedDebits = posted;
      if (onDay !== null) onDay(day, facts);
    }
    return balance;
  }

  /**
   * Live generated account i through the days first..last from the balance `opening` with none
   * of premia's debits, as `liveDays` does, writing each day's credits and posted debits into
   * credits[k] and debits[k] (k = day - first). The replay's hot path: a month's paydays and
   * debit order days are found once per month, not tested day by day. Returns the balance at
   * the end of `last`.
   */
  quietDays(i: number, first: number, last: number, opening: number, credits: Float64Array, debits: Float64Array): number {
    const v = this.ints;
    const o = i * I_STRIDE;
    const r = i * F_STRIDE;
    const start = v[o + I_START]!;
    const key = v[o + I_KEY]!;
    const kind = kindOf(v, o);
    const pay = v[o + I_PAY]!;
    const monthly = v[o + I_MONTHLY]!;
    const eventDay = v[o + I_EVENTDAY]!;
    const event = eventOf(v, o);
    const closedFrom = event === 1 ? eventDay : NO_DAY;
    const frozenFrom = event === 2 ? eventDay : NO_DAY;
    const period = kind === 4 ? 7 : 14;
    const anchor = v[o + I_ANCHOR]!;
    const gigRate = this.reals[r + F_GIG]!;
    const spendProb = this.reals[r + F_SPENDP]!;
    const spendMean = this.reals[r + F_SPENDM]!;
    const orders = ordersOf(v, o);
    const spendKey = key ^ 0x3c6ef372;
    const gigKey = key ^ 0x68e31da4;
    const noneKey = key ^ 0x7a3b9c1d;
    const gigMean = monthly / (30.4 * gigRate);
    // unitFloat(h) < p exactly when h < p * 2^32 (both sides scaled by a power of two), and
    // unitFloat(x) is x * 2^-32: no division a day.
    const spendBelow = spendProb * 4294967296;
    const gigBelow = gigRate * 4294967296;
    let cycleDue = 0;
    let cyclePay = 0;
    // Per month: the days (as bits from the month's first day) with a monthly pay, and with a
    // debit order due.
    let balance = opening;
    let day = first;
    while (day <= last) {
      this.enterMonth(o, day);
      const mFirst = this.mFirst;
      const mLast = this.mLast;
      const end = last < mLast ? last : mLast;
      let payBits = 0;
      if (kind <= 2) {
        const a = this.payMain;
        const b = kind === 2 ? this.payMid : this.payNext;
        if (a >= mFirst && a <= mLast) payBits |= 1 << (a - mFirst);
        if (b >= mFirst && b <= mLast) payBits |= 1 << (b - mFirst);
      }
      let orderBits = 0;
      for (let k = 0; k < orders; k++) {
        const meta = orderMeta(v, o, k);
        const offset = (meta >> 4) & 15;
        if (meta >> 8 === 0) {
          const d = mFirst + offset - 1;
          if (d <= mLast) orderBits |= 1 << (d - mFirst);
        } else if (this.payMain >= 0) {
          for (const p of [this.payMain, this.payPrev, this.payNext]) {
            const d = p + offset;
            if (d >= mFirst && d <= mLast) orderBits |= 1 << (d - mFirst);
          }
        }
      }
      for (; day <= end; day++) {
        let credit = 0;
        let posted = 0;
        if (day >= start && day < closedFrom) {
          const bit = 1 << (day - mFirst);
          if (kind <= 2) {
            if ((payBits & bit) !== 0) credit = pay;
          } else if (kind <= 4) {
            if (day > cycleDue || day <= cycleDue - period) {
              cycleDue = day + ((((anchor - day) % period) + period) % period);
              cyclePay = this.cyclePay(cycleDue);
            }
            if (cyclePay === day) credit = Math.round(pay * (0.92 + 0.16 * (mix32(key, cycleDue) * TWO_POW_MINUS_32)));
          } else if (kind === 5) {
            const h = mix32(gigKey, day);
            if (h < gigBelow) {
              const factor = -Math.log(1 - 0.999 * (fmix32(h ^ 0x2545f491) * TWO_POW_MINUS_32));
              credit = Math.max(500, Math.round((gigMean * factor) / 10) * 10);
            }
          } else {
            const h = mix32(noneKey, day);
            if (h < NONE_BELOW) credit = 5_000 + (h % 20) * 1_000;
          }
          balance += credit;
          if (day < frozenFrom) {
            if ((orderBits & bit) !== 0) {
              for (let k = 0; k < orders; k++) {
                if (!this.orderDue(orderMeta(v, o, k), day, mFirst)) continue;
                const amount = v[o + I_AMOUNT0 + k]!;
                if (amount <= balance) {
                  balance -= amount;
                  posted += amount;
                }
              }
            }
            const h = mix32(spendKey, day);
            if (h < spendBelow) {
              const amount = Math.round(spendMean * (0.3 + 1.4 * (fmix32(h ^ 0x165667b1) * TWO_POW_MINUS_32)));
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
    return balance;
  }

  /**
   * The first day from..to on which a credit posts to account i, or to + 1 when none does. Asked
   * for every account the engine puts to sleep (engine/awake.ts): regular pay is looked for on
   * its paydays only (the only days incomeOn can pay it), each confirmed by incomeOn; irregular
   * deposits day by day.
   */
  nextCreditDay(i: number, from: number, to: number): number {
    const v = this.ints;
    const o = i * I_STRIDE;
    const kind = kindOf(v, o);
    let day = Math.max(from, v[o + I_START]!);
    if (kind <= 2) {
      // This month's main pay, and the next month's paid early (or the 15th's, twice monthly).
      while (day <= to) {
        this.enterMonth(o, day);
        const last = Math.min(to, this.mLast);
        const a = this.payMain;
        const b = kind === 2 ? this.payMid : this.payNext;
        let next = last + 1;
        if (a >= day && a < next) next = a;
        if (b >= day && b < next) next = b;
        if (next > last) {
          day = last + 1;
          continue;
        }
        if (this.incomeOn(i, o, next) > 0) return next;
        day = next + 1;
      }
      return to + 1;
    }
    if (kind <= 4) {
      // Paid on the business day on or before each due day, the due days a period apart.
      const period = kind === 4 ? 7 : 14;
      for (let due = day + ((((v[o + I_ANCHOR]! - day) % period) + period) % period); ; due += period) {
        const pay = this.cyclePay(due);
        if (pay > to) return to + 1;
        if (pay < day) continue;
        this.enterMonth(o, pay);
        if (this.incomeOn(i, o, pay) > 0) return pay;
      }
    }
    for (; day <= to; day++) {
      this.enterMonth(o, day);
      if (this.incomeOn(i, o, day) > 0) return day;
    }
    return to + 1;
  }

  events(i: number): Array<{ event: AccountEvent; day: number }> {
    const o = i * I_STRIDE;
    const event = eventOf(this.ints, o);
    return event === 0 ? [] : [{ event: EVENT_NAMES[event]!, day: this.ints[o + I_EVENTDAY]! }];
  }

  credits(i: number, from: number, to: number): Credit[] {
    const o = i * I_STRIDE;
    const v = this.ints;
    const out: Credit[] = [];
    const first = Math.max(from, v[o + I_START]!);
    // Nothing arrives once the account is closed.
    const last = eventOf(v, o) === 1 ? Math.min(to, v[o + I_EVENTDAY]! - 1) : to;
    const kind = kindOf(v, o);
    if (kind <= 2) {
      // Monthly pay: the payday(s) of each month, computed directly (next month's may land
      // in this one).
      for (let m = monthOf(first); m.firstDay <= last + 7; m = monthOf(m.lastDay + 1)) {
        const main = this.mainPaydayOf(o, m);
        const mid = kind === 2 ? this.calendar.payMonth(m).payDay[15]! : -1;
        const pay = v[o + I_PAY]!;
        if (mid >= first && mid <= last && mid < main) out.push({ day: mid, amount: pay });
        if (main >= first && main <= last) out.push({ day: main, amount: pay });
      }
      return out;
    }
    if (kind === 3 || kind === 4) {
      // Weekly / fortnightly pay: due every period from the anchor, paid the business day before.
      const period = kind === 4 ? 7 : 14;
      const anchor = v[o + I_ANCHOR]!;
      for (let due = first + ((((anchor - first) % period) + period) % period); ; due += period) {
        const day = this.cyclePay(due);
        if (day > last) break;
        if (day >= first) out.push({ day, amount: Math.round(v[o + I_PAY]! * (0.92 + 0.16 * unitFloat(mix32(v[o + I_KEY]!, due)))) });
      }
      return out;
    }
    // Deposits on days of their own (incomeOn's last two cases, the account's facts read once).
    const rate = this.reals[i * F_STRIDE + F_GIG]!;
    const monthly = v[o + I_MONTHLY]!;
    const key = v[o + I_KEY]! ^ (kind === 5 ? GIG_SALT : OTHER_SALT);
    for (let day = first; day <= last; day++) {
      const h = mix32(key, day);
      const amount = kind === 5 ? gigIncome(h, rate, monthly) : otherIncome(h);
      if (amount > 0) out.push({ day, amount });
    }
    return out;
  }
}

/** The salts of the daily draws of a gig worker's deposits and of other accounts' odd credits. */
const GIG_SALT = 0x68e31da4;
const OTHER_SALT = 0x7a3b9c1d;

/** A gig worker's deposit of a day (0: none) from its draw `h`: on a `rate` share of days, of widely varying size, mean monthly / (30.4 × rate). */
function gigIncome(h: number, rate: number, monthly: number): number {
  if (unitFloat(h) >= rate) return 0;
  const factor = -Math.log(1 - 0.999 * unitFloat(fmix32(h ^ 0x2545f491)));
  return Math.max(500, Math.round(((monthly / (30.4 * rate)) * factor) / 10) * 10);
}

/** An account with no pay's odd credit of a day (0: none) from its draw `h`: 3 % of days, 50.00 to 240.00. */
function otherIncome(h: number): number {
  return unitFloat(h) < 0.03 ? 5_000 + (h % 20) * 1_000 : 0;
}

const SALARY_TEXT = EMPLOYERS.map((e) => `SALARY ${e}`);
const WAGE_TEXT = EMPLOYERS.map((e) => `WAGES ${e}`);

/** One generated account as an AccountSource: an index into a book. */
export class GeneratedAccount implements AccountSource {
  readonly kind = 'generated' as const;
  constructor(
    readonly book: GeneratedBook,
    readonly index: number,
  ) {}

  get startDay(): number {
    return this.book.startDay(this.index);
  }

  dayActivity(day: number, out: DayActivity): void {
    this.book.dayActivity(this.index, day, out);
  }

  credits(from: number, to: number): Credit[] {
    return this.book.credits(this.index, from, to);
  }

  events(): Array<{ event: AccountEvent; day: number }> {
    return this.book.events(this.index);
  }
}

/** A single generated account (in a book of its own), with paydays on `calendar`. */
export function generatedAccount(seed: number, customerId: string, epochDay: number, calendar: Calendar): GeneratedAccount {
  const book = new GeneratedBook(1, calendar);
  return new GeneratedAccount(book, book.add(seed, customerId, epochDay));
}
