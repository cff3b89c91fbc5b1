/**
 * `--as-client NAME` (local mode) takes a client's name as `keys create --client` does: spaces
 * around it do not count. A name the store has no client of, but that is one of its clients in
 * another case or spacing or with a typo, is refused naming that client, never acted for.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let db: string;
let cleanup: () => void;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('premia-as-client-'));
  db = join(dir, 'premia.db');
  expect((await runCli(['--db', db, '--seed', '1', 'keys', 'create', '--client', 'Acme Life'], { cwd: dir })).code).toBe(0);
  const created = await runCli(['--db', db, '--as-client', 'Acme Life', 'policies', 'create', '--customer-id', 'C1', '--external-ref', 'E1', '--policy-number', 'POL-1', '--product-code', 'LIFE', '--amount', '10.00'], { cwd: dir });
  expect(created.stderr).toBe('Created policy POL-1.\n');
  expect(created.code).toBe(0);
});
afterAll(() => cleanup());

const premia = (args: string[]) => runCli(['--db', db, ...args], { cwd: dir });

describe('--as-client', () => {
  it('acts for the client whose name is given with spaces around it, as keys create takes it', async () => {
    const r = await premia(['--as-client', ' Acme Life ', 'policies', 'list', '--format', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[1]).toMatch(/^[0-9a-f-]{36},POL-1,C1,E1,LIFE,10.00,/);
  });

  it.each([
    ['another case', 'acme life'],
    ['another spacing', 'Acme  Life'],
    ['a typo', 'Acme Lfe'],
  ])('refuses a name that is one of the clients in %s, naming it (exit 5)', async (_, name) => {
    const r = await premia(['--json', '--as-client', name, 'policies', 'list']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: 'NOT_FOUND', message: `There is no client '${name}' in ${db}, but there is a client 'Acme Life': give its name exactly as written.`, request_id: null },
    });
  });

  it('refuses a name like no client of the store as before (exit 5)', async () => {
    const r = await premia(['--as-client', 'Zeta Assurance', 'policies', 'list']);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`error: There is no client 'Zeta Assurance' in ${db}; clients are created with 'premia keys create --client NAME'.\n  (code NOT_FOUND)\n`);
  });
});
