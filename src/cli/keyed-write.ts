/**
 * What a command's write will do under --idempotency-key, known before it is sent: a key on
 * record for the same request with its answer kept is answered with that answer again (nothing
 * is done now), and a key on record for another request is refused (IDEMPOTENCY_KEY_REUSED).
 * Either way the write does not act, so a confirmation must not ask about acting: asked first,
 * `settlements create` rerun with its key after the statement was disputed asked "Create
 * SETTLE-2026-11-002?" and then answered with the first run's SETTLE-2026-11-001.
 *
 * The same held for `clock advance` (asked "… and close 2026-12?", then the November advance
 * repeated) and for every command that asks before a keyed write (askUnlessKeyed).
 *
 * The record is the service's (GET /idempotency-keys on a premia service; the store's in local
 * mode), read for the key as the operation sends it: the client's own, or the store's for a
 * store-wide operation (an advance's, a seed's). A server that cannot say (one implementing only
 * the spec, which has no idempotency, or a premia service of a version that shows only the
 * client's own keys, asked about the store's) leaves the question to be asked.
 */
import { buildRequest, recordedRequest } from '../backend/wire.js';
import type { Operation } from '../backend/operations.js';
import type { Backend, IdempotencyRecord, KeyedOperation } from '../backend/types.js';
import { requestKey } from '../domain/idempotency.js';
import type { CommandDeps } from './command.js';
import { confirmMode, unlessUnsupported } from './confirm.js';

/** `replay`: the key's answer to this very request is kept; `other-request`: the key was used for another one. */
export type KeyedOutcome = { kind: 'replay'; record: IdempotencyRecord } | { kind: 'other-request'; record: IdempotencyRecord };

/**
 * How the invocation's `n`-th write, `row` with `args`, will be answered under `baseKey` without
 * acting; null when it may act (no key given, none on record, or its first request not answered:
 * one that stopped unseen is run again by the write, so it is asked about).
 */
async function keyedOutcome<A extends unknown[]>(b: Backend, baseKey: string | undefined, n: number, row: Operation<unknown, unknown, A>, args: A): Promise<KeyedOutcome | null> {
  if (baseKey === undefined) return null;
  const record = await unlessUnsupported(() => b.idempotencyRecord(requestKey(baseKey, n), row));
  if (record === null) return null;
  const request = recordedRequest(buildRequest(row, ...args));
  if (record.request_hash !== request.hash) return { kind: 'other-request', record };
  return record.state === 'answered' ? { kind: 'replay', record } : null;
}

/** keyedOutcome of a write read at most once, when a question, a refusal or the write first wants it. */
export function keyedOnce<A extends unknown[]>(
  b: Backend,
  baseKey: string | undefined,
  n: number,
  row: Operation<unknown, unknown, A>,
  args: A,
): { outcome: () => Promise<KeyedOutcome | null> } {
  let read: Promise<KeyedOutcome | null> | undefined;
  return { outcome: () => (read ??= keyedOutcome(b, baseKey, n, row, args)) };
}

/**
 * On a terminal, `ask` before the invocation's `n`-th write (`row` with `args`, as it will be
 * sent) unless its --idempotency-key will answer it without acting: a rerun repeating an earlier
 * answer, or refused the key being another request's (IDEMPOTENCY_KEY_REUSED, from the write
 * itself). What the key will do is returned (null: the write may act), for the note of a replay
 * (repeatedAnswerNote). Off a terminal and with --yes nothing is asked, but a key given is looked
 * up all the same: a cron job's rerun repeating an earlier answer says so as one by hand does
 * (read after the write, the record would be this run's as much as an earlier one's).
 */
export async function askUnlessKeyed<A extends unknown[]>(
  env: Pick<CommandDeps, 'ctx' | 'globals'>,
  b: Backend,
  row: Operation<unknown, unknown, A>,
  args: A,
  ask: () => Promise<void>,
  n = 1,
): Promise<KeyedOutcome | null> {
  const outcome = await keyedOutcome(b, env.globals.idempotencyKey, n, row, args);
  if (outcome === null && confirmMode(env) === 'ask') await ask();
  return outcome;
}

/**
 * Whether the invocation's write of `row` was answered with the answer kept for its
 * --idempotency-key by an earlier run, as the write's own answer says (Backend.replayedWrites:
 * local --idempotency-key's record, a premia service's `idempotent-replayed: true`). A server that
 * does not say so (one implementing only the spec) leaves it false: nothing can be told there.
 */
export function replayedNow(b: Backend, row: KeyedOperation): boolean {
  return b.replayedWrites().some((w) => w.operation === row.name);
}

/**
 * After a keyed write's answer is shown: the warning that it was an earlier run's answer repeated
 * (repeatedAnswerNote), when the write itself was answered so (replayedNow). For the commands
 * that ask nothing before their write, so read nothing before it: `policies create` and
 * `import`, `bank import` and `seed`, `collections execute`. A cron job's retry of
 * `policies import --idempotency-key nightly-2026-11-30` printed "Imported 1,000 policies" again
 * and nothing more, read by finance staff as a second import. Returns whether it warned.
 */
export function warnIfReplayed(env: Pick<CommandDeps, 'ui' | 'globals'>, b: Backend, row: KeyedOperation, nothing: string, redo?: { command: string; does: string }): boolean {
  const key = env.globals.idempotencyKey;
  if (key === undefined || !replayedNow(b, row)) return false;
  env.ui.warn(repeatedAnswerNote(key, nothing, redo));
  return true;
}

/**
 * The warning after a write its key answered with an earlier run's answer: that what is shown is
 * that answer, that nothing was done now (`nothing`), and how to act now: the command with a new
 * idempotency key or none (`redo`: the command and what it then does; without it, in general).
 */
export function repeatedAnswerNote(key: string, nothing: string, redo?: { command: string; does: string }): string {
  const now = redo ? `'${redo.command}' with a new idempotency key (or none) ${redo.does}.` : 'Run it with a new idempotency key (or none) to act now.';
  return `that is the answer of an earlier run with idempotency key '${key}', repeated: ${nothing}. ${now}`;
}
