/**
 * Monthly settlement statements on the local store (spec 2.5, 4.7–4.9, 8): create once the
 * period has closed, read, export (one-row statement or item-level lines), list, and follow
 * the status: pending → paid, pending|paid → disputed within 30 days of the payment date.
 *
 * `create` checks and inserts inside ONE BEGIN IMMEDIATE transaction, so two concurrent
 * creates (cron reruns, the CLI beside the server) are serialised by SQLite and the second one
 * sees the first; a partial unique index on live statements is the second guard.
 */
import { conflict, notFound, PremiaError, validationError } from '../../domain/errors.js';
import { settlementFigures, StatementSplitter, WeightTable } from '../../domain/fees.js';
import { hashString32 } from '../../domain/hash.js';
import { decodeId, encodeId, IdKind, looksLikeId } from '../../domain/ids.js';
import { formatCents } from '../../domain/money.js';
import { addDays, dateInPeriod, lastDay, nextPeriod, periodOf, type IsoDate, type Period } from '../../domain/period.js';
import { csvCell, csvRow } from '../../lib/csv-writer.js';
import { streamCollectedCounts, streamLineRows } from '../../store/repos/collection-reports.js';
import * as repo from '../../store/repos/settlements.js';
import type { Db, Trx } from '../../store/store.js';
import {
  SETTLEMENT_EXPORT_COLUMNS,
  SETTLEMENT_STATUSES,
  type Download,
  type Page,
  type Settlement,
  type SettlementListQuery,
  type SettlementStatus,
} from '../types.js';
import type { LocalContext } from './context.js';
import { checkPeriod, CSV_CONTENT_TYPE } from './reports.js';
import { iso, readWorld, stamp } from './world.js';

/** Payment (EFT) is due on this calendar day of the month after the period (spec 8). */
export const PAYMENT_DAY_OF_NEXT_MONTH = 3;
/** A statement may be disputed until this many days after its payment date (spec 8). */
export const DISPUTE_WINDOW_DAYS = 30;
export const DISPUTE_REASON_MAX = 500;
export const PAID_REFERENCE_MAX = 35;

const PAID_REFERENCE_RE = /^[A-Z0-9/-]{1,35}$/;
// Crockford's base 32: no I, L, O, U, so a reference read over the phone survives.
const CHECK_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// ---------------------------------------------------------------------------------------------
// Pure helpers

export function settlementNumber(period: Period, seq: number): string {
  return `SETTLE-${period}-${String(seq).padStart(3, '0')}`;
}

/**
 * The payment date of a period's statement: the 3rd of the following month (spec 8). A
 * statement regenerated after a dispute (seq > 1, made when that date may long have passed)
 * instead gets a fresh one, counted the same way from the day it is generated: the first 3rd
 * of a month after that day (a statement made on the 1st or 2nd is due on the 3rd, as a new
 * one is; made on the 3rd or later, on the 3rd of the next month), and never earlier than the
 * period's own date. So it is never overdue at birth, and its 30-day dispute window runs from
 * its own payment date.
 */
export function paymentDate(period: Period, regeneratedOn?: IsoDate): IsoDate {
  const due = dateInPeriod(nextPeriod(period), PAYMENT_DAY_OF_NEXT_MONTH);
  if (regeneratedOn === undefined) return due;
  const month = periodOf(regeneratedOn);
  const day = Number(regeneratedOn.slice(8, 10));
  const fresh = dateInPeriod(day < PAYMENT_DAY_OF_NEXT_MONTH ? month : nextPeriod(month), PAYMENT_DAY_OF_NEXT_MONTH);
  return fresh > due ? fresh : due;
}

export function lastDisputeDate(payment: IsoDate): IsoDate {
  return addDays(payment, DISPUTE_WINDOW_DAYS);
}

/**
 * The EFT reference of a statement: `PRM` + YYMM + NNN, a dash and an 8-character check code
 * (Crockford base 32) hashed from the store's id salt, the client and the settlement number;
 * at most 20 characters of A-Z 0-9 -. Deterministic, so a simulated run is byte-identical;
 * `attempt` > 0 derives another code in the (unlikely) case one is already taken.
 */
export function paymentReference(idSalt: number, clientId: number, number: string, period: Period, seq: number, attempt = 0): string {
  const key = `${clientId}:${number}:${attempt}`;
  const a = hashString32(key, idSalt);
  const b = hashString32(key, a ^ 0x5bd1e995);
  // 40 bits: 20 from each hash.
  const bits = [a & 0xfffff, b & 0xfffff];
  let code = '';
  for (const part of bits) {
    for (let shift = 15; shift >= 0; shift -= 5) code += CHECK_ALPHABET[(part >>> shift) & 31];
  }
  return `PRM${period.slice(2, 4)}${period.slice(5, 7)}${String(seq).padStart(3, '0')}-${code}`;
}

/**
 * The API's statement. The stored `period_net` is the fee rule's net of the period; the amount
 * due, `net_amount`, is that less what earlier statements of the period were paid (the same on a
 * first statement; negative when the client was paid more than the period now comes to).
 */
export function toSettlement(row: repo.SettlementView, idSalt: number): Settlement {
  return {
    id: encodeId(IdKind.settlement, idSalt, row.id),
    settlement_number: row.settlement_number,
    period_month: row.period_month,
    total_collections: row.total_collections,
    distribution_fee: row.distribution_fee,
    collections_fee: row.collections_fee,
    total_fees: row.total_fees,
    vat: row.vat,
    net_amount: row.period_net - row.previously_paid,
    payment_date: row.payment_date,
    status: row.status,
    payment_reference: row.payment_reference,
    created_at: iso(row.created_at),
    collections_count: row.collections_count,
    paid_on: row.paid_on,
    paid_reference: row.paid_reference,
    disputed_on: row.disputed_on,
    dispute_reason: row.dispute_reason,
    previously_paid: row.previously_paid,
    supersedes: row.supersedes_number,
    superseded_by: row.superseded_by_number,
  };
}

/** A statement by its public id, else by its settlement number. */
async function findSettlementByRef(db: Db | Trx, clientId: number, idSalt: number, ref: string): Promise<repo.SettlementView | undefined> {
  const trimmed = ref.trim();
  if (looksLikeId(trimmed)) {
    const rowid = decodeId(IdKind.settlement, idSalt, trimmed);
    return rowid === null ? undefined : repo.findSettlementById(db, clientId, rowid);
  }
  return repo.findSettlementByNumber(db, clientId, trimmed.toUpperCase());
}

async function requireSettlement(db: Db | Trx, ctx: LocalContext, idSalt: number, ref: string): Promise<repo.SettlementView> {
  if (typeof ref !== 'string' || ref.trim() === '') {
    throw validationError('Give a settlement id or settlement number (SETTLE-YYYY-MM-NNN).', [
      { field: 'settlement', code: 'REQUIRED', message: 'is required' },
    ]);
  }
  const row = await findSettlementByRef(db, ctx.clientId, idSalt, ref);
  if (!row) throw notFound('Settlement', ref);
  return row;
}

function settlementExists(existing: repo.SettlementRow, idSalt: number): PremiaError {
  const id = encodeId(IdKind.settlement, idSalt, existing.id);
  return conflict(
    'SETTLEMENT_EXISTS',
    `Period ${existing.period_month} already has settlement ${existing.settlement_number} (id ${id}, ${existing.status}). ` +
      `Only one live statement is allowed per period; dispute it first if it must be regenerated.`,
    [{ id, settlement_number: existing.settlement_number, status: existing.status, period_month: existing.period_month }],
  );
}

// ---------------------------------------------------------------------------------------------
// Operations

export async function createSettlement(ctx: LocalContext, period: Period): Promise<Settlement> {
  checkPeriod(period);
  try {
    return await ctx.store.transaction(async (trx) => {
      const world = await readWorld(trx);
      const closesOn = lastDay(period);
      if (world.today < closesOn) {
        throw conflict(
          'PERIOD_OPEN',
          `Period ${period} is still open: its last day ${closesOn} has not run (the clock is at ${world.today}). ` +
            `Create the settlement once the clock has reached ${closesOn}.`,
          [{ period_month: period, closes_on: closesOn, today: world.today }],
        );
      }
      const live = await repo.findLiveSettlement(trx, ctx.clientId, period);
      if (live) throw settlementExists(live, world.idSalt);

      const totals = await repo.periodCollectionTotals(trx, ctx.clientId, period);
      if (totals.count === 0) {
        throw conflict(
          'NO_COLLECTIONS',
          `Period ${period} has no collections: it was never executed. Run 'premia collections execute --period ${period}' first.`,
          [{ period_month: period }],
        );
      }

      // A regenerated statement (the period's newest is disputed: none is live) replaces it and
      // nets out what the period's statements were paid so far, so paying it never pays twice.
      const replaced = await repo.latestSettlement(trx, ctx.clientId, period);
      const previouslyPaid = replaced ? await repo.paidForPeriod(trx, ctx.clientId, period) : 0;
      const { net_amount: periodNet, ...fees } = settlementFigures(totals.collected);
      const seq = await repo.nextSettlementSeq(trx, ctx.clientId, period);
      const number = settlementNumber(period, seq);
      let reference = paymentReference(world.idSalt, ctx.clientId, number, period, seq);
      for (let attempt = 1; await repo.paymentReferenceExists(trx, reference); attempt++) {
        reference = paymentReference(world.idSalt, ctx.clientId, number, period, seq, attempt);
      }
      const now = stamp(world.today, ctx.now());
      const row: repo.NewSettlementRow = {
        client_id: ctx.clientId,
        period_month: period,
        seq,
        settlement_number: number,
        ...fees,
        period_net: periodNet,
        collections_count: totals.count,
        payment_date: seq === 1 ? paymentDate(period) : paymentDate(period, world.today),
        payment_reference: reference,
        status: 'pending',
        created_at: now,
        updated_at: now,
        paid_on: null,
        paid_reference: null,
        disputed_on: null,
        dispute_reason: null,
        previously_paid: previouslyPaid,
        supersedes_id: replaced?.id ?? null,
      };
      const id = await repo.insertSettlement(trx, row);
      await repo.insertSettlementEvent(trx, {
        client_id: ctx.clientId,
        settlement_id: id,
        event: 'created',
        status: 'pending',
        on_date: world.today,
        at: now,
        detail: null,
      });
      return toSettlement({ id, ...row, supersedes_number: replaced?.settlement_number ?? null, superseded_by_number: null }, world.idSalt);
    });
  } catch (e) {
    // The partial unique index caught a live statement the check did not see: report it the same way.
    if (!(e instanceof PremiaError) && /UNIQUE constraint failed: settlements\.client_id, settlements\.period_month/.test(String(e))) {
      const world = await readWorld(ctx.store.db);
      const live = await repo.findLiveSettlement(ctx.store.db, ctx.clientId, period);
      if (live) throw settlementExists(live, world.idSalt);
    }
    throw e;
  }
}

export async function getSettlement(ctx: LocalContext, ref: string): Promise<Settlement> {
  const world = await readWorld(ctx.store.db);
  return toSettlement(await requireSettlement(ctx.store.db, ctx, world.idSalt, ref), world.idSalt);
}

export async function listSettlements(ctx: LocalContext, query: SettlementListQuery = {}): Promise<Page<Settlement>> {
  if (query.status !== undefined && !(SETTLEMENT_STATUSES as readonly string[]).includes(query.status)) {
    throw validationError(`status '${String(query.status)}' is not a settlement status; use ${SETTLEMENT_STATUSES.join(', ')}.`, [
      { field: 'status', code: 'INVALID_VALUE', message: `expected one of ${SETTLEMENT_STATUSES.join(', ')}` },
    ]);
  }
  if (query.period_month !== undefined) checkPeriod(query.period_month);
  const world = await readWorld(ctx.store.db);
  const rows = await repo.listSettlements(ctx.store.db, ctx.clientId, { status: query.status, period: query.period_month });
  // Statements are few (about one per month): one page holds them all.
  return { data: rows.map((r) => toSettlement(r, world.idSalt)), next_after: null };
}

function invalidTransition(row: repo.SettlementView, to: SettlementStatus): PremiaError {
  if (row.superseded_by_number !== null) {
    // Disputed and regenerated: the newer statement carries the period (and what was paid for it).
    return conflict(
      'INVALID_TRANSITION',
      `Settlement ${row.settlement_number} is ${row.status} and cannot become ${to}: it was superseded by ${row.superseded_by_number}, ` +
        `which nets out what was already paid for ${row.period_month}. ${to === 'paid' ? 'Pay or record that one instead.' : 'Dispute that one instead.'}`,
      [{ field: 'status', from: row.status, to, settlement_number: row.settlement_number, superseded_by: row.superseded_by_number }],
    );
  }
  const allowed = row.status === 'pending' ? 'paid or disputed' : row.status === 'paid' ? 'disputed' : 'nothing (a disputed statement is final; create a new one for the period)';
  return conflict(
    'INVALID_TRANSITION',
    `Settlement ${row.settlement_number} is ${row.status} and cannot become ${to}; from ${row.status} it can become ${allowed}.`,
    [{ field: 'status', from: row.status, to, settlement_number: row.settlement_number }],
  );
}

export function checkPaidReference(reference: unknown): string {
  if (typeof reference === 'string' && PAID_REFERENCE_RE.test(reference)) return reference;
  const shown = typeof reference === 'string' ? `'${reference}'` : String(reference);
  throw validationError(
    `Payment reference ${shown} is not valid: give 1 to ${PAID_REFERENCE_MAX} characters of A-Z, 0-9, '-' and '/'.`,
    [{ field: 'reference', code: 'INVALID_FORMAT', message: `1-${PAID_REFERENCE_MAX} characters of A-Z 0-9 - /` }],
  );
}

export function checkDisputeReason(reason: unknown): string {
  const text = typeof reason === 'string' ? reason.trim() : '';
  const problem =
    text === ''
      ? 'is required: say what is disputed'
      : text.length > DISPUTE_REASON_MAX
        ? `is ${text.length} characters long; at most ${DISPUTE_REASON_MAX} are allowed`
        : // eslint-disable-next-line no-control-regex
          /[\u0000-\u001f\u007f]/.test(text)
          ? 'has a control character (such as a line break); write it on one line'
          : null;
  if (problem === null) return text;
  throw validationError(`The dispute reason ${problem}.`, [{ field: 'reason', code: text === '' ? 'REQUIRED' : 'INVALID_VALUE', message: problem }]);
}

export async function markSettlementPaid(ctx: LocalContext, ref: string, options: { reference?: string } = {}): Promise<Settlement> {
  const given = options.reference === undefined ? undefined : checkPaidReference(options.reference);
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const row = await requireSettlement(trx, ctx, world.idSalt, ref);
    if (row.status !== 'pending') throw invalidTransition(row, 'paid');
    // Without --reference the EFT is taken to carry the statement's own payment reference.
    const paidReference = given ?? row.payment_reference;
    const now = stamp(world.today, ctx.now());
    const set = { status: 'paid' as const, paid_on: world.today, paid_reference: paidReference, updated_at: now };
    await repo.updateSettlement(trx, ctx.clientId, row.id, set);
    await repo.insertSettlementEvent(trx, {
      client_id: ctx.clientId,
      settlement_id: row.id,
      event: 'paid',
      status: 'paid',
      on_date: world.today,
      at: now,
      detail: paidReference,
    });
    return toSettlement({ ...row, ...set }, world.idSalt);
  });
}

export async function disputeSettlement(ctx: LocalContext, ref: string, reason: string): Promise<Settlement> {
  const text = checkDisputeReason(reason);
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const row = await requireSettlement(trx, ctx, world.idSalt, ref);
    if (row.status === 'disputed') throw invalidTransition(row, 'disputed');
    const lastAllowed = lastDisputeDate(row.payment_date);
    if (world.today > lastAllowed) {
      throw conflict(
        'DISPUTE_WINDOW_CLOSED',
        `The dispute window of ${row.settlement_number} closed on ${lastAllowed} (${DISPUTE_WINDOW_DAYS} days after its payment date ` +
          `${row.payment_date}); the clock is at ${world.today}. Raise the matter with the operator.`,
        [{ settlement_number: row.settlement_number, payment_date: row.payment_date, last_allowed_date: lastAllowed, today: world.today }],
      );
    }
    const now = stamp(world.today, ctx.now());
    const set = { status: 'disputed' as const, disputed_on: world.today, dispute_reason: text, updated_at: now };
    await repo.updateSettlement(trx, ctx.clientId, row.id, set);
    await repo.insertSettlementEvent(trx, {
      client_id: ctx.clientId,
      settlement_id: row.id,
      event: 'disputed',
      status: 'disputed',
      on_date: world.today,
      at: now,
      detail: text,
    });
    return toSettlement({ ...row, ...set }, world.idSalt);
  });
}

// ---------------------------------------------------------------------------------------------
// Exports

/** Columns of `export --lines`: one row per collection, columns summing to the statement. */
export const SETTLEMENT_LINE_COLUMNS = [
  'settlement_number',
  'policy_number',
  'customer_id',
  'external_customer_ref',
  'product_code',
  'collection_amount_collected',
  'distribution_fee',
  'collections_fee',
  'total_fees',
  'vat',
  'net_amount',
] as const;

export async function exportSettlement(ctx: LocalContext, ref: string, options: { lines?: boolean } = {}): Promise<Download> {
  const world = await readWorld(ctx.store.db);
  const row = await requireSettlement(ctx.store.db, ctx, world.idSalt, ref);
  if (options.lines) {
    return { filename: `${row.settlement_number}-lines.csv`, contentType: CSV_CONTENT_TYPE, body: statementLines(ctx, row) };
  }
  const s = toSettlement(row, world.idSalt);
  const cells = SETTLEMENT_EXPORT_COLUMNS.map((c) => {
    const v = s[c];
    return typeof v === 'number' ? formatCents(v) : v;
  });
  const body = csvRow(SETTLEMENT_EXPORT_COLUMNS) + csvRow(cells);
  return { filename: `${row.settlement_number}.csv`, contentType: CSV_CONTENT_TYPE, body: once(body) };
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

/**
 * Two passes over the period's collections: the first counts collections per collected amount
 * (all the pro-rata split needs) and checks they still add up to the statement; the second
 * writes one line per collection in policy_number order.
 */
async function* statementLines(ctx: LocalContext, s: repo.SettlementView): AsyncGenerator<string> {
  const counts = new WeightTable();
  let collected = 0;
  let lines = 0;
  for await (const batch of streamCollectedCounts(ctx.store, ctx.clientId, s.period_month)) {
    for (const [amount, count] of batch) {
      counts.push(amount, count);
      collected += amount * count;
      lines += count;
    }
  }
  if (collected !== s.total_collections || lines !== s.collections_count) {
    throw new PremiaError(
      'INTERNAL',
      `The collections of ${s.period_month} no longer add up to settlement ${s.settlement_number} ` +
        `(${lines} collections, ${formatCents(collected)} collected; the statement has ${s.collections_count} and ` +
        `${formatCents(s.total_collections)}). The lines cannot be reconciled; report this to the operator.`,
    );
  }
  // The period's figures are split (a regenerated statement's lines net to its period_net; what
  // was paid before belongs to no collection).
  const splitter = new StatementSplitter({ ...s, net_amount: s.period_net }, counts);
  const number = csvCell(s.settlement_number);
  let chunk = csvRow(SETTLEMENT_LINE_COLUMNS);
  let written = 0;
  let writtenCollected = 0;
  for await (const rows of streamLineRows(ctx.store, ctx.clientId, s.period_month)) {
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const amount = r[4];
      written++;
      writtenCollected += amount;
      const share = splitter.next(amount);
      chunk +=
        number + ',' +
        csvCell(r[0]) + ',' +
        csvCell(r[1]) + ',' +
        csvCell(r[2]) + ',' +
        csvCell(r[3]) + ',' +
        formatCents(amount) + ',' +
        formatCents(share.distribution_fee) + ',' +
        formatCents(share.collections_fee) + ',' +
        formatCents(share.total_fees) + ',' +
        formatCents(share.vat) + ',' +
        formatCents(share.net_amount) + '\n';
    }
    if (chunk.length >= 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  // The rows changed between the passes (they never should: the period is closed). Failing
  // here, before the last chunk, means an --output file is never left in place.
  if (written !== lines || writtenCollected !== collected) {
    throw new PremiaError('INTERNAL', `The collections of ${s.period_month} changed while the lines of ${s.settlement_number} were written; export again.`);
  }
  yield chunk;
}
