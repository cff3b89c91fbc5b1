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
import { uploadDirectory } from '../../src/server/upload.js';
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
    const dead = `upload-${await deadPid()}-${token}-${id}`;
    const live = `upload-${sleeper.pid}-${token}-${id}`;
    // Our own pid with another token: a server that ran before us under the same pid (a container's pid 1).
    const reused = `upload-${process.pid}-${token}-${id}`;
    // A live pid, but untouched for more than a day: no upload lasts that long.
    const ancient = `upload-${sleeper.pid}-fedcba9876543210-${id}`;
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
    expect(seen[0]).toMatch(new RegExp(`^upload-${process.pid}-[0-9a-f]{16}-[0-9a-f-]{36}$`));
    expect(readdirSync(uploads).sort()).toEqual([live, unrelated].sort());
    expect(readdirSync(dir).filter((f) => f.startsWith('premia-upload-'))).toEqual([]);
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
