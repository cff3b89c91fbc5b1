/**
 * API keys. Every key belongs to a client and sees that client's data; its role says what else
 * it may do: a `client` key (the default) nothing more, an `operator` key also drives the
 * store-wide virtual clock and the simulated bank (which act on every client's months). A key
 * is `pmk_` followed by 40 random base62 characters (about 238 bits, from node:crypto); it is
 * shown once when created. The store keeps only its SHA-256 hash, the prefix and the last 4
 * characters (for a redacted display such as `pmk_…a1B2`). A presented key is hashed, looked up
 * by hash, and the hashes are compared again with timingSafeEqual; every request checks the
 * store, so a key revoked from the CLI stops working at once.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { conflict, notFound, PremiaError, usageError, validationError } from '../../domain/errors.js';
import { decodeId, encodeId, IdKind } from '../../domain/ids.js';
import type { Period } from '../../domain/period.js';
import { isTypoOf } from '../../domain/words.js';
import { holdsKey, redactKeysIn } from '../../lib/key-text.js';
import * as repo from '../../store/repos/api-keys.js';
import { clientsWithCollections, findClientById, findClientByName, insertClient, listClientNames } from '../../store/repos/clients.js';
import type { Store, Trx } from '../../store/store.js';
import type { ApiKeyView, CreatedApiKey, IdempotencyClaimInput, KeyCreation, KeyRole, Principal, ReplayedApiKey, StoredResponse } from '../types.js';
import { claimKey, completeKeyWithin, processOwner, releaseKey } from './idempotency.js';
import { iso, LOCAL_CLIENT_ID, readWorld, stamp } from './world.js';

const KEY_PREFIX = 'pmk_';
const KEY_RANDOM_CHARS = 40;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Longest header value worth hashing; anything longer cannot be a key. */
const MAX_PRESENTED_LENGTH = 256;
const MAX_CLIENT_NAME = 100;

const UNAUTHORIZED_MESSAGE = 'Invalid or missing API key: send a valid key in the X-API-Key header.';

/** A new random key (uniform base62 by rejection sampling of random bytes). */
function generateKey(): string {
  let out = KEY_PREFIX;
  while (out.length < KEY_PREFIX.length + KEY_RANDOM_CHARS) {
    for (const b of randomBytes(64)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === KEY_PREFIX.length + KEY_RANDOM_CHARS) break;
    }
  }
  return out;
}

function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

function redact(prefix: string, last4: string): string {
  return `${prefix}…${last4}`;
}

/** A client name as an operator reads it: case, spacing and Unicode forms set aside. */
const plainName = (s: string) => s.normalize('NFKC').replace(/\s+/gu, ' ').trim().toLowerCase();

/** Client names an operator would read as one. */
function sameClientName(a: string, b: string): boolean {
  return plainName(a) === plainName(b);
}

/**
 * Client names one typo apart: an edit or two (one in a name of up to 5 characters), `acmee` for
 * `acme`, `Acme Lfe` for `Acme Life`; not names of a numbered series (`Fund 1`, `Fund 2`: their
 * digits differ), nor names shorter than 4 characters (`A`, `B`).
 */
function closeClientName(a: string, b: string): boolean {
  const x = plainName(a);
  const y = plainName(b);
  const digits = (s: string) => s.replace(/\D+/g, ' ').trim();
  return Math.min(x.length, y.length) >= 4 && digits(x) === digits(y) && isTypoOf(x, y);
}

function checkClientName(raw: string): string {
  const name = raw.trim();
  // eslint-disable-next-line no-control-regex
  if (name === '' || name.length > MAX_CLIENT_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
    throw validationError(`The client name must be 1–${MAX_CLIENT_NAME} printable characters.`, [
      { field: 'client', code: 'INVALID_VALUE', message: `client must be 1–${MAX_CLIENT_NAME} printable characters` },
    ]);
  }
  // A key pasted where the name belongs (`--client pmk_…`) would be stored, listed and answered by
  // whoami in full: the one place a key would be kept in clear.
  if (holdsKey(name)) {
    throw validationError(`The client name ${redactKeysIn(name)} holds an API key; give the client's name. No key was created.`, [
      { field: 'client', code: 'INVALID_VALUE', message: 'a client name is not an API key' },
    ]);
  }
  return name;
}

/**
 * Create a key for a client, creating the client when it is new. The key is returned once. An
 * operator key without a client name belongs to the store's own client (Local, the one local
 * mode acts for).
 */
export async function createKey(
  store: Store,
  clientName: string | null,
  now: () => Date,
  role: KeyRole = 'client',
  closeName = false,
  /** Done in the same transaction once the key is inserted (createKeyOnce records the request). */
  within?: (trx: Trx, made: ReplayedApiKey) => Promise<void>,
): Promise<CreatedApiKey> {
  const name = clientName === null ? null : checkClientName(clientName);
  if (name === null && role !== 'operator') throw usageError('A client key needs the client it is for: --client NAME.');
  const key = generateKey();
  return store.transaction(async (trx) => {
    const world = await readWorld(trx);
    // A stamp like every record's: the clock's date, the wall clock's time of day (docs/decisions.md).
    const at = stamp(world.today, now());
    let clientId: number;
    let clientShown: string;
    let newClient = false;
    if (name === null) {
      const local = await findClientById(trx, LOCAL_CLIENT_ID);
      if (!local) throw new PremiaError('INTERNAL', 'The store has no Local client; it was not initialised.');
      clientId = local.id;
      clientShown = local.name;
    } else {
      const client = await findClientByName(trx, name);
      if (!client) {
        // A new client, unless the name is an existing one typed differently (case, spacing, a
        // non-breaking space): two clients an operator cannot tell apart in `keys list`.
        const clients = await listClientNames(trx);
        const twin = clients.find((c) => sameClientName(c.name, name));
        if (twin) {
          throw conflict(
            'CONFLICT',
            `There is a client '${twin.name}' already, and '${name}' differs from it only in case or spacing. ` +
              `Give its exact name for a key of that client, or a clearly different name for a new one. No key was created.`,
            [{ field: 'client', code: 'SIMILAR_CLIENT', message: `'${name}' looks like the client '${twin.name}'`, existing: twin.name }],
          );
        }
        // A typo of an existing name would make a client of its own, whose key sees nothing.
        const near = closeName ? undefined : clients.find((c) => closeClientName(c.name, name));
        if (near) {
          throw conflict(
            'CONFLICT',
            `There is no client '${name}', but there is a client '${near.name}'. Give its exact name for a key of that client; ` +
              `to make a new client '${name}' all the same, add --yes. No key was created.`,
            [{ field: 'client', code: 'CLOSE_CLIENT', message: `'${name}' is close to the client '${near.name}'`, existing: near.name }],
          );
        }
      }
      clientId = client ? client.id : await insertClient(trx, { name, created_at: at });
      clientShown = name;
      newClient = !client;
    }
    const id = await repo.insertApiKey(trx, {
      client_id: clientId,
      key_hash: hashKey(key).toString('hex'),
      prefix: KEY_PREFIX,
      last4: key.slice(-4),
      created_at: at,
      role,
    });
    const keyId = encodeId(IdKind.apiKey, world.idSalt, id);
    if (within) {
      await within(trx, { id: keyId, client: clientShown, role, key: redact(KEY_PREFIX, key.slice(-4)), created_at: iso(at), revoked_at: null, new_client: newClient });
    }
    return { id: keyId, client: clientShown, new_client: newClient, role, key };
  });
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * `keys create` under an idempotency key (local --idempotency-key), made at most once: a cron
 * job or an operator rerunning the command after its answer was lost gets no second live key.
 * The request is claimed first (as every write's is); the key and the record of the request
 * commit in one transaction, so a key is never made without the record that stops a rerun
 * making another. The record holds only what `keys list` shows of the key (its id, client, role,
 * the redacted `pmk_…` and last 4, when it was made): its secret was printed once, to the first
 * run, and is kept nowhere, so a rerun is told about the key but never given it again. A refusal
 * (a look-alike client name…) keeps nothing: the idempotency key stays free for a corrected rerun.
 */
export async function createKeyOnce(
  store: Store,
  clientName: string | null,
  now: () => Date,
  role: KeyRole,
  claim: IdempotencyClaimInput,
  closeName = false,
): Promise<KeyCreation> {
  const first = await claimKey(store, claim);
  if (first.kind === 'replay') return { replayed: await replayedKey(store, first.response) };
  const owner = claim.owner ?? processOwner();
  try {
    const created = await createKey(store, clientName, now, role, closeName, async (trx, made) => {
      // The description alone: nothing of the secret (the last 4 characters are kept, and listed, anyway).
      const body = JSON.stringify({ id: made.id, client: made.client, new_client: made.new_client, role: made.role, key: made.key, created_at: made.created_at });
      if (!(await completeKeyWithin(trx, claim.clientId, claim.key, { status: 201, contentType: JSON_TYPE, body }, owner))) {
        throw new PremiaError('IDEMPOTENCY_IN_PROGRESS', 'Another run has taken this idempotency key over meanwhile; no key was created. Run the command again to see what it did.');
      }
    });
    return { created };
  } catch (e) {
    await releaseKey(store, claim.clientId, claim.key, owner).catch(() => false);
    throw e;
  }
}

/** The key a stored answer of `keys create` describes, as it is now (revoked since?). */
async function replayedKey(store: Store, response: StoredResponse): Promise<ReplayedApiKey> {
  const stored = JSON.parse(response.body) as ReplayedApiKey;
  const now = (await listKeys(store)).find((k) => k.id === stored.id);
  return { ...stored, ...(now ?? { revoked_at: null }), new_client: stored.new_client };
}

/**
 * The client a name gives, as `keys create --client` takes it (spaces around it trimmed), or
 * null. Only the exact name: one written in another case or spacing is another name (see
 * `clientLike`).
 */
export async function clientByName(store: Store, raw: string): Promise<{ id: number; name: string } | null> {
  const row = await findClientByName(store.db, raw.trim());
  return row ? { id: row.id, name: row.name } : null;
}

/** The clients with collections in `period`, by id; `own`: the store's own (Local). */
export async function clientsWithCollectionsIn(store: Store, period: Period): Promise<Array<{ id: number; name: string; own: boolean }>> {
  return (await clientsWithCollections(store.db, period)).map((c) => ({ id: c.id, name: c.name, own: c.id === LOCAL_CLIENT_ID }));
}

/**
 * The existing client a name that is none looks like: the same but for case or spacing, or one
 * typo away (as `keys create` judges a new client's name), or null.
 */
export async function clientLike(store: Store, raw: string): Promise<string | null> {
  const name = raw.trim();
  const clients = await listClientNames(store.db);
  const like = clients.find((c) => sameClientName(c.name, name)) ?? clients.find((c) => closeClientName(c.name, name));
  return like ? like.name : null;
}

export async function listKeys(store: Store): Promise<ApiKeyView[]> {
  const world = await readWorld(store.db);
  const rows = await repo.listApiKeys(store.db);
  return rows.map((r) => toView(r, world.idSalt));
}

/** Revoke a key by its id. Revoking a revoked key changes nothing. */
export async function revokeKey(store: Store, keyId: string, now: () => Date): Promise<{ key: ApiKeyView; changed: boolean }> {
  return store.transaction(async (trx) => {
    const world = await readWorld(trx);
    const rowid = decodeId(IdKind.apiKey, world.idSalt, keyId.trim());
    const row = rowid === null ? undefined : await repo.findApiKeyById(trx, rowid);
    if (!row) throw notFound('API key', keyId, 'id');
    const changed = await repo.revokeApiKey(trx, row.id, stamp(world.today, now()));
    const after = (await repo.findApiKeyById(trx, row.id))!;
    return { key: toView(after, world.idSalt), changed };
  });
}

function toView(r: repo.ApiKeyWithClient, idSalt: number): ApiKeyView {
  return {
    id: encodeId(IdKind.apiKey, idSalt, r.id),
    client: r.client_name,
    role: r.role,
    key: redact(r.prefix, r.last4),
    created_at: iso(r.created_at),
    revoked_at: r.revoked_at === null ? null : iso(r.revoked_at),
  };
}

const DUMMY_HASH = hashKey('premia: no such key');

/** The client a presented key acts for; 401 UNAUTHORIZED when missing, unknown or revoked. */
export async function authenticate(store: Store, presented: unknown): Promise<Principal> {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > MAX_PRESENTED_LENGTH) throw unauthorized();
  const digest = hashKey(presented);
  const row = await repo.findApiKeyByHash(store.db, digest.toString('hex'));
  const stored = row ? Buffer.from(row.key_hash, 'hex') : DUMMY_HASH;
  const same = stored.length === digest.length && timingSafeEqual(stored, digest);
  if (!row || !same || row.revoked_at !== null) throw unauthorized();
  const world = await readWorld(store.db);
  return {
    keyRowId: row.id,
    keyId: encodeId(IdKind.apiKey, world.idSalt, row.id),
    clientId: row.client_id,
    clientName: row.client_name,
    role: row.role,
  };
}

function unauthorized(): PremiaError {
  return new PremiaError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
}
