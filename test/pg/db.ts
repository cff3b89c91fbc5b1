/**
 * For the PostgreSQL test files: the throwaway cluster of the run (global-setup.ts) and fresh
 * databases on it, one per test or side, so tests never see each other's rows.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Client as PgClient } from 'pg';
import { inject } from 'vitest';

const require = createRequire(import.meta.url);

export const pg = inject('pg');
/** True when the PostgreSQL tests must skip (the reason was printed by the global setup). */
export const noPg = pg.cluster === null;

async function admin<T>(fn: (client: PgClient) => Promise<T>): Promise<T> {
  const { Client } = require('pg') as typeof import('pg');
  const client = new Client({ connectionString: `${pg.cluster!.base}/postgres` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the cluster; its URL (with the superuser's password). */
export async function freshDatabase(prefix = 't'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  return `${pg.cluster!.base}/${name}`;
}

/** Run one statement on a database (fixtures the store would not make). */
export async function onDatabase<T = unknown>(url: string, query: string, params: unknown[] = []): Promise<T[]> {
  const { Client } = require('pg') as typeof import('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query, params)).rows as T[];
  } finally {
    await client.end();
  }
}
