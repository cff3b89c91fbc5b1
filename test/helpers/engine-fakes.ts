/**
 * In-memory fakes of the engine's ports (src/engine/ports.ts), for running src/engine without
 * SQLite: a store that keeps its rows in arrays, commits a day's writes only when the day's
 * function returns (and records every write), and a bank whose accounts follow scripted
 * statements under the account rules of docs/bank-and-clock.md.
 */
import { STATUS_BY_CODE } from '../../src/domain/collection.js';
import { FAILURE_BY_CODE, type FailureReason } from '../../src/domain/debit-outcome.js';
import { dayNumber, fromDayNumber, lastDay, NO_DAY, type IsoDate, type Period } from '../../src/domain/period.js';
import { readStoredBatch, type SubmittedDebit } from '../../src/domain/plan-reason.js';
import type {
  AdvanceClaim,
  AttemptColumns,
  Bank,
  BankAccounts,
  CollectionStatus,
  Credit,
  CustomerRefs,
  DayUnit,
  DebitSource,
  EngineStore,
  LapseCandidate,
  OpenCollection,
  PlanColumns,
  PostedDay,
  PostedDays,
  UpdateColumns,
} from '../../src/engine/ports.js';

/** An attempt the engine wrote, in words. */
export interface AttemptRecord {
  clientId: number;
  collectionId: number;
  period: Period;
  amount: number;
  /** null: the debit succeeded. */
  reason: FailureReason | null;
}

/** A collection as the engine left it after a day, in words. */
export type CollectionUpdate = Pick<FakeCollection, 'id' | 'collected' | 'status' | 'firstAttempt' | 'lastAttempt' | 'attempts' | 'failed' | 'lastFailure'>;

export interface FakeCollection {
  id: number;
  clientId: number;
  customerId: string;
  policyId: number;
  policyNumber: string;
  period: Period;
  due: number;
  collected: number;
  status: CollectionStatus;
  firstAttempt: IsoDate | null;
  lastAttempt: IsoDate | null;
  attempts: number;
  failed: number;
  lastFailure: string | null;
  strategy: string;
}

export interface FakePolicy {
  id: number;
  clientId: number;
  policyNumber: string;
  status: string;
}

export interface StoredAttempt {
  date: IsoDate;
  collectionId: number;
  amount: number;
  outcome: 'SUCCESS' | 'FAILED';
  reason: FailureReason | null;
}

interface FakeTables {
  meta: Map<string, string>;
  policies: FakePolicy[];
  collections: FakeCollection[];
  executions: Array<{ period: Period; status: 'processing' | 'completed'; completedAt: number | null }>;
  attempts: StoredAttempt[];
  batches: Array<{ clientId: number; planDay: IsoDate; debits: SubmittedDebit[] }>;
  statusChanges: Array<{ policyId: number; clientId: number; day: IsoDate; reason: string }>;
}

/** A write the engine asked for, as the fake store recorded it (committed days only). */
export type Write =
  | { kind: 'attempts'; date: IsoDate; rows: AttemptRecord[] }
  | { kind: 'collections'; rows: CollectionUpdate[] }
  | { kind: 'plans'; planDay: IsoDate; clients: number[]; debits: number }
  | { kind: 'executions'; period: Period }
  | { kind: 'lapse'; day: IsoDate; policies: number[]; reason: string }
  | { kind: 'clock'; date: IsoDate };

function clone(t: FakeTables): FakeTables {
  return {
    meta: new Map(t.meta),
    policies: t.policies.map((p) => ({ ...p })),
    collections: t.collections.map((c) => ({ ...c })),
    executions: t.executions.map((e) => ({ ...e })),
    attempts: [...t.attempts],
    batches: [...t.batches],
    statusChanges: [...t.statusChanges],
  };
}

export class FakeStore implements EngineStore {
  tables: FakeTables;
  /** The writes of committed days, in order. */
  writes: Write[] = [];
  claims = 0;
  private ranADay = false;

  constructor(init: { clock: IsoDate; settings?: Record<string, string>; policies: FakePolicy[]; collections: FakeCollection[]; periods: Period[] }) {
    this.tables = {
      meta: new Map([['clock_date', init.clock], ...Object.entries(init.settings ?? {})]),
      policies: init.policies,
      collections: init.collections,
      executions: init.periods.map((period) => ({ period, status: 'processing', completedAt: null })),
      attempts: [],
      batches: [],
      statusChanges: [],
    };
  }

  async readClock(): Promise<IsoDate> {
    return this.tables.meta.get('clock_date')!;
  }

  async claimAdvance(resolve: (today: IsoDate) => IsoDate): Promise<AdvanceClaim> {
    this.claims++;
    const from = await this.readClock();
    return { from, to: resolve(from) };
  }

  async releaseAdvance(): Promise<void> {}
  async lapsedCollections(period: Period): Promise<number[]> {
    const t = this.tables;
    const lapsedThen = new Set(t.statusChanges.filter((x) => x.day === lastDay(period)).map((x) => x.policyId));
    return t.collections
      .filter((c) => lapsedThen.has(c.policyId) && c.period > period && (c.status === 'UNPAID' || c.status === 'PAID_PARTIAL'))
      .filter((c) => t.policies.find((p) => p.id === c.policyId)!.status !== 'active')
      .map((c) => c.id)
      .sort((a, b) => a - b);
  }
  async beginDays(): Promise<boolean> {
    return false;
  }
  async endDays(): Promise<void> {}

  /** A day's writes go to a copy of the tables, which replaces them when `fn` returns. */
  async runDay<T>(fn: (unit: DayUnit) => Promise<T>): Promise<T> {
    const work = clone(this.tables);
    const writes: Write[] = [];
    const out = await fn(new FakeDay(work, writes, !this.ranADay));
    this.tables = work;
    this.writes.push(...writes);
    this.ranADay = true;
    return out;
  }
}

class FakeDay implements DayUnit {
  constructor(
    private readonly t: FakeTables,
    private readonly writes: Write[],
    readonly changedSinceLastDay: boolean,
  ) {}

  async renewClaim(): Promise<void> {}

  async readWorld() {
    return { today: this.t.meta.get('clock_date')!, settings: new Map(this.t.meta) };
  }

  private open(firstOpen: Period): FakeCollection[] {
    return this.t.collections
      .filter((c) => c.period >= firstOpen)
      .sort((a, b) => a.clientId - b.clientId || (a.customerId < b.customerId ? -1 : a.customerId > b.customerId ? 1 : 0) || (a.policyNumber < b.policyNumber ? -1 : 1));
  }

  async countOpenCollections(firstOpen: Period): Promise<number> {
    return this.open(firstOpen).length;
  }

  async loadOpenCollections(firstOpen: Period, sink: (row: OpenCollection) => void): Promise<void> {
    for (const c of this.open(firstOpen)) {
      const policy = this.t.policies.find((p) => p.id === c.policyId)!;
      sink({ ...c, policyStatus: policy.status });
    }
  }

  async loadSubmittedDebits(fromPlanDay: IsoDate, sink: (debit: SubmittedDebit) => void): Promise<void> {
    for (const b of this.t.batches) if (b.planDay >= fromPlanDay) for (const d of b.debits) sink(d);
  }

  async insertAttemptColumns(date: IsoDate, rows: AttemptColumns): Promise<void> {
    const attempts: AttemptRecord[] = [];
    for (let k = 0; k < rows.n; k++) {
      attempts.push({
        clientId: rows.clientId[k]!,
        collectionId: rows.collectionId[k]!,
        period: rows.periods[rows.period[k]!]!,
        amount: rows.amount[k]!,
        reason: FAILURE_BY_CODE[rows.reason[k]!]!,
      });
    }
    for (const a of attempts) {
      this.t.attempts.push({ date, collectionId: a.collectionId, amount: a.amount, outcome: a.reason === null ? 'SUCCESS' : 'FAILED', reason: a.reason });
    }
    if (attempts.length > 0) this.writes.push({ kind: 'attempts', date, rows: attempts.map((a) => ({ ...a })) });
  }

  async updateCollectionColumns(rows: UpdateColumns): Promise<void> {
    const date = (day: number) => (day === NO_DAY ? null : fromDayNumber(day));
    const updates: CollectionUpdate[] = [];
    for (let k = 0; k < rows.n; k++) {
      updates.push({
        id: rows.id[k]!,
        collected: rows.collected[k]!,
        status: STATUS_BY_CODE[rows.status[k]!]!,
        firstAttempt: date(rows.first[k]!),
        lastAttempt: date(rows.last[k]!),
        attempts: rows.attempts[k]!,
        failed: rows.failed[k]!,
        lastFailure: FAILURE_BY_CODE[rows.failure[k]!]!,
      });
    }
    for (const u of updates) {
      const c = this.t.collections.find((x) => x.id === u.id)!;
      Object.assign(c, { collected: u.collected, status: u.status, firstAttempt: u.firstAttempt, lastAttempt: u.lastAttempt, attempts: u.attempts, failed: u.failed, lastFailure: u.lastFailure });
    }
    if (updates.length > 0) this.writes.push({ kind: 'collections', rows: updates.map((u) => ({ ...u })) });
  }

  async insertPlanColumns(planDay: IsoDate, clientId: number, rows: PlanColumns): Promise<void> {
    const debits: SubmittedDebit[] = [];
    for (const stored of await rows.batches()) for (const d of readStoredBatch(stored)) debits.push(d);
    this.t.batches.push({ clientId, planDay, debits });
    // A day's plans come client by client: one write for them all.
    const last = this.writes.at(-1);
    if (last?.kind === 'plans' && last.planDay === planDay) {
      last.clients.push(clientId);
      last.debits += debits.length;
    } else this.writes.push({ kind: 'plans', planDay, clients: [clientId], debits: debits.length });
  }

  async completeExecutions(period: Period, stampMs: number): Promise<void> {
    for (const e of this.t.executions) if (e.period === period && e.status === 'processing') Object.assign(e, { status: 'completed', completedAt: stampMs });
    this.writes.push({ kind: 'executions', period });
  }

  async lapseCandidates(periods: readonly Period[]): Promise<LapseCandidate[]> {
    return this.t.collections
      .filter((c) => c.period === periods[0] && c.status === 'UNPAID' && this.t.policies.find((p) => p.id === c.policyId)!.status === 'active')
      .map((c) => ({
        policyId: c.policyId,
        clientId: c.clientId,
        statuses: periods.map((p) => this.t.collections.find((x) => x.policyId === c.policyId && x.period === p)?.status ?? null),
      }));
  }

  async lapsePolicies(policies: readonly LapseCandidate[], day: IsoDate, _stampMs: number, reason: string): Promise<void> {
    for (const l of policies) {
      const p = this.t.policies.find((x) => x.id === l.policyId)!;
      if (p.status !== 'active') continue;
      p.status = 'lapsed';
      this.t.statusChanges.push({ policyId: l.policyId, clientId: l.clientId, day, reason });
    }
    this.writes.push({ kind: 'lapse', day, policies: policies.map((p) => p.policyId), reason });
  }

  async moveClock(date: IsoDate): Promise<void> {
    this.t.meta.set('clock_date', date);
    this.writes.push({ kind: 'clock', date });
  }
}

/** One customer's bank statement, day by day: credits and other debits (positive cents), and the day it closes. */
export interface Statement {
  clientId: number;
  customerId: string;
  /** The first day the account exists (its balance is 0 before). */
  opens: IsoDate;
  credits: Array<[IsoDate, number]>;
  debits?: Array<[IsoDate, number]>;
  closes?: IsoDate;
}

/**
 * A bank whose accounts follow `statements` under the account rules (credits post, then premia's
 * debits in order, each paid when the balance covers it, then the other debits, each declined
 * when it does not; from the closing day on, premia's debits fail ACCOUNT_CLOSED and nothing
 * more arrives). Opening an account replays it from its first day with premia's past debits,
 * which it reads from the store's committed attempts (as the simulated bank does).
 */
export class FakeBank implements Bank {
  opened = 0;
  /** Account-days lived while the engine ran (not counting replays). */
  lived = 0;
  /** Balances the engine asked the bank to keep: customer → [day, balance]. */
  kept: Array<{ customerId: string; day: IsoDate; balance: number }> = [];

  constructor(
    private readonly statements: Statement[],
    private readonly store: FakeStore,
  ) {}

  async openAccounts(customers: CustomerRefs, today: number, posted: PostedDays): Promise<BankAccounts> {
    this.opened += customers.customerId.length;
    const accounts = new FakeAccounts(this, customers.customerId.map((id) => this.statements.find((s) => s.customerId === id)!));
    const attempts = this.store.tables.attempts;
    const collections = this.store.tables.collections;
    for (let i = 0; i < accounts.size; i++) {
      const past = attempts
        .map((a) => ({ a, c: collections.find((c) => c.id === a.collectionId)! }))
        .filter((x) => x.c.customerId === accounts.customerId[i])
        .sort((x, y) => (x.a.date < y.a.date ? -1 : x.a.date > y.a.date ? 1 : x.c.policyNumber < y.c.policyNumber ? -1 : 1));
      const replay: DebitSource = {
        debitsFor: (_balance, day, amounts) => {
          const mine = past.filter((x) => dayNumber(x.a.date) === day);
          mine.forEach((x, k) => (amounts[k] = x.a.amount));
          return mine.length;
        },
      };
      const facts: PostedDay = { credits: 0, postedDebits: 0, collected: 0, premiaDebits: 0 };
      while (accounts.day[i]! < today) {
        accounts.step(i, replay, [], facts);
        posted.day(accounts, i, accounts.day[i]!, facts);
      }
    }
    return accounts;
  }
}

class FakeAccounts implements BankAccounts {
  readonly clientId: number[];
  readonly customerId: string[];
  readonly day: number[];
  private readonly balances: number[];

  constructor(
    private readonly bank: FakeBank,
    private readonly statements: Statement[],
  ) {
    this.clientId = statements.map((s) => s.clientId);
    this.customerId = statements.map((s) => s.customerId);
    this.day = statements.map((s) => dayNumber(s.opens) - 1);
    this.balances = statements.map(() => 0);
  }

  get size(): number {
    return this.statements.length;
  }

  customerIdOf(i: number): string {
    return this.customerId[i]!;
  }

  balance(i: number): number {
    return this.balances[i]!;
  }

  blockedOn(i: number, day: number): FailureReason | null {
    const closes = this.statements[i]!.closes;
    return closes !== undefined && day >= dayNumber(closes) ? 'ACCOUNT_CLOSED' : null;
  }

  credits(i: number, from: number, to: number): Credit[] {
    const s = this.statements[i]!;
    const closes = s.closes === undefined ? Number.POSITIVE_INFINITY : dayNumber(s.closes);
    return s.credits.map(([d, amount]) => ({ day: dayNumber(d), amount })).filter((c) => c.day >= from && c.day <= to && c.day < closes);
  }

  live(i: number, debits: DebitSource, outcomes: Array<FailureReason | null>, facts: PostedDay): PostedDay {
    this.bank.lived++;
    return this.step(i, debits, outcomes, facts);
  }

  step(i: number, debits: DebitSource, outcomes: Array<FailureReason | null>, facts: PostedDay): PostedDay {
    const day = ++this.day[i]!;
    const s = this.statements[i]!;
    const blocked = this.blockedOn(i, day);
    let balance = this.balances[i]!;
    facts.credits = 0;
    if (blocked === null) for (const c of this.credits(i, day, day)) facts.credits += c.amount;
    balance += facts.credits;
    const amounts: number[] = [];
    const n = debits.debitsFor(balance, day, amounts);
    facts.premiaDebits = n;
    facts.collected = 0;
    for (let k = 0; k < n; k++) {
      const amount = amounts[k]!;
      let reason: FailureReason | null = blocked;
      if (reason === null) {
        if (amount <= balance) {
          balance -= amount;
          facts.collected += amount;
        } else reason = 'INSUFFICIENT_FUNDS';
      }
      outcomes[k] = reason;
    }
    facts.postedDebits = 0;
    if (blocked === null) {
      for (const [d, amount] of s.debits ?? []) {
        if (dayNumber(d) !== day || amount > balance) continue;
        balance -= amount;
        facts.postedDebits += amount;
      }
    }
    this.balances[i] = balance;
    return facts;
  }

  async keepBalances(day: number, accounts: readonly number[]): Promise<void> {
    for (const i of accounts) this.bank.kept.push({ customerId: this.customerId[i]!, day: fromDayNumber(day), balance: this.balances[i]! });
  }
}
