import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
let db: string;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  db = join(dir, 'premia.db');
});
afterEach(() => cleanup());

const cli = (...args: string[]) => runCli(['--db', db, ...args], { cwd: dir });

/** Look into the store file directly (read-only), as another process would. */
function inStore(look: (raw: Database.Database) => void): void {
  const raw = new Database(db, { readonly: true });
  try {
    look(raw);
  } finally {
    raw.close();
  }
}

describe('premia keys', () => {
  it('create prints a new key once on stdout and stores only its hash, prefix and last 4', async () => {
    const res = await cli('keys', 'create', '--client', 'Acme Life');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^pmk_[0-9A-Za-z]{40}\n$/);
    const key = res.stdout.trim();
    expect(res.stderr).toMatch(/^Created key [0-9a-f-]{36} for the new client Acme Life\.\n/);
    const second = await cli('keys', 'create', '--client', 'Acme Life');
    expect(second.stderr).toMatch(/^Created key [0-9a-f-]{36} for client Acme Life\.\n/);
    expect(res.stderr).not.toContain(key);
    inStore((raw) => {
      const rows = raw.prepare('select * from api_keys').all() as Record<string, unknown>[];
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({ prefix: 'pmk_', last4: key.slice(-4), revoked_at: null });
      expect(rows[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
      const everything = JSON.stringify(raw.prepare('select * from api_keys').all()) + JSON.stringify(raw.prepare('select * from clients').all());
      expect(everything).not.toContain(key.slice(4, 20));
    });
  });

  it('create --json prints {id, client, role, key}; a second key for the same client reuses the client', async () => {
    const a = (await cli('--json', 'keys', 'create', '--client', 'Acme Life')).json();
    const b = (await cli('--json', 'keys', 'create', '--client', '  Acme Life ')).json();
    expect(Object.keys(a)).toEqual(['id', 'client', 'new_client', 'role', 'key']);
    expect(a.role).toBe('client');
    expect(b.client).toBe('Acme Life');
    expect([a.new_client, b.new_client]).toEqual([true, false]);
    expect(a.key).not.toBe(b.key);
    inStore((raw) => {
      expect(raw.prepare("select count(*) as n from clients where name = 'Acme Life'").get()).toEqual({ n: 1 });
    });
  });

  it('a name that differs from a client only in case or spacing is refused (exit 6), not made a second client', async () => {
    expect((await cli('keys', 'create', '--client', 'Acme Life')).code).toBe(0);
    for (const lookalike of ['acme life', 'Acme  Life', 'Acme\u00a0Life', 'ACME LIFE']) {
      const r = await cli('keys', 'create', '--client', lookalike);
      expect(r.code, lookalike).toBe(6);
      expect(r.stderr).toContain(`There is a client 'Acme Life' already, and '${lookalike}' differs from it only in case or spacing.`);
    }
    // One typo away: refused off a terminal (a key for a new client would see none of Acme's data)…
    const typo = await cli('--json', 'keys', 'create', '--client', 'Acme Lfe');
    expect(typo.code).toBe(6);
    expect(JSON.parse(typo.stderr).error).toMatchObject({
      code: 'CONFLICT',
      message: "There is no client 'Acme Lfe', but there is a client 'Acme Life'. Give its exact name for a key of that client; to make a new client 'Acme Lfe' all the same, add --yes. No key was created.",
      details: [{ field: 'client', code: 'CLOSE_CLIENT', message: "'Acme Lfe' is close to the client 'Acme Life'", existing: 'Acme Life' }],
    });
    // …and made with --yes. A numbered series and very short names are not typos.
    expect((await cli('--yes', 'keys', 'create', '--client', 'Acme Lfe')).stderr).toMatch(/for the new client Acme Lfe\./);
    for (const name of ['Fund 1', 'Fund 2', 'Fund 12', 'Ab', 'Ac']) expect((await cli('keys', 'create', '--client', name)).code, name).toBe(0);
    inStore((raw) => {
      expect(raw.prepare("select name from clients where name like 'Acme%' order by name").all()).toEqual([{ name: 'Acme Lfe' }, { name: 'Acme Life' }]);
      expect(raw.prepare('select count(*) as n from api_keys').get()).toEqual({ n: 7 });
    });
  });

  it('a key pasted as the client name is refused (exit 2), shown redacted, and no client is made', async () => {
    const key = (await cli('keys', 'create', '--client', 'Acme Life')).stdout.trim();
    for (const name of [key, ` ${key} `, `Acme ${key}`]) {
      const r = await cli('keys', 'create', '--client', name);
      expect(r.code, name).toBe(2);
      expect(r.stderr).not.toContain(key.slice(4, -4));
      expect(r.stderr).toContain(`error: The client name ${name.trim().replace(key, `pmk_…${key.slice(-4)}`)} holds an API key; give the client's name. No key was created.`);
    }
    inStore((raw) => {
      expect(raw.prepare('select name from clients order by id').all()).toEqual([{ name: 'Local' }, { name: 'Acme Life' }]);
      expect(raw.prepare('select count(*) as n from api_keys').get()).toEqual({ n: 1 });
    });
  });

  it('list shows keys redacted; revoke marks one revoked; revoking again changes nothing', async () => {
    const a = (await cli('--json', 'keys', 'create', '--client', 'Acme Life')).json();
    const b = (await cli('--json', 'keys', 'create', '--client', 'Other Insure')).json();
    const list = await cli('keys', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`pmk_…${a.key.slice(-4)}`);
    expect(list.stdout).not.toContain(a.key);
    expect(list.stdout).not.toContain(b.key);
    const revoke = await cli('keys', 'revoke', a.id);
    expect(revoke.code).toBe(0);
    expect(revoke.stderr).toBe(`Revoked key ${a.id} (pmk_…${a.key.slice(-4)}) of Acme Life; requests with it are refused from now on.\n`);
    const json = (await cli('--json', 'keys', 'list')).json();
    expect(json.map((k: any) => [k.id, k.client, k.key, k.revoked_at !== null])).toEqual([
      [a.id, 'Acme Life', `pmk_…${a.key.slice(-4)}`, true],
      [b.id, 'Other Insure', `pmk_…${b.key.slice(-4)}`, false],
    ]);
    const again = await cli('keys', 'revoke', a.id);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/was already revoked on \d{4}-\d{2}-\d{2}T/);
  });

  it("created_at and revoked_at are stamped like every record: the virtual clock's date, the wall clock's time of day", async () => {
    // runCli's wall clock reads 2026-11-21T09:30:00.000Z; the virtual clock is ten years on.
    expect((await cli('--yes', 'clock', 'set', '2036-11-01')).code).toBe(0);
    const key = (await cli('--json', 'keys', 'create', '--client', 'Zed')).json();
    const policy = (await cli('--json', 'policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '10.00')).json();
    expect(policy.created_at).toBe('2036-11-01T09:30:00.000Z');
    const created = await cli('keys', 'list', '--format', 'csv', '--fields', 'id,client,created_at,revoked_at');
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(`id,client,created_at,revoked_at\n${key.id},Zed,2036-11-01T09:30:00.000Z,\n`);
    expect((await cli('clock', 'set', '2036-11-05')).code).toBe(0);
    expect((await cli('keys', 'revoke', key.id)).code).toBe(0);
    const revoked = await cli('keys', 'list', '--format', 'csv', '--fields', 'id,client,created_at,revoked_at');
    expect(revoked.stdout).toBe(`id,client,created_at,revoked_at\n${key.id},Zed,2036-11-01T09:30:00.000Z,2036-11-05T09:30:00.000Z\n`);
  });

  it('revoke of an unknown key is NOT_FOUND (exit 5); a bad client name is exit 2', async () => {
    expect((await cli('clock', 'set', '2026-11-21')).code).toBe(0); // a store to look in
    const unknown = await cli('keys', 'revoke', '00000000-0000-8000-8000-000000000000');
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toContain("API key '00000000-0000-8000-8000-000000000000' was not found.");
    const blank = await cli('keys', 'create', '--client', '   ');
    expect(blank.code).toBe(2);
    const missing = await cli('keys', 'create');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: Say whose key it is: --client NAME for a client's key, or --operator for an operator key (with --client NAME it acts for that client).");
    expect(missing.stderr).toContain('(code USAGE_ERROR)');
  });

  it('create --operator makes an operator key (of the Local client, or of --client); list shows the role', async () => {
    const client = (await cli('--json', 'keys', 'create', '--client', 'Acme Life')).json();
    const operator = await cli('keys', 'create', '--operator');
    expect(operator.code).toBe(0);
    expect(operator.stderr).toMatch(/^Created operator key [0-9a-f-]{36} \(acts for client Local\)\.\n/);
    const acmeOperator = (await cli('--json', 'keys', 'create', '--operator', '--client', 'Acme Life')).json();
    expect(acmeOperator).toMatchObject({ client: 'Acme Life', role: 'operator' });
    const list = await cli('keys', 'list');
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+client\s+role\s+key\s+created\s+revoked$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(1, 3))).toEqual([
      ['Acme Life', 'client'],
      ['Local', 'operator'],
      ['Acme Life', 'operator'],
    ]);
    const json = (await cli('--json', 'keys', 'list')).json();
    expect(json.map((k: any) => [k.id, k.role])).toEqual([
      [client.id, 'client'],
      [expect.any(String), 'operator'],
      [acmeOperator.id, 'operator'],
    ]);
  });

  it('keys made before roles existed become client keys (migration 0007_key_roles)', async () => {
    const made = (await cli('--json', 'keys', 'create', '--client', 'Acme Life')).json();
    const raw = new Database(db);
    try {
      raw.exec('alter table api_keys drop column role');
      raw.prepare("delete from schema_migrations where name = '0007_key_roles'").run();
    } finally {
      raw.close();
    }
    const json = (await cli('--json', 'keys', 'list')).json();
    expect(json.map((k: any) => [k.id, k.role])).toEqual([[made.id, 'client']]);
  });
});

describe('premia keys create --idempotency-key', () => {
  const create = ['--idempotency-key', 'keys-acme-1', 'keys', 'create', '--client', 'Acme Life'];

  /** Every byte the store keeps on disk (the database and any -wal or -journal beside it). */
  const storeBytes = () =>
    Buffer.concat(
      readdirSync(dir)
        .filter((f) => f.startsWith('premia.db'))
        .map((f) => readFileSync(join(dir, f))),
    );

  it('a rerun makes no second key and never shows the secret again: it describes the key made before (exit 0)', async () => {
    const first = await cli(...create);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^pmk_[0-9A-Za-z]{40}\n$/);
    const secret = first.stdout.trim();
    const [made] = (await cli('--json', 'keys', 'list')).json();
    const note =
      `warning: key ${made.id} (pmk_…${secret.slice(-4)}) for client Acme Life was created on ${made.created_at} by an earlier run with ` +
      "idempotency key 'keys-acme-1'; no new key was created. Its secret was shown only to that run and premia keeps only a hash of it, " +
      `so it cannot be shown again: if it was lost, revoke it ('premia keys revoke ${made.id}') and create another with a new idempotency key.\n`;

    const rerun = await cli(...create);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toBe('');
    expect(rerun.stderr).toBe(note);
    // --json: the key as `keys list` shows it, said to be a replay; the same warning on stderr.
    const json = await cli('--json', ...create);
    expect(json.code).toBe(0);
    expect(json.json()).toEqual({ id: made.id, client: 'Acme Life', new_client: true, role: 'client', key: `pmk_…${secret.slice(-4)}`, created_at: made.created_at, revoked_at: null, replayed: true });
    expect(json.stderr).toBe(note);
    // The same client written with spaces around it is the same request.
    expect((await cli('--idempotency-key', 'keys-acme-1', 'keys', 'create', '--client', ' Acme Life ')).stderr).toBe(note);

    const list = (await cli('--json', 'keys', 'list')).json();
    expect(list.map((k: any) => k.id)).toEqual([made.id]);
    // The record of the request holds the key's description only; nothing of the secret is on disk.
    inStore((raw) => {
      expect(raw.prepare('select key, method, path, status, body from idempotency_keys').all()).toEqual([
        {
          // The store's scope (idempotency.ts STORE_SCOPE): kept apart from the client Local's own keys.
          key: '\u0001store\u0001keys-acme-1',
          method: 'CLI',
          path: 'premia keys create',
          status: 201,
          body: JSON.stringify({ id: made.id, client: 'Acme Life', new_client: true, role: 'client', key: `pmk_…${secret.slice(-4)}`, created_at: made.created_at }),
        },
      ]);
    });
    const bytes = storeBytes();
    expect(bytes.includes(secret)).toBe(false);
    expect(bytes.includes(secret.slice(4, -4))).toBe(false);
  });

  it('a rerun after the key was revoked says so; another request under the key is IDEMPOTENCY_KEY_REUSED (exit 6)', async () => {
    const secret = (await cli(...create)).stdout.trim();
    const [made] = (await cli('--json', 'keys', 'list')).json();
    expect((await cli('keys', 'revoke', made.id)).code).toBe(0);
    const revokedAt = (await cli('--json', 'keys', 'list')).json()[0].revoked_at;
    const rerun = await cli(...create);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toBe(
      `warning: key ${made.id} (pmk_…${secret.slice(-4)}) for client Acme Life was created on ${made.created_at} by an earlier run with ` +
        `idempotency key 'keys-acme-1'; no new key was created. It has been revoked since (on ${revokedAt}). Its secret was shown only to that run ` +
        "and premia keeps only a hash of it, so it cannot be shown again: for a working key, run 'premia keys create' with a new idempotency key.\n",
    );
    for (const other of [
      ['--idempotency-key', 'keys-acme-1', 'keys', 'create', '--client', 'Other Insure'],
      ['--idempotency-key', 'keys-acme-1', 'keys', 'create', '--operator', '--client', 'Acme Life'],
    ]) {
      const r = await cli(...other);
      expect(r.code, other.join(' ')).toBe(6);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        "error: This Idempotency-Key was first used for another request ('premia keys create' with other options); use a new key for a new request.\n  (code IDEMPOTENCY_KEY_REUSED)\n",
      );
    }
    // The key is the store's, as a clock advance's is, and no client's: a write of the client Local
    // (local mode's) under the same key is Local's own request, neither refused nor a replay.
    const policy = await cli('--idempotency-key', 'keys-acme-1', 'policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'LIFE', '--amount', '10.00');
    expect(policy.code).toBe(0);
    expect((await cli('--json', 'keys', 'list')).json()).toHaveLength(1);
  });

  it('a refused create keeps nothing: the corrected rerun under the same key makes the key', async () => {
    expect((await cli('keys', 'create', '--client', 'Acme Life')).code).toBe(0);
    const typo = await cli('--idempotency-key', 'k2', 'keys', 'create', '--client', 'Acme Lfe');
    expect(typo.code).toBe(6);
    expect(typo.stderr).toContain("There is no client 'Acme Lfe', but there is a client 'Acme Life'.");
    const meant = await cli('--yes', '--idempotency-key', 'k2', 'keys', 'create', '--client', 'Acme Lfe');
    expect(meant.code).toBe(0);
    expect(meant.stdout).toMatch(/^pmk_[0-9A-Za-z]{40}\n$/);
    expect(meant.stderr).toMatch(/^Created key [0-9a-f-]{36} for the new client Acme Lfe\.\n/);
    // Asked again without --yes: the client exists now, and the rerun is the same request, answered as made.
    const again = await cli('--idempotency-key', 'k2', 'keys', 'create', '--client', 'Acme Lfe');
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^warning: key [0-9a-f-]{36} \(pmk_….{4}\) for client Acme Lfe was created on .* by an earlier run with idempotency key 'k2'; no new key was created\./);
    expect((await cli('--json', 'keys', 'list')).json()).toHaveLength(2);
  });
});
