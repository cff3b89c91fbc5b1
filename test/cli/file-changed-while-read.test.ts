/**
 * An input file that changes between its opening and the end of its read (an export still being
 * written, a copy not yet done): refused whole, INVALID_FILE (exit 2), nothing stored, in local
 * and remote mode. Its last row was imported as far as the writer had got (`10` of `100.00`).
 * The change is made where the file's stream is created, after premia has looked at the file.
 */
import { appendFileSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { remoteEnv, runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';

/** What happens to a file, by name, as its stream is created. */
const changes = new Map<string, (path: string) => void>();
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const createReadStream: typeof actual.createReadStream = (path, options) => {
    const change = changes.get(basename(String(path)));
    changes.delete(basename(String(path)));
    change?.(String(path));
    return actual.createReadStream(path, options);
  };
  return { ...actual, default: { ...actual, createReadStream }, createReadStream };
});

const POLICIES = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,R1,P1,FUNERAL,100.00\nC2,R2,P2,FUNERAL,100.00\n';
const BANK = 'customer_id,date,amount,description\nC1,2026-12-01,100.00,SALARY\nC1,2026-12-02,-20.00,COFFEE\n';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-changed-')));
afterEach(() => {
  changes.clear();
  cleanup();
});

function refusal(name: string, how: string) {
  const reason = `the file changed while it was read (${how}): it may still be being written; import it once it is complete`;
  return { error: { code: 'INVALID_FILE', message: `${name}: ${reason}. Nothing was imported.`, request_id: null, details: [{ field: 'file', code: 'INVALID_FILE', message: reason }] } };
}

describe('local mode', () => {
  const premia = (args: string[]) => runCli(['--json', '--db', join(dir, 'p.db'), ...args], { cwd: dir });

  it('policies import: a row appended, cut in its amount, stores nothing', async () => {
    expect((await premia(['clock', 'set', '2026-11-15'])).code).toBe(0);
    writeFileSync(join(dir, 'book.csv'), POLICIES);
    changes.set('book.csv', (path) => appendFileSync(path, 'C3,R3,P3,FUNERAL,10'));
    const r = await premia(['policies', 'import', 'book.csv']);
    expect([r.code, r.stdout, JSON.parse(r.stderr)]).toEqual([2, '', refusal('book.csv', `it held ${POLICIES.length} bytes when opened, and more when read`)]);
    expect((await premia(['policies', 'list'])).json()).toEqual({ data: [], next_after: null });
    // Read whole, as it now is, it imports.
    expect((await premia(['policies', 'import', 'book.csv'])).stdout).toBe('{"imported":3,"failed":0,"errors":[]}\n');
  });

  it('bank import: a file cut short while read stores nothing', async () => {
    expect((await premia(['clock', 'set', '2026-11-15'])).code).toBe(0);
    writeFileSync(join(dir, 'bank.csv'), BANK);
    changes.set('bank.csv', (path) => truncateSync(path, 40));
    const r = await premia(['bank', 'import', 'bank.csv']);
    expect([r.code, r.stdout, JSON.parse(r.stderr)]).toEqual([2, '', refusal('bank.csv', `it held ${BANK.length} bytes when opened and 40 when read to its end`)]);
    expect((await premia(['bank', 'show', 'C1'])).code).toBe(5); // not known: no row of it was stored
  });

  it('bank import: rewritten in place at the same size stores nothing', async () => {
    expect((await premia(['clock', 'set', '2026-11-15'])).code).toBe(0);
    writeFileSync(join(dir, 'bank.csv'), BANK);
    utimesSync(join(dir, 'bank.csv'), new Date('2026-11-01T00:00:00Z'), new Date('2026-11-01T00:00:00Z'));
    changes.set('bank.csv', (path) => {
      writeFileSync(path, BANK.replace('100.00', '900.00'));
      utimesSync(path, new Date('2026-11-02T00:00:00Z'), new Date('2026-11-02T00:00:00Z'));
    });
    const r = await premia(['bank', 'import', 'bank.csv']);
    expect([r.code, r.stdout, JSON.parse(r.stderr)]).toEqual([2, '', refusal('bank.csv', 'it was written to meanwhile')]);
    expect((await premia(['bank', 'show', 'C1'])).code).toBe(5); // not known: no row of it was stored
  });
});

describe('remote mode', () => {
  let server: LiveServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('policies import: the upload is never completed, the service stores nothing, and the message is the local one', async () => {
    server = await startLiveServer();
    const env = remoteEnv(server.url, server.keys.acme);
    writeFileSync(join(dir, 'book.csv'), POLICIES);
    changes.set('book.csv', (path) => appendFileSync(path, 'C3,R3,P3,FUNERAL,10'));
    const r = await runPremia(['--json', 'policies', 'import', 'book.csv'], { cwd: dir, env });
    expect([r.code, r.stdout, JSON.parse(r.stderr)]).toEqual([2, '', refusal('book.csv', `it held ${POLICIES.length} bytes when opened, and more when read`)]);
    const list = await runPremia(['--json', 'policies', 'list'], { cwd: dir, env });
    expect([list.code, list.json()]).toEqual([0, { data: [], next_after: null }]);
  });
});
