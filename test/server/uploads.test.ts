/**
 * Where uploads are spooled (issue 10): a directory premia owns (0700, one per store), swept of
 * the files of dead servers when a server starts; a live server's upload is left alone.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLocalBackend } from '../../src/backend/local/index.js';
import { createServer } from '../../src/server/app.js';
import { HERE, HERE_TAG, placeTag, PROCESS_TOKEN } from '../../src/lib/process.js';
import { prepareUploadDirectory, uploadDirectory } from '../../src/server/upload.js';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { call, multipart, NOW } from './helpers.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A process id that is not running (a child that has exited). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('the upload directory', () => {
  it('is one 0700 directory per store; a server start removes the files of dead servers and keeps live ones', async () => {
    const { dir, cleanup } = tempDir('premia-uploads-');
    cleanups.push(cleanup);
    const dbPath = join(dir, 'premia.db');
    const uploads = uploadDirectory(dir, dbPath);
    expect(uploads.startsWith(join(dir, 'premia-uploads-'))).toBe(true);
    expect(uploadDirectory(dir, join(dir, '.', 'premia.db'))).toBe(uploads);
    expect(uploadDirectory(dir, join(dir, 'other.db'))).not.toBe(uploads);
    mkdirSync(uploads, { recursive: true });

    const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    cleanups.push(() => void sleeper.kill('SIGKILL'));
    const token = '0123456789abcdef';
    const id = '6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5';
    const dead = `upload-${await deadPid()}-${HERE_TAG}-${token}-${id}`;
    const live = `upload-${sleeper.pid}-${HERE_TAG}-${token}-${id}`;
    // Our own pid with another token: a server that ran before us under the same pid.
    const reused = `upload-${process.pid}-${HERE_TAG}-${token}-${id}`;
    // A live pid, but untouched for more than a day: no upload lasts that long.
    const ancient = `upload-${sleeper.pid}-${HERE_TAG}-fedcba9876543210-${id}`;
    const unrelated = 'notes.txt';
    for (const name of [dead, live, reused, ancient, unrelated]) writeFileSync(join(uploads, name), 'x'.repeat(1000));
    const dayAgo = Date.now() / 1000 - 25 * 3600;
    utimesSync(join(uploads, ancient), dayAgo, dayAgo);

    const backend = await openLocalBackend({ path: dbPath, now: NOW, seed: 1 });
    cleanups.push(() => backend.close());
    const logs: string[] = [];
    const app = await createServer({ backend, tmpDir: dir, now: NOW, log: (l) => logs.push(l) });
    cleanups.push(() => app.close());
    expect(readdirSync(uploads).sort()).toEqual([live, unrelated].sort());
    expect(statSync(uploads).mode & 0o777).toBe(0o700);
    expect(logs.some((l) => l.endsWith(`removed 3 upload files left by servers that stopped (in ${uploads})`))).toBe(true);

    // An upload is spooled there, 0600, and removed once imported.
    const key = (await backend.admin.keys.create('Acme Life', 'client')).key;
    const seen: string[] = [];
    const watcher = watch(uploads, (_event, name) => {
      if (name) seen.push(String(name));
    });
    cleanups.push(() => watcher.close());
    const form = multipart('file', 'policies.csv', readFileSync(join(FIXTURES, 'policies.csv')));
    const res = await call(app, 'POST', '/v1/policies/import', { key, ...form });
    expect(res.status).toBe(200);
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen[0]).toMatch(new RegExp(`^upload-${process.pid}-${HERE_TAG}-${PROCESS_TOKEN}-[0-9a-f-]{36}$`));
    expect(readdirSync(uploads).sort()).toEqual([live, unrelated].sort());
    expect(readdirSync(dir).filter((f) => f.startsWith('premia-upload-'))).toEqual([]);
  });

  // Containers sharing a TMPDIR volume (and the host's name) each have their own PID namespace,
  // premia often pid 1 in each: a pid of another's names no process here, or another one, even
  // this one. Their files, and those named by earlier versions (which do not say where they were
  // made), are removed only once nobody has written them for a day.
  it('judges by pid only the files made in this host and PID namespace; others, and old names, only by age', async () => {
    const { dir, cleanup } = tempDir('premia-uploads-');
    cleanups.push(cleanup);
    const uploads = uploadDirectory(dir, join(dir, 'premia.db'));
    mkdirSync(uploads, { mode: 0o700 });
    const dead = await deadPid();
    const there = placeTag({ host: HERE.host, pidNamespace: 'pid:[4026532999]' });
    expect(there).toMatch(/^[0-9a-f]{8}$/);
    expect(there).not.toBe(HERE_TAG);
    const elsewhere = placeTag({ host: `${HERE.host}-other`, pidNamespace: HERE.pidNamespace });
    expect(elsewhere).not.toBe(HERE_TAG);
    const token = '0123456789abcdef';
    const id = '6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5';
    const fresh = {
      thereDead: `upload-${dead}-${there}-${token}-${id}`,
      therePid1: `upload-1-${there}-${token}-${id}`,
      thereOurPid: `upload-${process.pid}-${there}-${token}-${id}`,
      elsewhereOurPid: `upload-${process.pid}-${elsewhere}-${token}-${id}`,
      oldDead: `upload-${dead}-${token}-${id}`,
      oldOurPid: `upload-${process.pid}-${token}-${id}`,
      hereDead: `upload-${dead}-${HERE_TAG}-${token}-${id}`,
      hereOurPid: `upload-${process.pid}-${HERE_TAG}-${token}-${id}`,
      hereLive: `upload-${process.ppid}-${HERE_TAG}-${token}-${id}`,
    };
    const old = {
      thereDead: `upload-${dead}-${there}-fedcba9876543210-${id}`,
      therePid1: `upload-1-${there}-fedcba9876543210-${id}`,
      oldDead: `upload-${dead}-fedcba9876543210-${id}`,
      // This process's own: never removed, however old.
      mine: `upload-${process.pid}-${HERE_TAG}-${PROCESS_TOKEN}-${id}`,
    };
    for (const name of [...Object.values(fresh), ...Object.values(old)]) writeFileSync(join(uploads, name), 'x');
    const dayAgo = Date.now() / 1000 - 25 * 3600;
    for (const name of Object.values(old)) utimesSync(join(uploads, name), dayAgo, dayAgo);

    const logs: string[] = [];
    expect(await prepareUploadDirectory(dir, join(dir, 'premia.db'), (l) => logs.push(l))).toBe(uploads);
    expect(readdirSync(uploads).sort()).toEqual(
      [fresh.thereDead, fresh.therePid1, fresh.thereOurPid, fresh.elsewhereOurPid, fresh.oldDead, fresh.oldOurPid, fresh.hereLive, old.mine].sort(),
    );
    expect(logs).toEqual([expect.stringMatching(/ removed 5 upload files left by servers that stopped /)]);
  });

  // Each was "premia failed unexpectedly: ENOENT: no such file or directory, mkdir …" (exit 1).
  it.each([
    ['missing', (dir: string) => join(dir, 'missing'), 'there is no such directory', 'DIRECTORY_NOT_FOUND'],
    ['a file', (dir: string) => (writeFileSync(join(dir, 'file'), 'x'), join(dir, 'file')), 'it is not a directory', 'DIRECTORY_NOT_FOUND'],
    ['of a name too long', (dir: string) => join(dir, 't'.repeat(300)), 'the path is too long', 'INVALID_VALUE'],
  ])('a temporary directory %s stops the server at start, naming TMPDIR', async (_name, make, why, detail) => {
    const { dir, cleanup } = tempDir('premia-uploads-');
    cleanups.push(cleanup);
    const backend = await openLocalBackend({ path: join(dir, 'premia.db'), now: NOW, seed: 1 });
    cleanups.push(() => backend.close());
    const tmpDir = make(dir);
    await expect(createServer({ backend, tmpDir, now: NOW })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: `Cannot keep uploads in ${tmpDir} (TMPDIR): ${why}. Nothing was served; set TMPDIR to a directory premia can write.`,
      details: [{ field: 'TMPDIR', code: detail, message: `${tmpDir}: ${why}` }],
    });
  });

  it('refuses a directory of that name that premia cannot trust (another type of file in its place)', async () => {
    const { dir, cleanup } = tempDir('premia-uploads-');
    cleanups.push(cleanup);
    const dbPath = join(dir, 'premia.db');
    writeFileSync(uploadDirectory(dir, dbPath), 'not a directory');
    const backend = await openLocalBackend({ path: dbPath, now: NOW, seed: 1 });
    cleanups.push(() => backend.close());
    await expect(createServer({ backend, tmpDir: dir, now: NOW })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining(`${uploadDirectory(dir, dbPath)} is not a directory premia made`),
    });
  });
});
