/**
 * Monthly settlement statements on the local store (spec 2.5, 4.7–4.9, 8): create once the
 * period has closed, read, export (one-row statement or item-level lines), list, and follow
 * the status. The rules (number, payment date, reference, status moves, the dispute window)
 * are domain/settlement.ts; the rows are store/repos/settlements.ts.
 *
 * `create` checks and inserts inside ONE BEGIN IMMEDIATE transaction, so two concurrent
 * creates (cron reruns, the CLI beside the server) are serialised by SQLite and the second one
 * sees the first; a partial unique index on live statements is the second guard.
 */
import { notFound, PremiaError, validationError } from '../../domain/errors.js';
import { settlementFigures, StatementSplitter, WeightTable } from '../../domain/fees.js';
import { decodeId, encodeId, IdKind, looksLikeId } from '../../domain/ids.js';
import { printable } from '../../domain/identifiers.js';
import { asCents, formatCents } from '../../domain/money.js';
import { plural } from '../../domain/words.js';
import type { Period } from '../../domain/period.js';
import { validateDisputeRequest, validateMarkPaidRequest, validateSettlementListQuery, validateSettlementRequest } from '../../domain/requests.js';
import {
  amountDue,
  checkDispute,
  checkMarkPaid,
  checkPeriodClosed,
  noCollections,
  paymentDateOf,
  paymentReference,
  settlementExists,
  settlementNumber,
  type StatementState,
} from '../../domain/settlement.js';
import { csvCell, csvRow } from '../../lib/csv-writer.js';
import { streamCollectedCounts, streamLineRows } from '../../store/repos/collection-reports.js';
import { executionsOfPeriod, periodHasCollections } from '../../store/repos/collections.js';
import * as repo from '../../store/repos/settlements.js';
import type { Db, Trx } from '../../store/store.js';
import { SETTLEMENT_EXPORT_COLUMNS, type Download, type Page, type Settlement, type SettlementListQuery } from '../types.js';
import { answered } from './idempotency.js';
import type { LocalContext } from './context.js';
import { CSV_CONTENT_TYPE } from './reports.js';
import { iso, readWorld, stamp } from './world.js';

/** The API's statement. */
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
    net_amount: amountDue(row.period_net, row.previously_paid),
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

function stateOf(row: repo.SettlementView): StatementState {
  return { ...row, created_at: iso(row.created_at), superseded_by: row.superseded_by_number };
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
  if (!row) throw await settlementNotFound(db, ctx.clientId, ref);
  return row;
}

/**
 * NOT_FOUND for `ref`. A period where a statement was asked for (`settlements export 2026-11`,
 * `SETTLE-2026-11-1`, `SETTLE-2026-11`): the period's statements are named, so the operator
 * need not guess the number's form.
 */
async function settlementNotFound(db: Db | Trx, clientId: number, ref: string): Promise<PremiaError> {
  const trimmed = ref.trim().toUpperCase();
  const month = /(?:^|[^0-9])([0-9]{4}-(?:0[1-9]|1[0-2]))(?![0-9])/.exec(trimmed)?.[1];
  if (month === undefined || looksLikeId(trimmed) || /^SETTLE-[0-9]{4}-[0-9]{2}-[0-9]{3,}$/.test(trimmed)) return notFound('Settlement', ref);
  const statements = await repo.listSettlements(db, clientId, { period: month });
  const named = statements.map((s) => `${s.settlement_number} (${s.status})`);
  const which = named.length === 0 ? `${month} has no statement.` : named.length === 1 ? `${month}'s statement is ${named[0]}; give its number or id.` : `${month}'s statements are ${named.join(', ')}; give one's number or id.`;
  return new PremiaError('NOT_FOUND', `Settlement '${printable(ref)}' was not found: a settlement number is written SETTLE-YYYY-MM-NNN; ${which}`);
}

function exists(live: repo.SettlementRow, idSalt: number): PremiaError {
  return settlementExists({ ...live, id: encodeId(IdKind.settlement, idSalt, live.id) });
}

// ---------------------------------------------------------------------------------------------
// Operations

/** How many times a statement is tried when another statement took its id, number or reference. */
const CREATE_ATTEMPTS = 3;

export async function createSettlement(ctx: LocalContext, periodInput: string): Promise<Settlement> {
  const { period_month: period } = validateSettlementRequest({ period_month: periodInput });
  for (let attempt = 1; ; attempt++) {
    try {
      return await createSettlementOnce(ctx, period);
    } catch (e) {
      // A unique guard of the settlements table caught what the checks inside the transaction
      // did not see (a statement made at the same time, by a write that skipped the writer lock).
      // The period now has a live statement: the same 409 as when the check sees it. Otherwise
      // the other statement was another period's (or is no longer live): try again afresh.
      const guard = e instanceof PremiaError ? null : repo.settlementUniqueConflict(e);
      if (guard === null) throw e;
      const world = await readWorld(ctx.store.db);
      const live = await repo.findLiveSettlement(ctx.store.db, ctx.clientId, period);
      if (live) throw exists(live, world.idSalt);
      if (attempt >= CREATE_ATTEMPTS) {
        throw new PremiaError(
          'STORE_BUSY',
          `The settlement of ${period} collided ${CREATE_ATTEMPTS} times with statements made at the same time (its ${guard} was taken); nothing was stored. Try again.`,
          { cause: e },
        );
      }
    }
  }
}

/** The statements one period may have: NNN of SETTLE-YYYY-MM-NNN has three digits. */
const MAX_STATEMENTS_PER_PERIOD = 999;

/** The statement a create would insert now, and the one it replaces: reads only, every refusal of create. */
interface Draft {
  row: Omit<repo.SettlementRow, 'id'>;
  replaced: repo.SettlementRow | undefined;
  today: string;
  idSalt: number;
}

async function draftSettlement(trx: Db | Trx, ctx: LocalContext, period: Period): Promise<Draft> {
  const world = await readWorld(trx);
  checkPeriodClosed(period, world.today, await periodHasCollections(trx, ctx.clientId, period));
  const live = await repo.findLiveSettlement(trx, ctx.clientId, period);
  if (live) throw exists(live, world.idSalt);

  const totals = await repo.periodCollectionTotals(trx, ctx.clientId, period);
  if (totals.count === 0) throw noCollections(period, (await executionsOfPeriod(trx, ctx.clientId, period, 1)).length > 0);

  // A regenerated statement (the period's newest is disputed: none is live) replaces it and
  // nets out what the period's statements were paid so far, so paying it never pays twice.
  const replaced = await repo.latestSettlement(trx, ctx.clientId, period);
  const previouslyPaid = replaced ? await repo.paidForPeriod(trx, ctx.clientId, period) : asCents(0);
  const { net_amount: periodNet, ...fees } = settlementFigures(totals.collected);
  const seq = await repo.nextSettlementSeq(trx, ctx.clientId, period);
  // NNN has three digits (the spec's SETTLE-YYYY-MM-NNN, a payment reference of at most 20
  // characters): a 1000th statement of one period, after 999 disputes, is refused, not misnumbered.
  if (seq > MAX_STATEMENTS_PER_PERIOD) {
    throw new PremiaError(
      'CONFLICT',
      `Period ${period} already has ${MAX_STATEMENTS_PER_PERIOD} statements (${settlementNumber(period, 1)} to ${settlementNumber(period, MAX_STATEMENTS_PER_PERIOD)}), ` +
        'the most a settlement number (SETTLE-YYYY-MM-NNN) can count; no further statement can be made for it. Nothing was stored.',
      { details: [{ period_month: period, statements: MAX_STATEMENTS_PER_PERIOD }] },
    );
  }
  const number = settlementNumber(period, seq);
  let reference = paymentReference(world.idSalt, ctx.clientId, number, period, seq);
  for (let attempt = 1; await repo.paymentReferenceExists(trx, reference); attempt++) {
    reference = paymentReference(world.idSalt, ctx.clientId, number, period, seq, attempt);
  }
  const now = stamp(world.today, ctx.now());
  const row = {
    client_id: ctx.clientId,
    period_month: period,
    seq,
    settlement_number: number,
    ...fees,
    period_net: periodNet,
    collections_count: totals.count,
    payment_date: paymentDateOf(period, seq, world.today),
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
  } satisfies repo.NewSettlementRow;
  return { row, replaced, today: world.today, idSalt: world.idSalt };
}

/**
 * The statement `createSettlement` would make now, with every refusal it would answer (the
 * period still open, a live statement, no collections), from reads alone: no transaction, so no
 * write lock. A preview is a GET, answered on the thread that answers every client; waiting
 * there for the store's write lock (held by another client's import, an advance) would stall
 * all of them for up to the busy timeout.
 */
export async function draftStatement(ctx: LocalContext, periodInput: string): Promise<Omit<Settlement, 'id' | 'created_at'>> {
  const { period_month: period } = validateSettlementRequest({ period_month: periodInput });
  const { row, replaced, idSalt } = await draftSettlement(ctx.store.db, ctx, period);
  // The id a row would get is no part of a preview (toSettlement needs one).
  const { id: _id, created_at: _created, ...statement } = toSettlement(
    { id: 1, ...row, supersedes_number: replaced?.settlement_number ?? null, superseded_by_number: null },
    idSalt,
  );
  return statement;
}

async function createSettlementOnce(ctx: LocalContext, period: Period): Promise<Settlement> {
  return ctx.store.transaction(async (trx) => {
    const { row, replaced, today, idSalt } = await draftSettlement(trx, ctx, period);
    const now = row.created_at;
    const id = await repo.insertSettlement(trx, row);
    await repo.insertSettlementEvent(trx, {
      client_id: ctx.clientId,
      settlement_id: id,
      event: 'created',
      status: 'pending',
      on_date: today,
      at: now,
      detail: null,
    });
    return answered(trx, toSettlement({ id, ...row, supersedes_number: replaced?.settlement_number ?? null, superseded_by_number: null }, idSalt));
  });
}

export async function getSettlement(ctx: LocalContext, ref: string): Promise<Settlement> {
  const world = await readWorld(ctx.store.db);
  return toSettlement(await requireSettlement(ctx.store.db, ctx, world.idSalt, ref), world.idSalt);
}

export async function listSettlements(ctx: LocalContext, query: SettlementListQuery = {}): Promise<Page<Settlement>> {
  const q = validateSettlementListQuery({ status: query.status, period_month: query.period_month });
  const world = await readWorld(ctx.store.db);
  const rows = await repo.listSettlements(ctx.store.db, ctx.clientId, { status: q.status, period: q.period_month });
  // Statements are few (about one per month): one page holds them all.
  return { data: rows.map((r) => toSettlement(r, world.idSalt)), next_after: null };
}

export async function markSettlementPaid(ctx: LocalContext, ref: string, options: { reference?: string } = {}): Promise<Settlement> {
  const { reference: given } = validateMarkPaidRequest(options.reference === undefined ? {} : { reference: options.reference });
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const row = await requireSettlement(trx, ctx, world.idSalt, ref);
    checkMarkPaid(stateOf(row));
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
    return answered(trx, toSettlement({ ...row, ...set }, world.idSalt));
  });
}

export async function disputeSettlement(ctx: LocalContext, ref: string, reason: string): Promise<Settlement> {
  const { reason: text } = validateDisputeRequest({ reason });
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const row = await requireSettlement(trx, ctx, world.idSalt, ref);
    checkDispute(stateOf(row), world.today);
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
    return answered(trx, toSettlement({ ...row, ...set }, world.idSalt));
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
        `(${plural(lines, 'collection')}, ${formatCents(collected)} collected; the statement has ${s.collections_count} and ` +
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
