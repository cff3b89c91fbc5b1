/**
 * What an irreversible action would do, read from the store without changing it: the figures
 * of `clock advance --dry-run` and of the CLI's confirmations (an advance that closes periods,
 * a settlement statement, a policy cancellation), from the repositories' reads for the client acted for.
 */
import { isRetryable } from '../../domain/debit-outcome.js';
import { daysBetween, periodsClosedBetween, resolveAdvanceTarget } from '../../domain/advance.js';
import { asCents } from '../../domain/money.js';
import { addDays, dayNumber, firstOpenPeriod, fromDayNumber, lastDay, type IsoDate, type Period } from '../../domain/period.js';
import type { Db } from '../../store/store.js';
import type { AdvancePreview, AdvanceTarget, CancellationPreview, PeriodClosing, PlannedDebits, SettlementPreview } from '../types.js';
import type { LocalContext } from './context.js';
import { LEAD_DAYS } from '../../engine/settings.js';
import { clientSubmittedDebits } from '../../store/repos/engine.js';
import { clientsNotRun, debitStates, liveCollectionsOfPolicy, periodClosings, policiesNotQueued } from '../../store/repos/collections.js';
import { requirePolicy } from './policies.js';
import { draftStatement } from './settlements.js';
import { readWorld } from './world.js';

export async function previewAdvance(ctx: LocalContext, target: AdvanceTarget): Promise<AdvancePreview> {
  const db = ctx.store.db;
  const world = await readWorld(db);
  // The same checks (and errors) as the advance itself: a target before the clock is CLOCK_BACKWARDS.
  const to = resolveAdvanceTarget(world.today, target);
  const periods = periodsClosedBetween(world.today, to);
  const counts = new Map<string, Omit<PeriodClosing, 'other_clients_not_run' | 'policies_not_queued'>>();
  for (const r of await periodClosings(db, ctx.clientId, periods)) {
    counts.set(r.period_month, {
      period_month: r.period_month,
      last_day: lastDay(r.period_month),
      collections: r.collections,
      open: r.open,
      nothing_collected: r.nothing_collected,
      amount_remaining: r.amount_remaining,
    });
  }
  const closing: PeriodClosing[] = [];
  for (const p of periods) {
    const own = counts.get(p) ?? { period_month: p, last_day: lastDay(p), collections: 0, open: 0, nothing_collected: 0, amount_remaining: asCents(0) };
    const unrun = await clientsNotRun(db, p);
    // A period never run is said as such; one run has those added since (or left out) counted.
    const notQueued = own.collections > 0 ? await policiesNotQueued(db, ctx.clientId, p) : 0;
    closing.push({ ...own, policies_not_queued: notQueued, other_clients_not_run: unrun.filter((c) => c.id !== ctx.clientId).map((c) => c.name) });
  }
  return {
    from: world.today,
    to,
    days: daysBetween(world.today, to),
    locked: world.locked,
    periods_closed: closing,
    planned_debits: await plannedDebits(db, ctx.clientId, world.today, to, null),
  };
}

/**
 * The statement `createSettlement` would make now: the same reads, checks and figures (and every
 * refusal: the period still open, a live statement, no collections), without its insert and
 * without its write transaction (settlements.ts draftStatement), so a preview never waits for
 * the store's write lock that another client's import or an advance holds.
 */
export async function previewSettlement(ctx: LocalContext, period: Period): Promise<SettlementPreview> {
  return draftStatement(ctx, period);
}

export async function previewCancellation(ctx: LocalContext, ref: string): Promise<CancellationPreview> {
  const db = ctx.store.db;
  const world = await readWorld(db);
  const policy = await requirePolicy(db, ctx.clientId, world.idSalt, ref);
  // What a cancellation turns CANCELLED (backend/local/index.ts): the collections of the open periods.
  const rows = await liveCollectionsOfPolicy(db, ctx.clientId, policy.id, firstOpenPeriod(world.today));
  return {
    policy_number: policy.policy_number,
    customer_id: policy.customer_id,
    status: policy.status as CancellationPreview['status'],
    collection_amount: policy.collection_amount,
    open_collections: rows.map((r) => ({ period_month: r.period_month, amount_due: r.amount_due, amount_collected: r.amount_collected, status: r.status })),
    planned_debits: await plannedDebits(db, ctx.clientId, world.today, null, new Set(rows.map((r) => r.id))),
  };
}

/**
 * Debits already submitted for the days after `today` (up to `to`, or all of them), that the
 * engine would still make: not for a cancelled or blocked collection (a policy no longer
 * active, an account that refused for good), each capped at what its collection still owes
 * after the earlier ones (the engine's own cap). `only`: these collections only.
 */
async function plannedDebits(db: Db, clientId: number, today: IsoDate, to: IsoDate | null, only: Set<number> | null): Promise<PlannedDebits> {
  const none: PlannedDebits = { count: 0, amount: asCents(0), first_date: null, last_date: null };
  if ((to !== null && to <= today) || only?.size === 0) return none;
  const todayDay = dayNumber(today);
  const toDay = to === null ? Number.MAX_SAFE_INTEGER : dayNumber(to);
  // Plans are made at most 1 + LEAD_DAYS days ahead: the batches of the last few days hold them
  // all (the engine reads the same ones when it loads).
  const plans: Array<{ collection: number; day: number; amount: number }> = [];
  for (const p of await clientSubmittedDebits(db, clientId, addDays(today, -1 - Math.max(2, LEAD_DAYS)))) {
    if (p.day > todayDay && p.day <= toDay && (only === null || only.has(p.collection))) plans.push(p);
  }
  if (plans.length === 0) return none;
  const owed = new Map<number, number>();
  for (const r of await debitStates(db, [...new Set(plans.map((p) => p.collection))])) {
    const blocked = r.status === 'CANCELLED' || r.policy_status !== 'active' || (r.last_failure_reason !== null && !isRetryable(r.last_failure_reason));
    if (!blocked) owed.set(r.id, r.amount_due - r.amount_collected);
  }
  plans.sort((a, b) => a.day - b.day || a.collection - b.collection);
  const out = { ...none };
  for (const p of plans) {
    const left = owed.get(p.collection) ?? 0;
    const amount = Math.min(p.amount, left);
    if (amount <= 0) continue;
    owed.set(p.collection, left - amount);
    out.count++;
    out.amount = asCents(out.amount + amount);
    out.first_date ??= fromDayNumber(p.day);
    out.last_date = fromDayNumber(p.day);
  }
  return out;
}
