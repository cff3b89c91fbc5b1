/**
 * Processes of one host name in PID namespaces of their own (containers with host networking,
 * premia process 1 in each) on one store: a claim held by a live process of one namespace is not
 * judged gone from another by its process id (which there names no process, or another one,
 * even the judge itself), and is not taken over: the clock advance's lease (SQLite) and an
 * Idempotency-Key's request in progress; nor is a live server's upload file removed by a server
 * starting on the store with the same TMPDIR. Each process runs the built dist/ under `unshare` (root
 * on Linux; skipped elsewhere). Nothing depends on timing: the holder says it holds, then the
 * other process tries once and says what it found.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, REPO } from '../helpers/cli.js';
import { localBackend } from '../helpers/local.js';

/** Whether this machine lets a test run a process as process 1 of a namespace of its own. */
const ownPidNamespace =
  spawnSync('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', process.execPath, '-e', 'process.exit(process.pid === 1 ? 0 : 1)']).status === 0;

const dist = (path: string) => JSON.stringify(pathToFileURL(join(REPO, 'dist', path)).href);

/**
 * A script that takes the store's advance lease, or claims an Idempotency-Key, and prints what
 * happened as one JSON line: {"held": …} (then lives on when `hold`), or what it waits for.
 */
function script(what: 'lease' | 'key', path: string, hold: boolean): string {
  const take =
    what === 'lease'
      ? `const { acquireLease } = await import(${dist('store/advance-lease.js')});
         const lease = await acquireLease(store, (today) => today, (holder) => done({ waits: holder }));
         done({ held: { pid: lease.pid, host: lease.host } });`
      : `const { claimKey } = await import(${dist('backend/local/idempotency.js')});
         try {
           const claim = await claimKey(store, { clientId: 1, key: 'k', hash: 'h', method: 'POST', path: '/v1/policies', now: Date.now() });
           done({ held: claim });
         } catch (e) {
           done({ waits: { code: e.code, message: e.message } });
         }`;
  return `
    const { openStore } = await import(${dist('store/store.js')});
    const store = await openStore({ path: ${JSON.stringify(path)} });
    const done = (out) => {
      process.stdout.write(JSON.stringify({ pid: process.pid, ...out }) + '\\n');
      if (${hold} && 'held' in out) setInterval(() => {}, 1 << 30); // lives on, holding it
      else process.exit(0);
    };
    ${take}
  `;
}

const children: ChildProcess[] = [];
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (children.length > 0) children.pop()!.kill('SIGKILL'); // unshare --kill-child: its node too
  while (cleanups.length > 0) cleanups.pop()!();
});

/** Run the script as process 1 of a PID namespace of its own (or in this test's), and resolve with its first line. */
function run(code: string, own: boolean): Promise<Record<string, unknown>> {
  const argv = [process.execPath, '--input-type=module', '-e', code];
  const child = own
    ? spawn('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', ...argv], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as Record<string, unknown>);
    });
    child.on('error', reject);
    child.on('close', () => reject(new Error(`the script ended without a word: ${err}`)));
  });
}

async function store(): Promise<string> {
  const { dir, cleanup } = tempDir('premia-pidns-');
  const path = join(dir, 'premia.db');
  const b = await localBackend({ path, seed: 1 });
  await b.setClock('2026-10-31');
  await b.close();
  cleanups.push(cleanup);
  return path;
}

describe.skipIf(!ownPidNamespace)(`processes of one host name in PID namespaces of their own${ownPidNamespace ? '' : ' (skipped: unshare unavailable)'}`, () => {
  for (const what of ['lease', 'key'] as const) {
    const claim = what === 'lease' ? "the clock advance's lease" : "an Idempotency-Key's request in progress";

    it(`${claim}, held by process 1 of one namespace, is not taken over by process 1 of another`, async () => {
      const path = await store();
      const holder = await run(script(what, path, true), true);
      expect(holder).toMatchObject({ pid: 1, held: what === 'lease' ? { pid: 1 } : { kind: 'claimed' } });
      // Before, our own pid under another process's token: taken for a pid reused, and taken over.
      const other = await run(script(what, path, false), true);
      expect(other.pid).toBe(1);
      expect(other.held).toBeUndefined();
      if (what === 'lease') expect(other.waits).toMatchObject({ pid: 1, otherPidNamespace: true });
      else expect(other.waits).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
    });

    it(`${claim}, held by a live process of this test's namespace, is not taken over from another`, async () => {
      const path = await store();
      const holder = await run(script(what, path, true), false);
      expect(holder.pid).not.toBe(1);
      // Before, its pid names no process in the other namespace: taken for gone, and taken over.
      const other = await run(script(what, path, false), true);
      expect(other.pid).toBe(1);
      expect(other.held).toBeUndefined();
      if (what === 'lease') expect(other.waits).toMatchObject({ pid: holder.pid, otherPidNamespace: true });
      else {
        expect(other.waits).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
        const { message } = other.waits as { message: string };
        expect(message).toContain(`in process ${String(holder.pid)} on ${hostname()} in another PID namespace (a container sharing the host name) at `);
      }
    });
  }
});

/**
 * A script that prepares the store's upload directory as a starting server does (removing what
 * it takes for abandoned), then, when `hold`, spools an upload that never ends and lives on; it
 * prints its pid, the directory's files and what it logged.
 */
function uploadScript(tmp: string, path: string, hold: boolean): string {
  return `
    const { readdirSync } = await import('node:fs');
    const { Readable } = await import('node:stream');
    const { prepareUploadDirectory, spool } = await import(${dist('server/upload.js')});
    const logs = [];
    const dir = await prepareUploadDirectory(${JSON.stringify(tmp)}, ${JSON.stringify(path)}, (line) => logs.push(line));
    if (${hold}) {
      const body = new Readable({ read() {} });
      body.push('customer_id');
      void spool(body, 'policies.csv', 1 << 20, dir);
      while (readdirSync(dir).length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    process.stdout.write(JSON.stringify({ pid: process.pid, files: readdirSync(dir), logs }) + '\\n');
    if (${hold}) setInterval(() => {}, 1 << 30); // lives on, its upload being received
    else process.exit(0);
  `;
}

describe.skipIf(!ownPidNamespace)(`upload files of servers in other PID namespaces, sharing TMPDIR${ownPidNamespace ? '' : ' (skipped: unshare unavailable)'}`, () => {
  for (const own of [true, false]) {
    it(`a live server's upload (${own ? 'process 1 of another namespace' : "a process of this test's namespace"}) is kept by a server starting as process 1 of its own`, async () => {
      const { dir, cleanup } = tempDir('premia-pidns-uploads-');
      cleanups.push(cleanup);
      const path = join(dir, 'premia.db');
      const holder = await run(uploadScript(dir, path, true), own);
      expect(holder.pid === 1).toBe(own);
      expect(holder.files).toEqual([expect.stringMatching(new RegExp(`^upload-${String(holder.pid)}-`))]);
      // Before, its pid was judged here: this process's own under another token, or no process.
      const other = await run(uploadScript(dir, path, false), true);
      expect(other).toEqual({ pid: 1, files: holder.files, logs: [] });
    });
  }
});
