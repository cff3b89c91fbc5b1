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

export class GeneratedAccount implements AccountSource {
  readonly kind = 'generated' as const;
  private readonly key: number;
  private readonly employer: string;

  constructor(
    readonly profile: GeneratedProfile,
    seed: number,
    customerId: string,
    readonly startDay: number,
  ) {
    this.key = hashString32(customerId, seed ^ 0x1b873593);
    this.employer = EMPLOYERS[this.key % EMPLOYERS.length]!;
  }

  /** Whether `day` is a main payday (the month-end pay for twice-monthly earners). */
  private isMainPayday(day: number): boolean {
    const p = this.profile;
    const m = monthOf(day);
    const dom = day - m.firstDay + 1;
    switch (p.kind) {
      case 'monthly_fixed_day':
        return m.payDom[p.payDom] === dom;
      case 'monthly_last_business_day':
      case 'twice_monthly':
        return m.lastBusinessDom === dom;
      default:
        return false;
    }
  }

  /** The income credit of a day, or 0. */
  private incomeOn(day: number): number {
    const p = this.profile;
    if (day < this.startDay) return 0;
    if (p.event === 'ACCOUNT_CLOSED' && day >= p.eventDay) return 0;
    switch (p.kind) {
      case 'monthly_fixed_day':
      case 'monthly_last_business_day':
        return this.isMainPayday(day) ? p.payAmount : 0;
      case 'twice_monthly': {
        const m = monthOf(day);
        const dom = day - m.firstDay + 1;
        return dom === m.payDom[15] || dom === m.lastBusinessDom ? p.payAmount : 0;
      }
      case 'weekly':
      case 'fortnightly': {
        const period = p.kind === 'weekly' ? 7 : 14;
        if ((((day - p.anchor) % period) + period) % period !== 0) return 0;
        // Wages vary a little with hours worked.
        return Math.round(p.payAmount * (0.92 + 0.16 * unitFloat(mix32(this.key, day))));
      }
      case 'irregular': {
        const h = mix32(this.key ^ 0x68e31da4, day);
        if (unitFloat(h) >= p.gigRate) return 0;
        // Deposits of widely varying size: mean monthlyIncome / (30.4 × rate).
        const factor = -Math.log(1 - 0.999 * unitFloat(fmix32(h ^ 0x2545f491)));
        return Math.max(500, Math.round(((p.monthlyIncome / (30.4 * p.gigRate)) * factor) / 10) * 10);
      }
      case 'none': {
        const h = mix32(this.key ^ 0x7a3b9c1d, day);
        return unitFloat(h) < 0.03 ? 5_000 + (h % 20) * 1_000 : 0;
      }
    }
  }

  private incomeText(): string {
    switch (this.profile.kind) {
      case 'irregular':
        return 'GIG PLATFORM PAYOUT';
      case 'none':
        return 'TRANSFER FROM FAMILY';
      case 'weekly':
      case 'fortnightly':
        return `WAGES ${this.employer}`;
      default:
        return `SALARY ${this.employer}`;
    }
  }

  dayActivity(day: number, out: DayActivity): void {
    out.clear();
    const p = this.profile;
    if (day < this.startDay) return;
    if (p.event !== null && day === p.eventDay) out.events.push(p.event);
    const closed = p.event === 'ACCOUNT_CLOSED' && day >= p.eventDay;
    if (closed) return;
    const income = this.incomeOn(day);
    if (income > 0) {
      out.credits.push(income);
      out.creditText.push(this.incomeText());
    }
    if (p.event === 'ACCOUNT_FROZEN' && day >= p.eventDay) return; // a frozen account pays nothing out
    const m = monthOf(day);
    const dom = day - m.firstDay + 1;
    for (const order of p.debitOrders) {
      const due = order.mode === 'dom' ? dom === order.offset : this.isMainPayday(day - order.offset);
      if (due) {
        out.debits.push(order.amount);
        out.debitText.push(order.text);
      }
    }
    const h = mix32(this.key ^ 0x3c6ef372, day);
    if (unitFloat(h) < p.spendProb) {
      const amount = Math.round(p.spendMean * (0.3 + 1.4 * unitFloat(fmix32(h ^ 0x165667b1))));
      if (amount > 0) {
        out.debits.push(amount);
        out.debitText.push(h % 3 === 0 ? 'CASH WITHDRAWAL' : 'CARD PURCHASE');
      }
    }
  }

  events(): Array<{ event: AccountEvent; day: number }> {
    return this.profile.event === null ? [] : [{ event: this.profile.event, day: this.profile.eventDay }];
  }

  credits(from: number, to: number): Credit[] {
    const out: Credit[] = [];
    for (let day = Math.max(from, this.startDay); day <= to; day++) {
      const amount = this.incomeOn(day);
      if (amount > 0) out.push({ day, amount });
    }
    return out;
  }
}

export function generatedAccount(seed: number, customerId: string, epochDay: number): GeneratedAccount {
  return new GeneratedAccount(generatedProfile(seed, customerId, epochDay), seed, customerId, epochDay);
}
