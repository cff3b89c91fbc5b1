/**
 * Two cron jobs started at the same moment on a store that does not exist yet: both see no file,
 * one makes the store and fills it. The other, failing afterwards (here: every row a duplicate of
 * the first's), must not remove the store as "a new store it made and nothing was written to".
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-store-race-')));
afterEach(() => cleanup());

describe('a new store another process wrote to meanwhile', () => {
  it('is kept when the command that found no store fails after the other committed', async () => {
    const db = join(dir, 'acme.db');
    const env = { PREMIA_DB: db };
    const policies = join(FIXTURES, 'policies.csv');
    let other: Awaited<ReturnType<typeof runCli>> | undefined;
    const first = await runCli(['policies', 'import', policies, '--json'], {
      cwd: dir,
      env,
      // Once this command has opened the store it found missing, the other cron job imports the
      // same book and finishes before this one imports.
      prepare: (ctx) => {
        const open = ctx.backend.bind(ctx);
        ctx.backend = async (globals, options) => {
          const b = await open(globals, options);
          other ??= await runCli(['policies', 'import', policies, '--json'], { cwd: dir, env });
          return b;
        };
      },
    });
    expect(other!.code).toBe(0);
    expect(other!.json()).toMatchObject({ imported: 520, failed: 0 });
    expect(first.code).toBe(3);
    expect(first.json()).toMatchObject({ imported: 0, failed: 520 });
    expect(existsSync(db)).toBe(true);
    const list = await runCli(['policies', 'list', '--limit', '1000', '--json'], { cwd: dir, env });
    expect(list.code).toBe(0);
    expect(list.json().data).toHaveLength(520);
  });
});
