/**
 * bin/premia.js takes the build's bundle (scripts/bundle.mjs) only when it is at least as new as
 * the compiled entry: after a `tsc` alone the bundle is stale and dist/ runs. Checked on a copy
 * of the launcher beside two stand-in entries that say which of them ran.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';

const LAUNCHER = join(import.meta.dirname, '..', '..', 'bin', 'premia.js');

let dir: string;
let cleanup: () => void;
beforeAll(() => {
  ({ dir, cleanup } = tempDir('premia-launcher-'));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(LAUNCHER, join(dir, 'bin', 'premia.js'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  for (const which of ['app', 'bundle']) {
    mkdirSync(join(dir, 'dist', which), { recursive: true });
    writeFileSync(join(dir, 'dist', which, 'premia.js'), `export function main() { process.stdout.write('${which} ' + process.argv.slice(2).join(' ')); }\n`);
  }
});
afterAll(() => cleanup());

function launch(compiledAt: number, bundledAt: number | null): string {
  utimesSync(join(dir, 'dist', 'app', 'premia.js'), compiledAt, compiledAt);
  if (bundledAt !== null) utimesSync(join(dir, 'dist', 'bundle', 'premia.js'), bundledAt, bundledAt);
  const r = spawnSync(process.execPath, [join(dir, 'bin', 'premia.js'), 'clock', 'show'], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

describe('the launcher', () => {
  it('runs the bundle when it is newer than the compiled entry, with the arguments', () => {
    expect(launch(1_000_000, 1_000_060)).toBe('bundle clock show');
  });

  it('runs the bundle made in the same second as the compiled entry', () => {
    expect(launch(1_000_000, 1_000_000)).toBe('bundle clock show');
  });

  it('runs dist/ when the bundle is older (tsc ran after the bundle was made)', () => {
    expect(launch(1_000_060, 1_000_000)).toBe('app clock show');
  });

  it('runs dist/ when there is no bundle (esbuild was not installed)', () => {
    rmSync(join(dir, 'dist', 'bundle'), { recursive: true });
    expect(launch(1_000_000, null)).toBe('app clock show');
  });
});
