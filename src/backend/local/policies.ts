/** Policies on the local store: create, update, get, list. */
import { conflict, notFound, PremiaError, validationError } from '../../domain/errors.js';
import { decodeId, encodeId, IdKind, policyNumberIdProblem } from '../../domain/ids.js';
import type { Cents } from '../../domain/money.js';
import { nextPeriod, periodOf, type Period } from '../../domain/period.js';
import { checkTransition, type PolicyInput, type PolicyPatchInput, type PolicyStatus } from '../../domain/policy.js';
import { DEFAULT_PAGE_LIMIT, validatePolicyListQuery } from '../../domain/requests.js';
import { checkIdentifier } from '../../domain/identifiers.js';
import * as repo from '../../store/repos/policies.js';
import type { Db, Trx } from '../../store/store.js';
import type { AmountChange, Page, Policy, PolicyDetail, PolicyListQuery, StatusChange } from '../types.js';
import { answered } from './idempotency.js';
import type { LocalContext } from './context.js';
import { refuseInPartLivedDay } from '../../store/part-lived-day.js';
import { iso, readWorld, stamp, type World } from './world.js';

/** Hooks later stages attach to policy changes (collections react to cancellations and amounts). */
export interface PolicyChangeHooks {
  onStatusChange?(trx: Trx, ctx: LocalContext, policy: repo.PolicyRow, from: PolicyStatus, to: PolicyStatus, today: string): Promise<void>;
  onAmountChange?(trx: Trx, ctx: LocalContext, policy: repo.PolicyRow, effective: Period, amount: Cents): Promise<void>;
}

/** A policy by its public id, else by policy_number. */
export async function findPolicyByRef(db: Db | Trx, clientId: number, idSalt: number, ref: string): Promise<repo.PolicyRow | undefined> {
  const rowid = decodeId(IdKind.policy, idSalt, ref);
  if (rowid !== null) {
    const row = await repo.findPolicyById(db, clientId, rowid);
    if (row) return row;
  }
  return repo.findPolicyByNumber(db, clientId, ref);
}

/**
 * The policies `refs` name, each as findPolicyByRef finds it (by its id when that is one of the
 * client's policies, else by its number), read in lists rather than one look-up a ref; a ref
 * naming none is not in the map.
 */
export async function findPoliciesByRefs(db: Db | Trx, clientId: number, idSalt: number, refs: ReadonlySet<string>): Promise<Map<string, repo.PolicyStatusRow>> {
  const asId = new Map<string, number>();
  for (const ref of refs) {
    const rowid = decodeId(IdKind.policy, idSalt, ref);
    if (rowid !== null) asId.set(ref, rowid);
  }
  const byId = new Map((await repo.findPoliciesByIds(db, clientId, [...new Set(asId.values())])).map((row) => [Number(row.id), row]));
  const found = new Map<string, repo.PolicyStatusRow>();
  const numbers: string[] = [];
  for (const ref of refs) {
    const row = asId.has(ref) ? byId.get(asId.get(ref)!) : undefined;
    if (row) found.set(ref, row);
    else numbers.push(ref);
  }
  for (const row of await repo.findPoliciesByNumbers(db, clientId, numbers)) found.set(row.policy_number, row);
  return found;
}

/**
 * The policy `ref` names (its id or its number), or NOT_FOUND; a ref that can be neither (empty,
 * too long, characters no policy number has) is a VALIDATION_ERROR, shown safely.
 */
export async function requirePolicy(db: Db | Trx, clientId: number, idSalt: number, ref: string): Promise<repo.PolicyRow> {
  const row = await findPolicyByRef(db, clientId, idSalt, ref);
  if (row) return row;
  // Every id (hex and dashes) and every stored policy number meets the identifier rule.
  const problem = checkIdentifier(ref, 'a policy id or number');
  if (problem) throw validationError(`${problem.message[0]!.toUpperCase()}${problem.message.slice(1)}.`, [{ field: 'id', ...problem }]);
  throw await policyNotFound(db, clientId, ref);
}

/**
 * NOT_FOUND for the policy `ref`; when it is a policy number in the other case (`pol-2026001`
 * typed for POL-2026001, all upper or all lower), that number is named: numbers are case-sensitive.
 */
export async function policyNotFound(db: Db | Trx, clientId: number, ref: string): Promise<PremiaError> {
  const like = /[a-z]/i.test(ref) ? await repo.policyNumberLike(db, clientId, ref) : undefined;
  if (like === undefined || like === ref) return notFound('Policy', ref);
  return new PremiaError('NOT_FOUND', `Policy '${ref}' was not found: policy numbers are case-sensitive, and there is a policy ${like}.`);
}

export async function createPolicy(ctx: LocalContext, input: PolicyInput): Promise<Policy> {
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const asId = policyNumberIdProblem(input.policy_number, world.idSalt);
    if (asId) throw validationError(`${asId.message[0]!.toUpperCase()}${asId.message.slice(1)}.`, [{ field: 'policy_number', ...asId }]);
    const existing = await repo.findPolicyByNumber(trx, ctx.clientId, input.policy_number);
    if (existing) throw duplicatePolicy(input.policy_number, encodeId(IdKind.policy, world.idSalt, existing.id));
    const now = stamp(world.today, ctx.now());
    const fields = {
      client_id: ctx.clientId,
      policy_number: input.policy_number,
      customer_id: input.customer_id,
      external_customer_ref: input.external_customer_ref,
      product_code: input.product_code,
      collection_amount: input.collection_amount,
      status: 'active',
      created_at: now,
      updated_at: now,
    } satisfies repo.NewPolicyRow;
    const id = await repo.insertPolicy(trx, fields);
    return answered(trx, toPolicy({ id, ...fields }, null, world.idSalt));
  });
}

export function duplicatePolicy(policyNumber: string, id: string) {
  return conflict('DUPLICATE_POLICY', `Policy number ${policyNumber} already exists (id ${id}). Policy numbers are unique; update that policy instead.`, [
    { field: 'policy_number', policy_number: policyNumber, id },
  ]);
}

export async function updatePolicy(
  ctx: LocalContext,
  ref: string,
  patch: PolicyPatchInput,
  hooks: PolicyChangeHooks = {},
): Promise<Policy> {
  checkPatch(patch);
  return ctx.store.transaction(async (trx) => answered(trx, await applyPatch(trx, ctx, await readWorld(trx), ref, patch, hooks)));
}

/**
 * Several policies updated in one transaction, all or none, each as updatePolicy updates it
 * (in the order given): the simulation's monthly premium changes and cancellations, thousands
 * of them at 100,000 policies, which one transaction each made wait for as many commits.
 */
export async function updatePolicies(
  ctx: LocalContext,
  updates: ReadonlyArray<{ ref: string; patch: PolicyPatchInput }>,
  hooks: PolicyChangeHooks = {},
): Promise<Policy[]> {
  for (const u of updates) checkPatch(u.patch);
  if (updates.length === 0) return [];
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const out: Policy[] = [];
    // A day part lived is checked once: the transaction holds the store throughout.
    for (const [k, u] of updates.entries()) out.push(await applyPatch(trx, ctx, world, u.ref, u.patch, hooks, k === 0));
    return out;
  });
}

function checkPatch(patch: PolicyPatchInput): void {
  if (patch.collection_amount === undefined && patch.status === undefined) {
    throw validationError('Nothing to update: give a new amount, a new status, or both.');
  }
}

/**
 * One policy's update inside `trx`, as of `world`; refused in a day part lived when `checkDay`
 * (the first update of a transaction: the answer holds for the rest of it).
 */
async function applyPatch(
  trx: Trx,
  ctx: LocalContext,
  world: World,
  ref: string,
  patch: PolicyPatchInput,
  hooks: PolicyChangeHooks,
  checkDay = true,
): Promise<Policy> {
  const row = await requirePolicy(trx, ctx.clientId, world.idSalt, ref);
  if (checkDay) await refuseInPartLivedDay(ctx.store, trx, `policy ${row.policy_number}`);
  const now = stamp(world.today, ctx.now());
  const from = row.status as PolicyStatus;
  const statusMove = patch.status !== undefined ? checkTransition(from, patch.status, row.policy_number) : 'noop';
  let changed = false;

  if (patch.collection_amount !== undefined && patch.collection_amount !== row.collection_amount) {
    if (from === 'cancelled') {
      throw conflict('INVALID_TRANSITION', `Policy ${row.policy_number} is cancelled, which is final: its premium no longer changes.`);
    }
    // Applied in turn, the new premium would be recorded for periods the cancellation then
    // leaves with no collection: a premium history of a policy that pays nothing more.
    if (patch.status === 'cancelled') {
      throw conflict(
        'INVALID_TRANSITION',
        `Policy ${row.policy_number}: a cancellation is final and leaves no premium to change; cancel it, or change its premium, not both in one update.`,
      );
    }
    const effective = nextPeriod(periodOf(world.today));
    await repo.insertAmountChange(trx, {
      client_id: ctx.clientId,
      policy_id: row.id,
      effective_period: effective,
      old_amount: row.collection_amount,
      new_amount: patch.collection_amount,
      changed_on: world.today,
      changed_at: now,
    });
    row.collection_amount = patch.collection_amount;
    await hooks.onAmountChange?.(trx, ctx, row, effective, patch.collection_amount);
    changed = true;
  }
  if (statusMove === 'change' && patch.status !== undefined) {
    await repo.insertStatusChange(trx, {
      client_id: ctx.clientId,
      policy_id: row.id,
      old_status: from,
      new_status: patch.status,
      changed_on: world.today,
      changed_at: now,
      reason: 'update',
    });
    row.status = patch.status;
    await hooks.onStatusChange?.(trx, ctx, row, from, patch.status, world.today);
    changed = true;
  }
  if (changed) {
    // A timestamp is the clock's date at the wall clock's time of day (world.ts stamp), so a
    // change made after midnight (wall) on the same clock date as the last one would stamp an
    // earlier time: updated_at before created_at. It never goes back.
    const updatedAt = now > row.updated_at ? now : row.updated_at + 1;
    row.updated_at = updatedAt;
    await repo.updatePolicyRow(trx, ctx.clientId, row.id, {
      collection_amount: row.collection_amount,
      status: row.status,
      updated_at: updatedAt,
    });
  }
  return toPolicy(row, await repo.latestEffectivePeriod(trx, ctx.clientId, row.id), world.idSalt);
}

export async function getPolicy(ctx: LocalContext, ref: string): Promise<PolicyDetail> {
  const db = ctx.store.db;
  const world = await readWorld(db);
  const row = await requirePolicy(db, ctx.clientId, world.idSalt, ref);
  const amounts = await repo.amountChanges(db, ctx.clientId, [row.id]);
  const statuses = await repo.statusChanges(db, ctx.clientId, row.id);
  const amount_history: AmountChange[] = amounts.map(({ policy_id: _, ...a }) => a);
  const status_history: StatusChange[] = statuses.map((s) => ({
    old_status: s.old_status as PolicyStatus,
    new_status: s.new_status as PolicyStatus,
    changed_on: s.changed_on,
    reason: s.reason,
  }));
  const effective = amounts.length > 0 ? amounts[amounts.length - 1]!.effective_period : null;
  return { ...toPolicy(row, effective, world.idSalt), amount_history, status_history };
}

export async function listPolicies(ctx: LocalContext, query: PolicyListQuery): Promise<Page<Policy>> {
  const q = validatePolicyListQuery({ status: query.status, limit: query.limit, after: query.after });
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const world = await readWorld(ctx.store.db);
  const rows = await repo.listPolicies(ctx.store.db, ctx.clientId, { status: q.status, limit: limit + 1, after: q.after });
  const page = rows.slice(0, limit);
  const changes = await repo.amountChanges(ctx.store.db, ctx.clientId, page.map((r) => r.id));
  const effective = new Map(changes.map((c) => [c.policy_id, c.effective_period])); // last change wins
  return {
    data: page.map((r) => toPolicy(r, effective.get(r.id) ?? null, world.idSalt)),
    next_after: rows.length > limit ? page[page.length - 1]!.policy_number : null,
  };
}

export function toPolicy(row: repo.PolicyRow, effectivePeriod: Period | null, idSalt: number): Policy {
  return {
    id: encodeId(IdKind.policy, idSalt, row.id),
    policy_number: row.policy_number,
    customer_id: row.customer_id,
    external_customer_ref: row.external_customer_ref,
    product_code: row.product_code,
    collection_amount: row.collection_amount,
    collection_amount_effective_period: effectivePeriod,
    status: row.status as PolicyStatus,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
