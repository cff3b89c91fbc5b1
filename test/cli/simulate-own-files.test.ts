/**
 * Before it runs, `premia simulate` reads each file of an output's name in <out>/<period>/ and
 * its manifest (.premia-simulate.json) to tell its own files from others. Read as they were, a
 * link to /dev/zero named collections-2026-11.csv was read until memory ran out (10 GB in a
 * minute), and a FIFO of the manifest's name held simulate, silent, waiting for a writer. Neither
 * is simulate's own: refused as any other file it did not write (CONFLICT, exit 6, nothing run),
 * without reading them.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-sim-own-')));
afterEach(() => cleanup());

const refusal = (name: string) =>
  `error: premia simulate writes 2026-11's files into out/2026-11, which holds out/2026-11/${name}: premia simulate did not write it there ` +
  '(or it changed since), so it is left as it is and nothing was run. Move it away, or give another --out.\n  (code CONFLICT)\n';

describe('a file of an output name that is no regular file is refused unread', () => {
  it('a link to /dev/zero named as the report', async () => {
    mkdirSync(join(dir, 'out', '2026-11'), { recursive: true });
    symlinkSync('/dev/zero', join(dir, 'out', '2026-11', 'collections-2026-11.csv'));
    const r = await runCli(['simulate', '--bank', 'none', '--out', 'out'], { cwd: dir });
    expect([r.code, r.stdout, r.stderr]).toEqual([6, '', refusal('collections-2026-11.csv')]);
    expect(readdirSync(join(dir, 'out', '2026-11'))).toEqual(['collections-2026-11.csv']);
  });

  it('a FIFO where the manifest is', async () => {
    mkdirSync(join(dir, 'out', '2026-11'), { recursive: true });
    execFileSync('mkfifo', [join(dir, 'out', '2026-11', '.premia-simulate.json')]);
    writeFileSync(join(dir, 'out', '2026-11', 'attempts-2026-11.csv'), 'kept\n');
    const r = await runCli(['simulate', '--bank', 'none', '--out', 'out'], { cwd: dir });
    expect([r.code, r.stdout, r.stderr]).toEqual([6, '', refusal('attempts-2026-11.csv')]);
    expect(readdirSync(join(dir, 'out', '2026-11')).sort()).toEqual(['.premia-simulate.json', 'attempts-2026-11.csv']);
    expect(existsSync(join(dir, 'premia.db'))).toBe(false);
  });
});

describe('an own file made write-protected', () => {
  it('is refused before the month runs (exit 6), not found halfway when its turn comes', async () => {
    const folder = join(dir, 'out', '2026-11');
    mkdirSync(folder, { recursive: true });
    const kept = 'period_month,customer_id\n';
    writeFileSync(join(folder, 'collections-2026-11.csv'), kept);
    const hash = createHash('sha256').update(kept).digest('hex');
    writeFileSync(join(folder, '.premia-simulate.json'), `${JSON.stringify({ 'collections-2026-11.csv': hash })}\n`);
    chmodSync(join(folder, 'collections-2026-11.csv'), 0o444);
    const r = await runCli(['simulate', '--bank', 'none', '--out', 'out'], { cwd: dir });
    expect([r.code, r.stdout]).toEqual([6, '']);
    expect(r.stderr).toBe(
      "error: premia simulate writes 2026-11's files into out/2026-11, where out/2026-11/collections-2026-11.csv is write-protected: simulate does not replace it, " +
        'so nothing was run. Make it writable (chmod u+w), move it away, or give another --out.\n  (code CONFLICT)\n',
    );
    expect(readFileSync(join(folder, 'collections-2026-11.csv'), 'utf8')).toBe(kept);
    expect(readdirSync(folder).sort()).toEqual(['.premia-simulate.json', 'collections-2026-11.csv']);
  });
});
