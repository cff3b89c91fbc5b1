/**
 * The records of Idempotency-Key, kept in the store for the server's POST and PATCH and for
 * local --idempotency-key alike. The first response for a (client, key) is kept in the store
 * for 24 hours with a hash of its request; a retry with the same key and request gets it again
 * (with `Idempotent-Replayed: true`), the same key with another request is 422
 * IDEMPOTENCY_KEY_REUSED, and a retry while the first still runs is 409 IDEMPOTENCY_IN_PROGRESS.
 * The row is claimed in a BEGIN IMMEDIATE transaction before the work starts, so two servers on
 * one store cannot both run it. Only 2xx results are kept: a refusal (4xx) or a failure (5xx)
 * deletes the row, so a retry runs again and answers from the state it then finds (a cron rerun
 * after the period closed gets the statement, not the stored PERIOD_OPEN). Requests refused
 * before any work (bad body, 401, 413, 429) are not recorded at all. Rows stored by earlier
 * versions, which kept refusals, still replay until they expire.
 *
 * Abandoned keys: the claim records its owner (host name, PID namespace, process id, a random
 * token of the process, start time). A process that dies mid-request never completes or releases
 * its claim, so a retry takes the key over, as a fresh claim, when the owner is gone: its process
 * id is no longer alive on this host (or is ours, with another token: the pid was reused), or it
 * started more than ABANDONED_AFTER_MS ago (a live owner that slow, or one on another host we
 * cannot check). An owner of this host name in another PID namespace (a container with host
 * networking, premia process 1 in each) is one on another host: its process id names no process
 * here, or another one. Only the current owner may complete or release a claim, so an owner
 * that was taken over while still running cannot overwrite the new owner's response.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { PremiaError } from '../../domain/errors.js';
import { CLI_METHOD } from '../../domain/idempotency.js';
import { stringifyJson } from '../../domain/json.js';
import { HERE, inOtherPidNamespace, probeableHere, PROCESS_TOKEN, processIsAlive, type ProcessPlace } from '../../lib/process.js';
import {
  completeIdempotencyKey,
  deleteIdempotencyKey,
  findIdempotencyKey,
  insertIdempotencyKey,
  noteIdempotencyProgress,
  ownerPlace,
  purgeExpiredIdempotencyKeys,
  takeOverIdempotencyKey,
  type IdempotencyRow,
} from '../../store/repos/idempotency.js';
import type { Store, Trx } from '../../store/store.js';
import { LOCAL_CLIENT_ID } from './world.js';
import type { IdempotencyClaim, IdempotencyClaimInput, IdempotencyOwner, IdempotencyRecord, StoredResponse } from '../types.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** A claim left in progress longer than this is taken to be abandoned, whoever holds it. */
export const ABANDONED_AFTER_MS = 10 * 60 * 1000;

const PROCESS_OWNER: IdempotencyOwner = { host: HERE.host, pid: process.pid, token: PROCESS_TOKEN, pidNamespace: HERE.pidNamespace };

/** This process as the owner of the claims it makes. The token tells it from a later process with the same pid. */
export function processOwner(): IdempotencyOwner {
  return PROCESS_OWNER;
}

/** Whether the owner of a claim still in progress is gone, so that `self` may take the key over. */
export function claimAbandoned(
  row: Pick<IdempotencyRow, 'owner_host' | 'owner_pid' | 'owner_token' | 'started_at' | 'created_at'>,
  self: IdempotencyOwner,
  now: number,
  isAlive: (pid: number) => boolean = processIsAlive,
): boolean {
  const startedAt = row.started_at ?? row.created_at;
  if (now - startedAt > ABANDONED_AFTER_MS) return true;
  // Without an owner (a row from before owners were recorded) or on another host (or PID namespace), only the age tells.
  if (row.owner_pid === null || row.owner_token === null || !probeable(row, self)) return false;
  if (row.owner_pid === self.pid) return row.owner_token !== self.token;
  return !isAlive(row.owner_pid);
}

/** Where `self`'s process runs (lib/process.ts). */
const placeOf = (self: IdempotencyOwner): ProcessPlace => ({ host: self.host, pidNamespace: self.pidNamespace ?? null });

/** Whether the owner of `row` can be probed by its process id from `self`'s process: same host, same PID namespace. */
function probeable(row: Pick<IdempotencyRow, 'owner_host'>, self: IdempotencyOwner): boolean {
  const owner = ownerPlace(row.owner_host);
  return probeableHere(owner.host, owner.pidNamespace, placeOf(self));
}

/**
 * The claims this module holds for requests still running (claimed, not yet completed or
 * released). A claim in progress under this owner's token that is not among them was left by a
 * completion or release that failed (the database unreachable meanwhile): nothing runs it any
 * more, and a retry takes it over at once rather than waiting out ABANDONED_AFTER_MS (but for a
 * request that commits in parts, see claimKeyOnce).
 */
const HELD = new Set<string>();
const held = (clientId: number, key: string) => `${clientId}\u0000${key}`;

/**
 * The scope of the store's own keys (those of the store-wide operations, POST /clock/advance and
 * POST /bank/seed, and of `premia keys create`), shared by every operator key of every client.
 * It is no client's: the client Local (id 1, local mode's) has keys of its own, and an operator
 * of another client advancing with a key Local used must neither be refused for Local's request
 * (learning what it was) nor refuse Local's later one. Its rows are kept under Local's id (the
 * table's client_id names a client) with a prefix no Idempotency-Key can hold (a control
 * character: keys are printable ASCII).
 */
export const STORE_SCOPE = 0;
const STORE_KEY_PREFIX = '\u0001store\u0001';

/** The (client_id, key) of the row that holds a scope's key. */
export function idempotencyRowKey(scope: number, key: string): { clientId: number; key: string } {
  return scope === STORE_SCOPE ? { clientId: LOCAL_CLIENT_ID, key: STORE_KEY_PREFIX + key } : { clientId: scope, key };
}

/** The requests of the store's scope, as recorded (their method and path). */
const STORE_REQUESTS = new Set(['POST /v1/clock/advance', 'POST /v1/bank/seed', `${CLI_METHOD} premia keys create`]);

/** Claim the key for this request, or return the stored response to replay. */
export async function claimKey(store: Store, input: IdempotencyClaimInput): Promise<IdempotencyClaim> {
  const claim = await claimKeyOnce(store, input);
  if (claim.kind === 'claimed') HELD.add(held(input.clientId, input.key));
  return claim;
}

async function claimKeyOnce(store: Store, input: IdempotencyClaimInput): Promise<IdempotencyClaim> {
  const owner = input.owner ?? PROCESS_OWNER;
  const at = idempotencyRowKey(input.clientId, input.key);
  return store.transaction(async (trx) => {
    await purgeExpiredIdempotencyKeys(trx, input.now);
    let row = await findIdempotencyKey(trx, at.clientId, at.key);
    if (!row && input.clientId === STORE_SCOPE) {
      // A response of the store's scope stored by an earlier version, under Local's own key: still
      // the store's until it expires (a retried advance must not live its days twice).
      const earlier = await findIdempotencyKey(trx, LOCAL_CLIENT_ID, input.key);
      if (earlier && earlier.status !== null && STORE_REQUESTS.has(`${earlier.method} ${earlier.path}`)) row = earlier;
    }
    if (!row) {
      await insertIdempotencyKey(
        trx,
        {
          client_id: at.clientId,
          key: at.key,
          request_hash: input.hash,
          method: input.method,
          path: input.path,
          created_at: input.now,
          expires_at: input.now + IDEMPOTENCY_TTL_MS,
        },
        owner,
        input.now,
      );
      return { kind: 'claimed' } as const;
    }
    if (row.request_hash !== input.hash) {
      // A request of the CLI alone (`premia keys create`: no endpoint) is named as a command.
      const first = row.method === CLI_METHOD ? `'${row.path}' with other options` : `${row.method} ${row.path} or a different body`;
      throw new PremiaError('IDEMPOTENCY_KEY_REUSED', `This Idempotency-Key was first used for another request (${first}); use a new key for a new request.`);
    }
    if (row.status === null) {
      // Not a request that commits in parts: run again at once, it would redo from where the
      // first stopped; its key waits out ABANDONED_AFTER_MS.
      const leftByThisOwner = row.owner_token === owner.token && !HELD.has(held(input.clientId, input.key)) && input.inParts !== true;
      if (
        (leftByThisOwner || claimAbandoned(row, owner, input.now, input.isAlive)) &&
        (await takeOverIdempotencyKey(trx, at.clientId, at.key, row.owner_token, owner, input.now, input.now + IDEMPOTENCY_TTL_MS))
      ) {
        const resumeTo = recordedTarget(row.body);
        return resumeTo === null ? ({ kind: 'claimed' } as const) : ({ kind: 'claimed', resumeTo } as const);
      }
      throw new PremiaError('IDEMPOTENCY_IN_PROGRESS', inProgress(row, owner, input.clientId, input.key));
    }
    return {
      kind: 'replay',
      response: { status: row.status, contentType: row.content_type ?? 'application/json; charset=utf-8', body: row.body ?? '' },
    } as const;
  });
}

/**
 * Store the response of a claimed request. False when the claim was taken over meanwhile (this
 * request ran longer than ABANDONED_AFTER_MS): the new owner's outcome is the one kept.
 */
export async function completeKey(
  store: Store,
  clientId: number,
  key: string,
  response: StoredResponse,
  owner: IdempotencyOwner = PROCESS_OWNER,
): Promise<boolean> {
  HELD.delete(held(clientId, key)); // done with, stored or not (see HELD)
  const at = idempotencyRowKey(clientId, key);
  return store.transaction((trx) =>
    completeIdempotencyKey(trx, at.clientId, at.key, owner.token, { status: response.status, content_type: response.contentType, body: response.body }),
  );
}

/**
 * Store the response of a claimed request inside the transaction that does its work, so that
 * the work and its record commit together or not at all (a key made by `keys create` is never
 * left without the record that stops a rerun making another). False when the claim was taken
 * over meanwhile: the caller then rolls its work back.
 */
export async function completeKeyWithin(
  trx: Trx,
  clientId: number,
  key: string,
  response: StoredResponse,
  owner: IdempotencyOwner = PROCESS_OWNER,
): Promise<boolean> {
  HELD.delete(held(clientId, key)); // done with (see HELD); a rollback leaves the claim to releaseKey
  const at = idempotencyRowKey(clientId, key);
  return completeIdempotencyKey(trx, at.clientId, at.key, owner.token, { status: response.status, content_type: response.contentType, body: response.body });
}

/** The claimed request a write in progress answers (answerInWork), with the status it answers with. */
interface PendingAnswer {
  clientId: number;
  key: string;
  status: number;
  contentType: string;
  owner: IdempotencyOwner;
  /** Set once a write stored the answer in its transaction (answered). */
  stored: boolean;
}
const PENDING = new AsyncLocalStorage<PendingAnswer>();

/**
 * Run the work of a claimed request so that a write doing it in one transaction stores its answer
 * in that transaction (answered): stored after the commit, a process killed between the two left
 * the work done and the key unanswered, and the rerun with the key did it again (a second
 * settlement refused SETTLEMENT_EXISTS, exit 6, for the one the first run made). `stored`: whether
 * it was (the caller completes the key itself only when not: the answer is not written twice).
 */
export async function answerInWork<T>(
  clientId: number,
  key: string,
  response: Omit<StoredResponse, 'body'>,
  fn: () => Promise<T>,
  owner: IdempotencyOwner = PROCESS_OWNER,
): Promise<{ value: T; stored: boolean }> {
  const pending: PendingAnswer = { clientId, key, status: response.status, contentType: response.contentType, owner, stored: false };
  const value = await PENDING.run(pending, fn);
  return { value, stored: pending.stored };
}

/**
 * `value`, the answer of a write that does its work in this one transaction, stored as the answer
 * of the request under way (answerInWork), if any, so that both commit together or not at all.
 * Called last in the transaction, whose commit follows: a write that returns has committed it.
 */
export async function answered<T>(trx: Trx, value: T): Promise<T> {
  const pending = PENDING.getStore();
  if (pending) {
    HELD.delete(held(pending.clientId, pending.key)); // done with (see HELD); a rollback leaves the claim to releaseKey
    const at = idempotencyRowKey(pending.clientId, pending.key);
    pending.stored = await completeIdempotencyKey(trx, at.clientId, at.key, pending.owner.token, {
      status: pending.status,
      content_type: pending.contentType,
      body: stringifyJson(value),
    });
  }
  return value;
}

/**
 * Record the date an advance claimed under this key resolved to reach, once it holds the store
 * and before its first day: a retry that takes the key over from a process that stopped part way
 * runs to that date (IdempotencyClaim `resumeTo`), never `days` counted again from the later
 * clock. False when the claim was taken over meanwhile.
 */
export async function noteKeyTarget(store: Store, clientId: number, key: string, to: string, owner: IdempotencyOwner = PROCESS_OWNER): Promise<boolean> {
  const at = idempotencyRowKey(clientId, key);
  return store.transaction((trx) => noteIdempotencyProgress(trx, at.clientId, at.key, owner.token, JSON.stringify({ advance_to: to })));
}

/**
 * Why a retry must wait for a claim in progress, as far as this process can tell: running in a
 * live process of this host; left by this process (its request ended while the database was
 * unreachable); or in a process of another host, which may have stopped (a machine lost): it
 * cannot be probed from here, so its key is taken over ABANDONED_AFTER_MS after it started.
 */
function inProgress(
  row: Pick<IdempotencyRow, 'owner_host' | 'owner_pid' | 'owner_token' | 'started_at' | 'created_at'>,
  self: IdempotencyOwner,
  clientId: number,
  key: string,
): string {
  const since = new Date(row.started_at ?? row.created_at).toISOString();
  const from = new Date((row.started_at ?? row.created_at) + ABANDONED_AFTER_MS + 1).toISOString();
  const first = 'The first request with this Idempotency-Key';
  if (row.owner_token === self.token && !HELD.has(held(clientId, key))) {
    return (
      `${first} (an advance, which commits day by day) stopped part way in this process when the database could not be reached; ` +
      `a retry takes its key over from ${from}. To go on now, see where the clock is (GET /clock, 'premia clock') and advance to the date you want with "to" under a new key.`
    );
  }
  if (row.owner_pid !== null && probeable(row, self)) return `${first} is still running (process ${row.owner_pid} on this host, since ${since}); retry after it has finished.`;
  const owner = ownerPlace(row.owner_host);
  const elsewhere = inOtherPidNamespace(owner.host, owner.pidNamespace, placeOf(self)) ? ' in another PID namespace (a container sharing the host name)' : '';
  const where = owner.host === null || row.owner_pid === null ? 'in another process' : `in process ${row.owner_pid} on ${owner.host}${elsewhere}`;
  return (
    `${first} started ${where} at ${since} and has not finished: it is still running, or that process stopped (a machine lost), which cannot be told from here. ` +
    `Retry after it has finished; if it stopped, a retry from ${from} (ten minutes after it started) takes the key over.`
  );
}

/** The date a claim in progress recorded it was to reach (noteKeyTarget), or null. */
function recordedTarget(body: string | null): string | null {
  if (body === null) return null;
  try {
    const to = (JSON.parse(body) as { advance_to?: unknown }).advance_to;
    return typeof to === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(to) ? to : null;
  } catch {
    return null;
  }
}

/** Forget a claimed key (the request was refused or failed: a retry may run again). */
export async function releaseKey(store: Store, clientId: number, key: string, owner: IdempotencyOwner = PROCESS_OWNER): Promise<boolean> {
  HELD.delete(held(clientId, key)); // done with, released or not (see HELD)
  const at = idempotencyRowKey(clientId, key);
  return store.transaction((trx) => deleteIdempotencyKey(trx, at.clientId, at.key, owner.token));
}

/**
 * What is on record for a key of a scope (GET /idempotency-keys), as a claim would find it: null
 * when there is no row or it has expired (a claim purges it first). `scope` is a client's id
 * (its own keys) or STORE_SCOPE (the store's: an advance's or a seed's, whoever sent it).
 */
export async function findKeyRecord(store: Store, scope: number, key: string, now: number): Promise<IdempotencyRecord | null> {
  const at = idempotencyRowKey(scope, key);
  let row = await findIdempotencyKey(store.db, at.clientId, at.key);
  if (!row && scope === STORE_SCOPE) {
    // A store's answer kept by an earlier version under Local's own key, as claimKeyOnce finds it.
    const earlier = await findIdempotencyKey(store.db, LOCAL_CLIENT_ID, key);
    if (earlier && earlier.status !== null && STORE_REQUESTS.has(`${earlier.method} ${earlier.path}`)) row = earlier;
  }
  if (!row || row.expires_at <= now) return null;
  return {
    key,
    method: row.method,
    path: row.path,
    // Not a command's (`premia keys create`): its hash is of a client's name and role, which any
    // operator key of any client, reading the store's keys, could test guesses against. No
    // request sent with the key can be that command, so the hash would tell it nothing more.
    request_hash: row.method === CLI_METHOD ? null : row.request_hash,
    state: row.status === null ? 'running' : 'answered',
    status: row.status,
    created_at: new Date(row.created_at).toISOString(),
    expires_at: new Date(row.expires_at).toISOString(),
  };
}
