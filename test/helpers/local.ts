/** Driving the local backend directly in tests (no CLI), on a temporary store. */
import { createReadStream } from 'node:fs';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import type { Download, Upload } from '../../src/backend/types.js';
import { FIXTURES } from './cli.js';

// The wall clock the day after the store's: a new store's clock starts on the day before today
// (backend/local/world.ts), so stores made under it are at 2026-11-21 and stamp 2026-11-21T09:30.
export const FIXED_NOW = () => new Date('2026-11-22T09:30:00.000Z');

/** A backend on a new store (seed 1 unless told: tests see the same ids every run) or an existing one. */
export function localBackend(options: { path?: string; seed?: number; aloneOnThread?: boolean } = {}): Promise<LocalBackend> {
  const seed = options.seed ?? (options.path === undefined ? 1 : undefined);
  return openLocalBackend({ path: options.path ?? ':memory:', seed, now: FIXED_NOW, aloneOnThread: options.aloneOnThread });
}

export function fileUpload(path: string): Upload {
  return { name: basename(path), stream: createReadStream(path) };
}

export function textUpload(name: string, text: string): Upload {
  return { name, stream: Readable.from([Buffer.from(text)]) };
}

export async function readDownload(d: Download): Promise<string> {
  // Bytes are joined before decoding: a character split across two chunks stays whole.
  const parts: Buffer[] = [];
  for await (const chunk of d.body) parts.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

/** The README's month: clock to 2026-10-31, import the book (and the bank fixture), execute November. */
export async function fixtureMonth(
  b: LocalBackend,
  options: { bank?: boolean; strategy?: string; advance?: boolean } = {},
): Promise<void> {
  await b.setClock('2026-10-31');
  await b.importPolicies(fileUpload(join(FIXTURES, 'policies.csv')));
  if (options.bank !== false) await b.importBankTransactions(fileUpload(join(FIXTURES, 'bank-transactions.csv')));
  await b.executeCollections({ period_month: '2026-11', strategy: options.strategy });
  if (options.advance !== false) await b.advanceClock({ to: '2026-11-30' });
}

/** Every collection of a period (all pages). */
export async function allCollections(b: LocalBackend, period: string) {
  const out = [];
  let after: string | undefined;
  for (;;) {
    const page = await b.listCollections({ period_month: period, limit: 10_000, after });
    out.push(...page.data);
    if (page.next_after === null) return out;
    after = page.next_after;
  }
}
