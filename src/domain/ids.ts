/**
 * Public identifiers. Rows are keyed by SQLite's integer rowid; what the API shows is a
 * UUID-shaped id (RFC 9562 version 8, "custom") that encodes the rowid through a salted,
 * invertible permutation (a 4-round Feistel network on two 32-bit halves) plus 52 check bits.
 *
 * Why: a random UUID primary key costs an extra B-tree with random inserts on every bulk path.
 * Decoding an id back to its rowid needs no index at all, ids look random, a mangled or foreign
 * id fails its check bits (and answers 404), and the same explicit seed and inputs still give
 * the same ids. A store created without --seed has a random key, so its ids do not give away
 * row numbers (how many policies other clients hold) to anyone who knows this code. It is an
 * obfuscation with a wide key, not a cipher.
 */
import { fmix32 } from './hash.js';

export const IdKind = {
  policy: 1,
  collection: 2,
  execution: 3,
  settlement: 4,
  attempt: 5,
  apiKey: 6,
} as const;
export type IdKind = (typeof IdKind)[keyof typeof IdKind];

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const TWO_32 = 4294967296;
const ROUNDS = 4;

/**
 * The salt is a non-negative safe integer. Its low 32 bits key every round; the bits above (the
 * random key of a store created without --seed: ~52 bits, see world.ts) are mixed in as well, so
 * recovering such a store's key from its ids is an exhaustive search of ~2^52. A salt below 2^32
 * (derived from an explicit seed, or a store made before random keys) gives the ids it always gave.
 */
function high(salt: number): number {
  return Math.floor(salt / TWO_32) >>> 0;
}

function roundKey(salt: number, kind: number, round: number): number {
  const key = fmix32((salt ^ Math.imul(kind, 0x9e3779b1) ^ Math.imul(round + 1, 0x85ebca6b)) >>> 0);
  const hi = high(salt);
  return hi === 0 ? key : fmix32((key ^ Math.imul(hi, 0xcc9e2d51) ^ Math.imul(round + 7, 0x1b873593)) >>> 0);
}

function f(half: number, key: number): number {
  return fmix32((half ^ key) >>> 0);
}

function check(salt: number, kind: number, a: number, b: number): [number, number] {
  const hi = high(salt);
  let c1 = fmix32((a ^ Math.imul(salt, 0x27d4eb2f) ^ kind) >>> 0);
  if (hi !== 0) c1 = fmix32((c1 ^ Math.imul(hi, 0x85ebca6b)) >>> 0);
  const c2 = fmix32((b ^ c1 ^ 0x165667b1) >>> 0);
  return [c1, c2];
}

/** The public id of a row. `rowid` is a positive safe integer. */
export function encodeId(kind: IdKind, salt: number, rowid: number): string {
  let left = Math.floor(rowid / TWO_32) >>> 0;
  let right = rowid >>> 0;
  for (let r = 0; r < ROUNDS; r++) {
    const next = (left ^ f(right, roundKey(salt, kind, r))) >>> 0;
    left = right;
    right = next;
  }
  const [c1, c2] = check(salt, kind, left, right);
  const bytes = [
    left >>> 24, (left >>> 16) & 255, (left >>> 8) & 255, left & 255,
    right >>> 24, (right >>> 16) & 255,
    0x80 | (c1 & 0x0f), (c1 >>> 4) & 255,
    0x80 | ((c1 >>> 12) & 0x3f), (c1 >>> 18) & 255,
    (right >>> 8) & 255, right & 255,
    c2 >>> 24, (c2 >>> 16) & 255, (c2 >>> 8) & 255, c2 & 255,
  ];
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += HEX[bytes[i]!];
  }
  return s;
}

/** The rowid an id encodes, or null when it is not an id of this kind and salt. */
export function decodeId(kind: IdKind, salt: number, id: string): number | null {
  if (id.length !== 36 || !UUID_RE.test(id)) return null;
  const hex = id.replace(/-/g, '').toLowerCase();
  const byte = (i: number) => parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  const left0 = ((byte(0) << 24) | (byte(1) << 16) | (byte(2) << 8) | byte(3)) >>> 0;
  const right0 = ((byte(4) << 24) | (byte(5) << 16) | (byte(10) << 8) | byte(11)) >>> 0;
  const c1Low = (byte(6) & 0x0f) | (byte(7) << 4) | ((byte(8) & 0x3f) << 12) | (byte(9) << 18);
  const c2 = ((byte(12) << 24) | (byte(13) << 16) | (byte(14) << 8) | byte(15)) >>> 0;
  const [e1, e2] = check(salt, kind, left0, right0);
  if ((e1 & 0x03ffffff) !== c1Low || e2 !== c2) return null;
  let left = left0;
  let right = right0;
  for (let r = ROUNDS - 1; r >= 0; r--) {
    const prev = (right ^ f(left, roundKey(salt, kind, r))) >>> 0;
    right = left;
    left = prev;
  }
  const rowid = left * TWO_32 + right;
  return rowid > 0 && Number.isSafeInteger(rowid) ? rowid : null;
}

export function looksLikeId(s: string): boolean {
  return s.length === 36 && UUID_RE.test(s);
}

/**
 * Why `policyNumber` may not be a policy number of the store whose id key is `salt`: it is written
 * as one of that store's policy ids (GET /policies/{id} and policy_ids look an id up first, so
 * the policy would be out of reach by its number). Null when it may be. Other UUIDs (a client's
 * own policy numbers) are not ids of this store and are taken. A question of the string's form
 * alone (it decodes under the store's id key), never of what is stored: the answer is the same
 * whether a policy has that id or not, and whichever client holds it.
 */
export function policyNumberIdProblem(policyNumber: string, salt: number): { code: 'INVALID_FORMAT'; message: string } | null {
  if (policyNumber.length !== 36 || decodeId(IdKind.policy, salt, policyNumber) === null) return null;
  return {
    code: 'INVALID_FORMAT',
    message: `policy_number '${policyNumber}' is written as a policy id of this store, so a lookup by it would be taken as that id and never find this policy by its number; choose a number that is not an id`,
  };
}
