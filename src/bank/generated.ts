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
 *            A payday on a weekend moves to the Friday before.
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
import { monthOf } from '../domain/calendar.js';
import type { AccountEvent, AccountSource, Credit, DayActivity } from './types.js';

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

function weighted<T>(rng: Rng, table: Array<[T, number]>): T {
  let r = rng.next();
  for (const [value, w] of table) {
    if ((r -= w) < 0) return value;
  }
  return table[table.length - 1]![0];
}

const round10 = (cents: number) => Math.max(10, Math.round(cents / 10) * 10);

export function generatedProfile(seed: number, customerId: string, epochDay: number): GeneratedProfile {
  const rng = new Rng(hashString32(customerId, seed ^ 0x5bd1e995));
  const kind = weighted(rng, KIND_WEIGHTS);
  const affordabilityRoll = rng.next();
  const affordability: Affordability = affordabilityRoll < 0.55 ? 'comfortable' : affordabilityRoll < 0.85 ? 'tight' : 'short';
  // Monthly income log-uniform between 3 500.00 and 65 000.00.
  const monthlyIncome = Math.round(350_000 * Math.pow(6_500_000 / 350_000, rng.next()));
  const ratio =
    affordability === 'comfortable' ? 0.55 + 0.3 * rng.next() : affordability === 'tight' ? 0.9 + 0.1 * rng.next() : 1.05 + 0.25 * rng.next();
  const outgoings = monthlyIncome * ratio;
  // Debt-strapped customers: debit orders take nearly everything on payday itself.
  const debitShare = affordability === 'short' ? 0.85 + 0.15 * rng.next() : 0.4 + 0.25 * rng.next();
  const payDom = weighted(rng, PAY_DOM_WEIGHTS);
  // First Friday on or after the epoch, then a random phase for fortnightly pay; weekly wages are
  // paid on Fridays (80%) or Thursdays.
  let firstFriday = epochDay;
  while (((firstFriday + 4) % 7 + 7) % 7 !== 5) firstFriday++;
  const anchor = firstFriday - (kind === 'weekly' && rng.next() < 0.2 ? 1 : 0) + (kind === 'fortnightly' && rng.next() < 0.5 ? 7 : 0);
  const payAmount =
    kind === 'twice_monthly'
      ? Math.round(monthlyIncome / 2)
      : kind === 'fortnightly'
        ? Math.round((monthlyIncome * 12) / 26)
        : kind === 'weekly'
          ? Math.round((monthlyIncome * 12) / 52)
          : monthlyIncome;
  const gigRate = 0.12 + 0.23 * rng.next();

  const orders: DebitOrder[] = [];
  const count = 1 + Math.floor(rng.next() * 4);
  let left = outgoings * debitShare;
  const monthlyPay = kind === 'monthly_fixed_day' || kind === 'monthly_last_business_day' || kind === 'twice_monthly';
  for (let i = 0; i < count; i++) {
    const amount = i === count - 1 ? left : left * (0.3 + 0.4 * rng.next());
    left -= amount;
    orders.push({
      mode: monthlyPay ? 'payday' : 'dom',
      offset: monthlyPay ? (affordability === 'short' || rng.next() < 0.55 ? 0 : 1) : 1 + Math.floor(rng.next() * 6),
      amount: round10(amount),
      text: DEBIT_ORDER_TEXT[Math.floor(rng.next() * DEBIT_ORDER_TEXT.length)]!,
    });
  }
  const spendProb = 0.3 + 0.3 * rng.next();
  const spendMean = (outgoings * (1 - debitShare)) / (30.4 * spendProb);

  // Account events: months until the first event, geometric with a monthly hazard.
  let event: AccountEvent | null = null;
  let eventDay = Number.POSITIVE_INFINITY;
  const hazard = 0.0135;
  const u = rng.next();
  const monthsAfter = Math.floor(Math.log(1 - u) / Math.log(1 - hazard));
  if (monthsAfter < 240) {
    const roll = rng.next();
    event = roll < 0.37 ? 'ACCOUNT_CLOSED' : roll < 0.63 ? 'ACCOUNT_FROZEN' : 'PAYMENT_STOPPED';
    let month = monthOf(epochDay);
    for (let m = 0; m < 3 + monthsAfter; m++) month = monthOf(month.lastDay + 1);
    eventDay = month.firstDay + Math.floor(rng.next() * month.daysInMonth);
  }

  return {
    kind,
    affordability,
    monthlyIncome,
    payDom,
    anchor,
    payAmount,
    gigRate,
    debitOrders: orders,
    spendProb,
    spendMean,
    event,
    eventDay,
  };
}

const KIND_CODES: Record<ProfileKind, number> = {
  monthly_fixed_day: 0,
  monthly_last_business_day: 1,
  twice_monthly: 2,
  fortnightly: 3,
  weekly: 4,
  irregular: 5,
  none: 6,
};
const EVENT_NAMES: Array<AccountEvent | null> = [null, 'ACCOUNT_CLOSED', 'ACCOUNT_FROZEN', 'PAYMENT_STOPPED'];

/**
 * A generated account: the profile's facts copied into plain numeric fields (a million of these
 * live in memory during a run), and the current month's paydays cached so living a day is a few
 * comparisons and one hash.
 */
export class GeneratedAccount implements AccountSource {
  readonly kind = 'generated' as const;
  private readonly key: number;
  private readonly kindCode: number;
  private readonly payDom: number;
  private readonly anchor: number;
  private readonly payAmount: number;
  private readonly monthlyIncome: number;
  private readonly gigRate: number;
  private readonly spendProb: number;
  private readonly spendMean: number;
  private readonly eventCode: number;
  private readonly eventDay: number;
  private readonly employer: number;
  /** Debit orders, four numbers each: mode (0 day of month, 1 days after payday), offset, amount, text. */
  private readonly orders: number[];
  // The cached month: its first and last day, the main payday of this month and of the month
  // before (-1 when none), and the mid-month payday of twice-monthly earners.
  private mFirst = 1;
  private mLast = 0;
  private payMain = -1;
  private payMainPrev = -1;
  private payMid = -1;

  constructor(
    profile: GeneratedProfile,
    seed: number,
    customerId: string,
    readonly startDay: number,
  ) {
    this.key = hashString32(customerId, seed ^ 0x1b873593);
    this.employer = this.key % EMPLOYERS.length;
    this.kindCode = KIND_CODES[profile.kind];
    this.payDom = profile.payDom;
    this.anchor = profile.anchor;
    this.payAmount = profile.payAmount;
    this.monthlyIncome = profile.monthlyIncome;
    this.gigRate = profile.gigRate;
    this.spendProb = profile.spendProb;
    this.spendMean = profile.spendMean;
    this.eventCode = profile.event === null ? 0 : EVENT_NAMES.indexOf(profile.event);
    this.eventDay = profile.event === null ? Number.POSITIVE_INFINITY : profile.eventDay;
    this.orders = [];
    for (const o of profile.debitOrders) this.orders.push(o.mode === 'dom' ? 0 : 1, o.offset, o.amount, DEBIT_ORDER_TEXT.indexOf(o.text));
  }

  private mainPaydayOf(m: ReturnType<typeof monthOf>): number {
    switch (this.kindCode) {
      case 0:
        return m.firstDay + m.payDom[this.payDom]! - 1;
      case 1:
      case 2:
        return m.firstDay + m.lastBusinessDom - 1;
      default:
        return -1;
    }
  }

  private enterMonth(day: number): void {
    const m = monthOf(day);
    this.mFirst = m.firstDay;
    this.mLast = m.lastDay;
    this.payMain = this.mainPaydayOf(m);
    this.payMainPrev = this.mainPaydayOf(monthOf(m.firstDay - 1));
    this.payMid = this.kindCode === 2 ? m.firstDay + m.payDom[15]! - 1 : -1;
  }

  /** Whether `day` (this month or the last day of the one before) is a main payday. */
  private isMainPayday(day: number): boolean {
    if (this.payMain < 0) return false;
    return day >= this.mFirst ? day === this.payMain : day === this.payMainPrev;
  }

  /** The income credit of a day, or 0. Call with the month of `day` entered. */
  private incomeOn(day: number): number {
    if (day < this.startDay) return 0;
    if (day >= this.eventDay && this.eventCode === 1) return 0;
    switch (this.kindCode) {
      case 0:
      case 1:
        return day === this.payMain ? this.payAmount : 0;
      case 2:
        return day === this.payMain || day === this.payMid ? this.payAmount : 0;
      case 3:
      case 4: {
        const period = this.kindCode === 4 ? 7 : 14;
        if ((((day - this.anchor) % period) + period) % period !== 0) return 0;
        // Wages vary a little with hours worked.
        return Math.round(this.payAmount * (0.92 + 0.16 * unitFloat(mix32(this.key, day))));
      }
      case 5: {
        const h = mix32(this.key ^ 0x68e31da4, day);
        if (unitFloat(h) >= this.gigRate) return 0;
        // Deposits of widely varying size: mean monthlyIncome / (30.4 × rate).
        const factor = -Math.log(1 - 0.999 * unitFloat(fmix32(h ^ 0x2545f491)));
        return Math.max(500, Math.round(((this.monthlyIncome / (30.4 * this.gigRate)) * factor) / 10) * 10);
      }
      default: {
        const h = mix32(this.key ^ 0x7a3b9c1d, day);
        return unitFloat(h) < 0.03 ? 5_000 + (h % 20) * 1_000 : 0;
      }
    }
  }

  private incomeText(): string {
    switch (this.kindCode) {
      case 5:
        return 'GIG PLATFORM PAYOUT';
      case 6:
        return 'TRANSFER FROM FAMILY';
      case 3:
      case 4:
        return WAGE_TEXT[this.employer]!;
      default:
        return SALARY_TEXT[this.employer]!;
    }
  }

  dayActivity(day: number, out: DayActivity): void {
    out.clear();
    if (day < this.startDay) return;
    if (day > this.mLast || day < this.mFirst) this.enterMonth(day);
    if (day === this.eventDay) out.addEvent(EVENT_NAMES[this.eventCode]!);
    if (day >= this.eventDay && this.eventCode === 1) return;
    const income = this.incomeOn(day);
    if (income > 0) out.addCredit(income, this.incomeText());
    if (day >= this.eventDay && this.eventCode === 2) return; // a frozen account pays nothing out
    const orders = this.orders;
    for (let i = 0; i < orders.length; i += 4) {
      const due = orders[i] === 0 ? day - this.mFirst + 1 === orders[i + 1] : this.isMainPayday(day - orders[i + 1]!);
      if (due) out.addDebit(orders[i + 2]!, DEBIT_ORDER_TEXT[orders[i + 3]!]!);
    }
    const h = mix32(this.key ^ 0x3c6ef372, day);
    if (unitFloat(h) < this.spendProb) {
      const amount = Math.round(this.spendMean * (0.3 + 1.4 * unitFloat(fmix32(h ^ 0x165667b1))));
      if (amount > 0) out.addDebit(amount, h % 3 === 0 ? 'CASH WITHDRAWAL' : 'CARD PURCHASE');
    }
  }

  events(): Array<{ event: AccountEvent; day: number }> {
    return this.eventCode === 0 ? [] : [{ event: EVENT_NAMES[this.eventCode]!, day: this.eventDay }];
  }

  credits(from: number, to: number): Credit[] {
    const out: Credit[] = [];
    for (let day = Math.max(from, this.startDay); day <= to; day++) {
      if (day > this.mLast || day < this.mFirst) this.enterMonth(day);
      const amount = this.incomeOn(day);
      if (amount > 0) out.push({ day, amount });
    }
    return out;
  }
}

const SALARY_TEXT = EMPLOYERS.map((e) => `SALARY ${e}`);
const WAGE_TEXT = EMPLOYERS.map((e) => `WAGES ${e}`);

export function generatedAccount(seed: number, customerId: string, epochDay: number): GeneratedAccount {
  return new GeneratedAccount(generatedProfile(seed, customerId, epochDay), seed, customerId, epochDay);
}
