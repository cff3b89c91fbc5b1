/**
 * Start-up in remote mode stays light: the new commands' help loads no database or HTTP library,
 * and a remote command loads undici (from the build's bundle of it) but never the database
 * (better-sqlite3, kysely) or the server (fastify). Uses the module-load probe of test/e2e/support.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../helpers/cli.js';
import { startLiveServer, type LiveServer } from '../helpers/remote.js';
import { premiaBin } from '../e2e/spawn.js';

const PROBE = join(REPO, 'test', 'e2e', 'support', 'record-loads.mjs');
const HEAVY = ['better-sqlite3', 'kysely', 'undici', 'fastify'];

let dir: string;
let cleanup: () => void;
let server: LiveServer;
beforeAll(async () => {
  ({ dir, cleanup } = tempDir('premia-remote-startup-'));
  server = await startLiveServer();
});
afterAll(async () => {
  await server.close();
  cleanup();
});

async function loadedPackages(args: string[], name: string, env: Record<string, string> = {}): Promise<{ code: number | null; packages: Set<string>; lines: string[] }> {
  const log = join(dir, `${name}.log`);
  const r = await premiaBin(args, { cwd: dir, env: { PREMIA_LOAD_LOG: log, XDG_CONFIG_HOME: dir, ...env }, nodeArgs: ['--import', PROBE] });
  const packages = new Set<string>();
  const lines = readFileSync(log, 'utf8').split('\n');
  for (const line of lines) {
    for (const m of line.matchAll(/node_modules\/((?:@[^/]+\/)?[^/\s]+)/g)) packages.add(m[1]!);
    const bare = /^require ((?:@[^/\s]+\/)?[^./\s][^/\s]*)/.exec(line);
    if (bare && !bare[1]!.startsWith('node:')) packages.add(bare[1]!);
  }
  return { code: r.code, packages, lines };
}

describe('start-up of remote mode', () => {
  it.each([['login --help with a base URL', ['--base-url', 'http://127.0.0.1:9/v1', 'login', '--help']]])('%s loads none of better-sqlite3, kysely, undici, fastify', async (name, args) => {
    const { code, packages, lines } = await loadedPackages(args, name.replace(/\W+/g, '-'));
    expect(code).toBe(0);
    // The probe saw the CLI's bundle load (commander, which printed the help, is inside it).
    expect(lines.some((l) => l.includes('/dist/bundle/premia.cjs'))).toBe(true);
    expect(HEAVY.filter((p) => packages.has(p))).toEqual([]);
  });

  it("a remote command loads undici from its bundle beside the CLI's, and neither the database nor the server", async () => {
    const { code, packages, lines } = await loadedPackages(['clock'], 'remote-clock', { PREMIA_BASE_URL: server.url, PREMIA_API_KEY: server.keys.acme });
    expect(code).toBe(0);
    // undici's own requires (node:net, node:tls, …) come from the build's bundle of it
    // (scripts/bundle.mjs), not from its ~110 files under node_modules.
    expect(lines.some((l) => l.startsWith('require node:net from ') && l.endsWith('/dist/bundle/undici.cjs'))).toBe(true);
    expect(packages.has('undici')).toBe(false);
    expect(['better-sqlite3', 'kysely', 'fastify'].filter((p) => packages.has(p))).toEqual([]);
  });
});
