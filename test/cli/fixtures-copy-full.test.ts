/**
 * `fixtures copy DIR` failing halfway (the disk fills on its second file): the files it had made
 * are removed, so "nothing was copied" holds and the rerun, once there is room, is not refused for
 * them. It left policies.csv behind, and the rerun said "already holds policies.csv" (exit 6).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const disk = vi.hoisted(() => ({ fullAfter: Infinity }));
vi.mock('../../src/cli/output/download.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/cli/output/download.js')>();
  let calls = 0;
  return {
    ...real,
    writeDownload: (async (...args: Parameters<typeof real.writeDownload>) => {
      if (++calls > disk.fullAfter) throw real.streamError(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' }), String(args[2]));
      return real.writeDownload(...args);
    }) as typeof real.writeDownload,
  };
});

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-fixtures-full-')));
afterEach(() => {
  disk.fullAfter = Infinity;
  cleanup();
});

describe('fixtures copy on a disk that fills', () => {
  it('removes what it made, so the rerun copies all three', async () => {
    disk.fullAfter = 1;
    const full = await runCli(['fixtures', 'copy', 'month'], { cwd: dir });
    expect(full.code).toBe(1);
    expect(readdirSync(join(dir, 'month'))).toEqual([]);
    disk.fullAfter = Infinity;
    const again = await runCli(['fixtures', 'copy', 'month'], { cwd: dir });
    expect([again.code, again.stdout]).toEqual([0, 'month/policies.csv\nmonth/bank-transactions.csv\nmonth/policies-invalid.csv\n']);
    expect(existsSync(join(dir, 'month', 'policies-invalid.csv'))).toBe(true);
  });
});
