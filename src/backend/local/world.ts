/**
 * The simulated world a store holds: the virtual clock, the simulation seed and the id salt,
 * plus the default client that local mode acts for. Read from the store on every call (never
 * cached), because a CLI beside `premia serve` may change them at any time.
 */
import { randomBytes } from 'node:crypto';
import { CALENDAR_KEY, IMPORTED_HOLIDAYS_KEY, storedCalendar, type Calendar } from '../../domain/calendar.js';
import { PremiaError } from '../../domain/errors.js';
import { hashString32 } from '../../domain/hash.js';
import { redactDbUrl } from '../../lib/db-url.js';
import { addDays, dayNumber, type IsoDate } from '../../domain/period.js';
import type { Db, Store, Trx } from '../../store/store.js';
import { getAllMeta, setMeta } from '../../store/repos/meta.js';
import { findClientById, insertClient } from '../../store/repos/clients.js';
import { runningAdvance } from '../../store/advance-lease.js';

export const DEFAULT_SEED = 1;
export const LOCAL_CLIENT_ID = 1;
export const LOCAL_CLIENT_NAME = 'Local';

export interface World {
  today: IsoDate;
  seed: number;
  /** The business-day calendar (the `calendar` setting and imported holidays). */
  calendar: Calendar;
  idSalt: number;
  /** True once a collections run exists. */
  locked: boolean;
}

export interface InitOptions {
  /**
   * The real UTC date. A new store's clock starts on the day before it: the clock's date is the
   * last day whose business has run, and a new store has run none of today's, so its first
   * advance lives today (a store made on a month's last day can still queue that month).
   */
  realToday: IsoDate;
  /** `--seed`: only allowed when the store is created (or matches the stored seed). */
  seed?: number;
  /** false: a store file never set up (no clock) is not set up here either, but STORE_NOT_FOUND. */
  create?: boolean;
}

/** Make sure the store has a clock, a seed and the local client. Idempotent. */
export async function initWorld(store: Store, options: InitOptions): Promise<void> {
  const meta = await getAllMeta(store.db);
  if (meta.has('clock_date') && meta.has('seed')) {
    checkSeed(meta, options.seed);
    if (await findClientById(store.db, LOCAL_CLIENT_ID)) return;
  }
  // premia's tables and nothing in them: what a `db copy --to` that was stopped or failed leaves
  // (or a store's creation stopped before this). A command that only reads does not set it up:
  // answering from a new, empty store would say "nothing to do" for the store the user meant.
  if (options.create === false && store.path !== ':memory:' && !meta.has('clock_date')) {
    throw new PremiaError(
      'VALIDATION_ERROR',
      `There is no store at ${redactDbUrl(store.path)}: it has premia's tables but was never set up (no clock; a 'premia db copy' into it that was ` +
        'stopped leaves this), and this command reads a store and does not create one, so nothing was changed. Copy into it again, or point --db at the store.',
      { details: [{ field: 'db', code: 'STORE_NOT_FOUND', message: `${redactDbUrl(store.path)} holds no store yet` }] },
    );
  }
  await store.transaction(async (trx) => {
    const current = await getAllMeta(trx);
    if (!current.has('seed')) {
      const seed = options.seed ?? DEFAULT_SEED;
      await setMeta(trx, 'seed', String(seed));
      await setMeta(trx, 'id_salt', String(options.seed === undefined ? randomIdSalt() : hashString32(`premia-ids:${seed}`)));
    } else {
      checkSeed(current, options.seed);
    }
    if (!current.has('clock_date')) await setMeta(trx, 'clock_date', addDays(options.realToday, -1));
    if (!(await findClientById(trx, LOCAL_CLIENT_ID))) {
      await insertClient(trx, { id: LOCAL_CLIENT_ID, name: LOCAL_CLIENT_NAME, created_at: Date.now() });
    }
  });
}

/**
 * The id key of a store created without --seed: 52 random bits (20 of them above 2^32, never
 * all zero, so domain/ids.ts mixes them in). An explicit --seed derives the key from the seed
 * instead, so a tester's store gives the same ids every time.
 */
function randomIdSalt(): number {
  const bytes = randomBytes(8);
  const hi = (bytes.readUInt32BE(0) & 0xfffff) | 0x100000;
  return hi * 4294967296 + bytes.readUInt32BE(4);
}

function checkSeed(meta: Map<string, string>, requested: number | undefined): void {
  if (requested === undefined) return;
  const stored = Number(meta.get('seed'));
  if (stored !== requested) {
    throw new PremiaError(
      'SEED_LOCKED',
      `This store already has seed ${stored}; --seed only applies when a store is created. ` +
        `Use 'premia bank seed ${requested}' before any collections run, or a new --db.`,
    );
  }
}

export async function readWorld(db: Db | Trx): Promise<World> {
  const meta = await getAllMeta(db);
  const today = meta.get('clock_date');
  const seed = meta.get('seed');
  if (!today || !seed) throw new PremiaError('INTERNAL', 'The store has no clock or seed; it was not initialised.');
  return {
    today,
    seed: Number(seed),
    calendar: storedCalendar(meta.get(CALENDAR_KEY), meta.get(IMPORTED_HOLIDAYS_KEY)),
    idSalt: Number(meta.get('id_salt') ?? 0),
    locked: meta.get('clock_locked') === '1',
  };
}

/** A timestamp (epoch ms) on the virtual date, at the wall clock's time of day. */
export function stamp(today: IsoDate, now: Date): number {
  return dayNumber(today) * 86_400_000 + (now.getTime() % 86_400_000);
}

/** The clock's day (a day number) a stored timestamp was taken on (stamp's inverse, to the day). */
export function stampDay(ms: number): number {
  return Math.floor(ms / 86_400_000);
}

/** ISO 8601 UTC text of a stored timestamp. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Refuse a change of what a running clock advance lives by (the clock, the seed, the calendar
 * base) while one runs: before the first collections run nothing else stops it, and the advance
 * then wrote its next day's date over a `clock set` that had said "Clock set to …", or lived the
 * rest of its days on another seed. `meta`: the store's meta rows, read in the caller's
 * transaction. An advance whose process is gone does not count (advance-lease.ts `runningAdvance`).
 */
export async function refuseWhileAdvancing(store: Store, trx: Trx, meta: ReadonlyMap<string, string>, change: string): Promise<void> {
  const lease = await runningAdvance(store, trx, meta);
  if (lease === null) return;
  const holder = lease.from !== undefined && lease.to !== undefined ? ` (from ${lease.from} to ${lease.to}, process ${lease.pid})` : '';
  throw new PremiaError(
    'CONFLICT',
    `A clock advance is running on this store${holder}, so ${change} cannot change now: ` +
      "it would change under that advance's days. Nothing changed; run this again once the advance has finished ('premia clock' shows where it stopped).",
  );
}
