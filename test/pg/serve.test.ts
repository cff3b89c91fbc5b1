/**
 * Two real `premia serve --db postgres://…` processes (the built CLI, child processes, each on a
 * free port) on one database, as two servers behind one address would be: what must happen once
 * happens once, whichever process a request lands on.
 *
 * The steps run in order on one database (the month is set up once): both advance the clock at
 * once, then both settle the period at once, then an Idempotency-Key sent to one is retried on
 * the other.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend } from '../../src/backend/local/index.js';
import { REPO, tempDir } from '../helpers/cli.js';
import { FIXED_NOW, fixtureMonth, readDownload } from '../helpers/local.js';
import { freshDatabase, noPg, pg } from './db.js';

interface Served {
  base: string;
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** `premia serve` on a free port; resolves once it says where it listens. */
function serveProcess(db: string, cwd: string): Promise<Served> {
  const child = spawn(process.execPath, [join(REPO, 'bin', 'premia.js'), 'serve', '--port', '0', '--rate-limit', '0', '--db', db], {
    cwd,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise<Served>((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /premia: serving (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(stderr);
      if (m) resolve({ base: m[1]!, child, stderr: () => stderr, exited });
    });
    child.on('exit', (code) => reject(new Error(`premia serve exited (${code}) before listening:\n${stderr}`)));
  });
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => any;
}

async function send(method: 'GET' | 'POST', url: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await request(url, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) };
}

describe.skipIf(noPg)(`two premia serve processes on one PostgreSQL database${noPg ? ` (skipped: ${pg.reason})` : ''}`, () => {
  const { dir, cleanup } = tempDir('premia-pg-serve-');
  let servers: Served[] = [];
  let key = '';
  let want = '';

  beforeAll(async () => {
    const db = await freshDatabase('two_serve');
    // The month up to the advance, and an operator key, written before the servers start.
    const setup = await openLocalBackend({ path: db, seed: 1, now: FIXED_NOW });
    try {
      await fixtureMonth(setup, { advance: false });
      key = (await setup.admin.keys.create(null, 'operator')).key;
    } finally {
      await setup.close();
    }
    // The reference: the same month by one advance on a store of its own.
    const solo = await openLocalBackend({ path: ':memory:', seed: 1, now: FIXED_NOW });
    try {
      await fixtureMonth(solo);
      want = await readDownload(await solo.exportAttempts('2026-11', 'csv'));
    } finally {
      await solo.close();
    }
    servers = await Promise.all([serveProcess(db, dir), serveProcess(db, dir)]);
  });

  afterAll(async () => {
    for (const s of servers) {
      s.child.kill('SIGTERM');
      await s.exited;
    }
    cleanup();
  });

  it('both advance the clock at once: each day runs once, the attempts of one advance', async () => {
    const [a, b] = servers as [Served, Served];
    const replies = await Promise.all([a, b].map((s) => send('POST', `${s.base}/clock/advance`, key, { to: '2026-11-30' })));
    for (const r of replies) expect(r.status, r.text).toBe(200);
    // One lived the 30 days; the other (which waited for it, or came after) found nothing left.
    expect(replies.map((r) => (r.json().days as unknown[]).length).sort((x, y) => x - y)).toEqual([0, 30]);
    for (const s of [a, b]) expect((await send('GET', `${s.base}/clock`, key)).json().date).toBe('2026-11-30');

    expect(want.trimEnd().split('\n').length).toBe(544); // the header and 543 attempts
    for (const s of [a, b]) {
      const r = await send('GET', `${s.base}/reports/attempts?period_month=2026-11&format=csv`, key);
      expect(r.status).toBe(200);
      expect(r.text === want, `attempts from ${s.base} differ from one advance's`).toBe(true);
    }
  });

  it('both settle the same period at once: exactly one statement, the others a clear 409', async () => {
    const [a, b] = servers as [Served, Served];
    expect((await send('POST', `${a.base}/clock/advance`, key, { to: '2026-12-02' })).status).toBe(200);
    const replies = await Promise.all([a, b, a, b].map((s) => send('POST', `${s.base}/settlements`, key, { period_month: '2026-11' })));
    const won = replies.filter((r) => r.status === 201);
    const lost = replies.filter((r) => r.status !== 201);
    expect(won).toHaveLength(1);
    expect(won[0]!.json().settlement_number).toBe('SETTLE-2026-11-001');
    expect(lost.map((r) => [r.status, r.json().error.code])).toEqual([
      [409, 'SETTLEMENT_EXISTS'],
      [409, 'SETTLEMENT_EXISTS'],
      [409, 'SETTLEMENT_EXISTS'],
    ]);
    for (const s of [a, b]) {
      const list = (await send('GET', `${s.base}/settlements`, key)).json();
      expect(list.data.map((x: { settlement_number: string }) => x.settlement_number)).toEqual(['SETTLE-2026-11-001']);
    }
  });

  it('an Idempotency-Key sent to one and retried on the other: the same response, one policy', async () => {
    const [a, b] = servers as [Served, Served];
    const policy = {
      policy_number: 'POL-9000001',
      customer_id: 'C900001',
      external_customer_ref: 'EXT-900001',
      product_code: 'LIFE_BASIC',
      collection_amount: 149.5,
    };
    const idem = { 'idempotency-key': 'two-servers-create-1' };
    const first = await send('POST', `${a.base}/policies`, key, policy, idem);
    expect(first.status, first.text).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await send('POST', `${b.base}/policies`, key, policy, idem);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(first.text);
    // The same key with another body, on either process: refused, nothing written.
    const reused = await send('POST', `${b.base}/policies`, key, { ...policy, collection_amount: 150 }, idem);
    expect([reused.status, reused.json().error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    // Without the key, the same policy again is a duplicate: the retry above did not create one.
    const again = await send('POST', `${a.base}/policies`, key, policy);
    expect([again.status, again.json().error.code]).toEqual([409, 'DUPLICATE_POLICY']);
    const got = (await send('GET', `${b.base}/policies/POL-9000001`, key)).json();
    expect(got.collection_amount).toBe(149.5);
    expect(got.id).toBe(first.json().id);
  });
});
