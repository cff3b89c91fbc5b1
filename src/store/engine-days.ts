/**
 * A collections day's writes on SQLite, as operations on plain data (typed arrays, numbers,
 * strings): what the engine's day unit writes (repos/engine.ts), and what the day writer applies
 * on its own connection in another thread (day-writer.ts), the same statements either way.
 *
 * Rows go in with multi-row statements of WRITE_ROWS rows whose values are numbers: the fixed
 * texts (outcome, status, failure reason) come from CASE expressions over codes, the dates from
 * strings made once per day number. Binding a million strings cost more than the rows themselves.
 */
import { applyLapseRule, type LapseCandidateStatuses } from '../domain/lapse.js';
import { STATUS_BY_CODE } from '../domain/collection.js';
import { FAILURE_REASONS } from '../domain/debit-outcome.js';
import { fromDayNumber, NO_DAY, type IsoDate, type Period } from '../domain/period.js';
import type { AttemptColumns, UpdateColumns } from '../engine/ports.js';
import { sharedColumns, sharedCopy } from '../lib/shared-arrays.js';
import { checkLease, keepLease, type AdvanceLease } from './advance-lease.js';
import { runInGroups, valuesList } from './bulk.js';
import type { StatementCache } from './sqlite-dialect.js';


export type { AttemptColumns, UpdateColumns };

/** Balances the bank keeps as of a day (bank_snapshots). */
export interface SnapshotRows {
  asOf: IsoDate;
  clientId: Int32Array;
  customerId: string[];
  balance: Float64Array;
}

/** A block of the engine's image, as stored. */
export interface ImageRow {
  wake: number;
  clientId: number;
  customers: number;
  collections: number;
  data: Uint8Array;
}

/** One write of a day, in the order the engine made it. */
export type DayOp =
  | { op: 'lease'; lease: AdvanceLease }
  | { op: 'attempts'; date: IsoDate; rows: AttemptColumns }
  | { op: 'updates'; rows: UpdateColumns }
  /** A plan batch as stored (domain/plan-reason.ts storedBatch: the engine's PlanBuffer compresses it). */
  | { op: 'plans'; clientId: number; planDay: IsoDate; data: Uint8Array }
  | { op: 'close'; period: Period; lapseAfter: number; day: IsoDate; stampMs: number }
  | { op: 'snapshots'; rows: SnapshotRows }
  /**
   * The engine's image: its blocks here, or (null) streamed to the day writer after the day's
   * message, a few at a time, as the writer takes them (image-block messages, then image-end), so
   * that the image of a million-policy month (~180 MB) is never held whole.
   */
  | { op: 'image'; asOf: IsoDate; tag: string; inputs: number; consumed: number | null; blocks: ImageRow[] | null }
  | { op: 'clock'; date: IsoDate };

/** Attempts and collection updates among a day's operations (what the writer's grouping and the engine's room count). */
export function dayRows(ops: readonly DayOp[]): number {
  let n = 0;
  for (const o of ops) if (o.op === 'attempts' || o.op === 'updates') n += o.rows.n;
  return n;
}

/**
 * `ops` with their typed arrays copied into SharedArrayBuffers (lib/shared-arrays.ts), to post to
 * the day writer's thread with no transfer list: transferred, they would detach buffers of the
 * engine's thread, and its optimized code would be thrown away and made again. The copy is a
 * memcpy of what SQLite then reads row by row.
 */
export function sharedOps(ops: readonly DayOp[]): DayOp[] {
  return ops.map((o): DayOp => {
    if (o.op === 'attempts' || o.op === 'updates' || o.op === 'snapshots') return { ...o, rows: sharedColumns(o.rows) } as DayOp;
    if (o.op === 'plans') return { ...o, data: sharedCopy(o.data) };
    if (o.op === 'image' && o.blocks !== null) return { ...o, blocks: o.blocks.map((b) => ({ ...b, data: sharedCopy(b.data) })) };
    return o;
  });
}

const REASON_CASE = (column: string) => `case ${column} ${FAILURE_REASONS.map((r, k) => `when ${k + 1} then '${r}'`).join(' ')} end`;
const STATUS_CASE = (column: string) => `case ${column} ${STATUS_BY_CODE.map((s, k) => `when ${k} then '${s}'`).join(' ')} end`;

/** `periods` as a CASE over a code column. */
const periodCase = (column: string, periods: readonly Period[]) => `case ${column} ${periods.map((p, k) => `when ${k} then '${p}'`).join(' ')} end`;

/*
 * A day's multi-row statements meet a failed constraint with OR ROLLBACK: a day is one
 * transaction, written whole or not at all, so the whole transaction rolls back rather than the
 * one statement, and SQLite keeps no statement journal (a temporary file each statement would
 * copy the pages it changes into first: tens of MB even on a quiet day at 1M, issue 13). The
 * callers' rollback sees it already done (sqlite-dialect.ts, day-writer.ts).
 */
const ATTEMPT_WIDTH = 4;
const insertAttempts = (periods: readonly Period[]) => (k: number) =>
  `insert or rollback into attempts (client_id, collection_id, period_month, date, amount, outcome, failure_reason) ` +
  `select v.column1, v.column2, ${periodCase('v.column3', periods)}, t.d, v.column4, case when v.column5 = 0 then 'SUCCESS' else 'FAILED' end, ${REASON_CASE('v.column5')} ` +
  `from (select ? as d) t, (values ${valuesList(k, ATTEMPT_WIDTH + 1)}) v where true`;

const UPDATE_WIDTH = 8;
const updateCollections = (k: number) =>
  `update or rollback collections set amount_collected = v.column2, status = ${STATUS_CASE('v.column3')}, first_attempt_date = v.column4, ` +
  `last_attempt_date = v.column5, attempts = v.column6, failed_attempts = v.column7, last_failure_reason = ${REASON_CASE('v.column8')} ` +
  `from (values ${valuesList(k, UPDATE_WIDTH)}) as v where collections.id = v.column1`;

const SNAPSHOT_WIDTH = 4;
const keepSnapshots = (k: number) => `insert or replace into bank_snapshots (client_id, customer_id, as_of, balance) values ${valuesList(k, SNAPSHOT_WIDTH)}`;

/** The date text of a day number (or null for none), made once per day. */
const dates = new Map<number, string>();
function dateText(day: number): string | null {
  if (day === NO_DAY) return null;
  let d = dates.get(day);
  if (d === undefined) dates.set(day, (d = fromDayNumber(day)));
  return d;
}

/** Write the attempts of `date`. */
export function writeAttempts(statements: StatementCache, date: IsoDate, rows: AttemptColumns): void {
  if (rows.n === 0) return;
  // The date is the statement's first parameter, then the rows' values.
  runInGroups(
    statements,
    insertAttempts(rows.periods),
    ATTEMPT_WIDTH + 1,
    rows.n,
    (p, at, r) => {
      p[at] = rows.clientId[r];
      p[at + 1] = rows.collectionId[r];
      p[at + 2] = rows.period[r];
      p[at + 3] = rows.amount[r];
      p[at + 4] = rows.reason[r];
    },
    date,
  );
}

/** Write collections as they stand after the day. */
export function writeUpdates(statements: StatementCache, rows: UpdateColumns): void {
  if (rows.n === 0) return;
  runInGroups(statements, updateCollections, UPDATE_WIDTH, rows.n, (p, at, r) => {
    p[at] = rows.id[r];
    p[at + 1] = rows.collected[r];
    p[at + 2] = rows.status[r];
    p[at + 3] = dateText(rows.first[r]!);
    p[at + 4] = dateText(rows.last[r]!);
    p[at + 5] = rows.attempts[r];
    p[at + 6] = rows.failed[r];
    p[at + 7] = rows.failure[r];
  });
}

/** Keep balances as of a day (replacing any kept for the same customer and day). */
export function writeSnapshots(statements: StatementCache, rows: SnapshotRows): void {
  runInGroups(statements, keepSnapshots, SNAPSHOT_WIDTH, rows.customerId.length, (p, at, r) => {
    p[at] = rows.clientId[r];
    p[at + 1] = rows.customerId[r];
    p[at + 2] = rows.asOf;
    p[at + 3] = rows.balance[r];
  });
}

/** The period's runs still processing become completed. */
export function completeExecutions(statements: StatementCache, period: Period, stampMs: number): void {
  statements.get("update executions set status = 'completed', completed_at = ? where period_month = ? and status = 'processing'").run(stampMs, period);
}

/**
 * The lapse rule's inputs: the active policies whose collection of `periods[0]` is UNPAID, in
 * (client, policy_number) order, each with its collections' statuses in `periods`: one statement,
 * a row per candidate and collection of `periods`, rather than a lookup statement per candidate
 * (tens of thousands of them at a large close, each a statement's overhead for a row or two).
 */
export function lapseCandidates(statements: StatementCache, periods: readonly Period[]): LapseCandidateStatuses[] {
  // Each client's range of the closing period in the (client, period, policy_number) index, in
  // the order wanted: without the client named, SQLite scanned that whole index, every period
  // the store ever had (at 1M policies, 0.38 -> 0.28 s in a store's second month, issue 13).
  // Rows read one at a time, as arrays: a close at 1M policies has ~250,000 of them, and held
  // all at once as objects they were ~25 MB of the day writer's heap at the month's peak.
  const rows = statements
    .get(
      `select c.id, c.policy_id, c.client_id, o.period_month, o.status,
         (select max(s.changed_on) from policy_status_changes s where s.policy_id = c.policy_id and s.old_status = 'lapsed' and s.new_status = 'active') as reinstatedOn
       from collections c join policies p on p.id = c.policy_id
       left join collections o on o.policy_id = c.policy_id and o.period_month in (${periods.map(() => '?').join(',')})
       where c.client_id in (select id from clients) and c.period_month = ? and c.status = 'UNPAID' and p.status = 'active'
       order by c.client_id, c.policy_number`,
    )
    .raw(true)
    .iterate(...periods, periods[0]) as IterableIterator<[id: number, policyId: number, clientId: number, period: string | null, status: string | null, reinstatedOn: string | null]>;
  const out: LapseCandidateStatuses[] = [];
  let last = -1;
  for (const [id, policyId, clientId, period, status, reinstatedOn] of rows) {
    // A candidate's rows come together (one candidate per collection of periods[0]).
    if (id !== last) {
      out.push({ policyId, clientId, statuses: periods.map(() => null), reinstatedOn });
      last = id;
    }
    if (period !== null) out.at(-1)!.statuses[periods.indexOf(period)] = status;
  }
  return out;
}

/** Lapse these policies (those still active) on `day`, recording `reason` in their history. */
export function lapsePolicies(statements: StatementCache, policies: readonly LapseCandidateStatuses[], day: IsoDate, stampMs: number, reason: string): void {
  if (policies.length === 0) return;
  const lapse = statements.get("update policies set status = 'lapsed', updated_at = ? where id = ? and status = 'active'");
  const history = statements.get(
    `insert into policy_status_changes (client_id, policy_id, old_status, new_status, changed_on, changed_at, reason)
     values (?, ?, 'active', 'lapsed', ?, ?, ?)`,
  );
  for (const p of policies) {
    lapse.run(stampMs, p.policyId);
    history.run(p.clientId, p.policyId, day, stampMs, reason);
  }
}

/**
 * Replace the image's consumed blocks by `blocks` and keep its head. The blocks may come one at a
 * time (a streamed image: day-writer.ts).
 */
export async function writeImage(
  statements: StatementCache,
  asOf: IsoDate,
  tag: string,
  inputs: number,
  consumed: number | null,
  blocks: Iterable<ImageRow> | AsyncIterable<ImageRow>,
): Promise<void> {
  if (consumed === null) statements.get('delete from engine_image').run();
  else statements.get('delete from engine_image where wake <= ?').run(consumed);
  const insert = statements.get('insert into engine_image (wake, client_id, customers, collections, data) values (?, ?, ?, ?, ?)');
  for await (const b of blocks) insert.run(b.wake, b.clientId, b.customers, b.collections, Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength));
  statements
    .get('insert into engine_image_head (id, as_of, tag, inputs) values (1, ?, ?, ?) on conflict (id) do update set as_of = excluded.as_of, tag = excluded.tag, inputs = excluded.inputs')
    .run(asOf, tag, inputs);
}

export function moveClock(statements: StatementCache, date: IsoDate): void {
  statements.get("update meta set value = ? where key = 'clock_date'").run(date);
}

/**
 * Apply a day's operations in order (inside the caller's transaction); the lapsed policies per
 * client. `streamed`: the blocks of an image op that does not hold them.
 */
export async function applyDayOps(statements: StatementCache, ops: readonly DayOp[], streamed?: () => AsyncIterable<ImageRow>): Promise<Map<number, number>> {
  const day = new DayOps(statements);
  await day.apply(ops, streamed);
  return day.end();
}

/** A day's operations applied as they come (in parts: day-writer.ts), then `end`. */
export class DayOps {
  private lapsed = new Map<number, number>();
  private lease: AdvanceLease | null = null;

  constructor(private readonly statements: StatementCache) {}

  async apply(ops: readonly DayOp[], streamed?: () => AsyncIterable<ImageRow>): Promise<void> {
    const statements = this.statements;
    for (const o of ops) {
      switch (o.op) {
        case 'lease':
          // Checked first, renewed last: its row shares a page with the clock's, and a page written
          // at both ends of a large day is spilled from the page cache to the WAL in between and
          // written there again, which makes SQLite read back and checksum every frame after it
          // as the day commits (issue 13).
          checkLease(statements, o.lease);
          this.lease = o.lease;
          break;
        case 'attempts':
          writeAttempts(statements, o.date, o.rows);
          break;
        case 'updates':
          writeUpdates(statements, o.rows);
          break;
        case 'plans':
          statements.get('insert into plan_batches (client_id, plan_day, data) values (?, ?, ?)').run(o.clientId, o.planDay, o.data);
          break;
        case 'close':
          completeExecutions(statements, o.period, o.stampMs);
          this.lapsed = await applyLapseRule(
            o.period,
            o.lapseAfter,
            async (periods) => lapseCandidates(statements, periods),
            async (policies, reason) => lapsePolicies(statements, policies, o.day, o.stampMs, reason),
          );
          break;
        case 'snapshots':
          writeSnapshots(statements, o.rows);
          break;
        case 'image':
          if (o.blocks === null && !streamed) throw new Error('an image streamed to the day writer was applied elsewhere');
          await writeImage(statements, o.asOf, o.tag, o.inputs, o.consumed, o.blocks ?? streamed!());
          break;
        case 'clock':
          moveClock(statements, o.date);
          break;
      }
    }
  }

  /** The day's last statement (the lease renewed); the lapsed policies per client. */
  end(): Map<number, number> {
    if (this.lease !== null) keepLease(this.statements, this.lease);
    return this.lapsed;
  }
}

// -------------------------------------------------------------------------------------------
// The day writer's messages (day-writer.ts)

/** What the writer is started with. */
export interface DayWriterData {
  path: string;
  busyTimeoutMs: number;
  /** PRAGMA cache_size while it writes (negative: KiB). */
  cacheSize: number;
  /**
   * Two Int32 cells shared with the engine's thread: [ACKED] the last day (seq) whose commit the
   * engine has reported, [STOP] 1 once it stops. A day is written only once the day before it has
   * been reported without a stop: a Ctrl-C pressed when a day is reported leaves the store at
   * that day, as when each day commits before the next is lived (or, when it was written with
   * the light days after it in one transaction, at the last of those, reported with it).
   */
  shared: SharedArrayBuffer;
  /**
   * Where the writer waits for the day before to be reported: in the day's transaction, once its
   * statements have run (true), or before it begins (false: the engine's thread may itself be
   * waiting for the store's write lock, another backend on the same thread asking for it).
   */
  waitInTransaction: boolean;
}

/** The cells of DayWriterData.shared. */
export const ACKED = 0;
export const STOP = 1;

export type DayWriterIn =
  | { type: 'baseline' }
  | { type: 'day'; seq: number; ops: DayOp[] }
  /** The first operations of day `seq` (or the next), its 'day' (the rest) or 'abandon' to come. */
  | { type: 'part'; seq: number; ops: DayOp[] }
  /** Day `seq`, of which parts came, will not come whole: nothing of it commits. */
  | { type: 'abandon'; seq: number }
  /** A block of day `seq`'s streamed image (its op 'image' with no blocks), in order. */
  | { type: 'image-block'; seq: number; block: ImageRow }
  /** The last of them; `error`: the engine could not make the rest (the day must not commit). */
  | { type: 'image-end'; seq: number; error?: string }
  | { type: 'close' };
export type DayWriterOut =
  | { type: 'ready' }
  | { type: 'baseline' }
  | { type: 'committed'; seq: number; lapsed: Array<[number, number]> }
  /** Not written: something else committed first (`changed`), or an earlier day was not written. */
  | { type: 'dropped'; seq: number; changed: boolean }
  | { type: 'failed'; seq: number; error: { message: string; code?: string; name: string } }
  /**
   * A block of day `seq`'s streamed image was written: room for another, in its buffer, handed
   * back (shared, as it came) for the next block.
   */
  | { type: 'image-taken'; seq: number; buffer: SharedArrayBuffer }
  | { type: 'closed' };
