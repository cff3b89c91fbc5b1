/**
 * bin/premia.js takes the build's bundles (scripts/bundle.mjs) only when they are at least as new
 * as the compiled entry: after a `tsc` alone they are stale and dist/ runs. The CommonJS bundle
 * comes first, with its code cache (bin/load-bundle.js) only when the cache is of that very build.
 * Checked on a copy of the launcher beside stand-in entries that say which of them ran.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
const app = () => join(dir, 'dist', 'app', 'premia.js');
const esm = () => join(dir, 'dist', 'bundle', 'premia.js');
const cjs = () => join(dir, 'dist', 'bundle', 'premia.cjs');

/**
 * A stand-in CommonJS bundle: its build id on the first line, then a main that prints `word` (held
 * in its top-level code, which a code cache always carries compiled).
 */
const commonBundle = (id: string, word: string) =>
  `// premia build ${id}\n'use strict';\nconst word = '${word}';\nexports.main = () => process.stdout.write(word + ' ' + process.argv.slice(2).join(' '));\n`;

beforeAll(() => {
  ({ dir, cleanup } = tempDir('premia-launcher-'));
  mkdirSync(join(dir, 'bin'));
  for (const f of ['premia.js', 'load-bundle.js']) copyFileSync(join(REPO, 'bin', f), join(dir, 'bin', f));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  for (const which of ['app', 'bundle']) {
    mkdirSync(join(dir, 'dist', which), { recursive: true });
    writeFileSync(join(dir, 'dist', which, 'premia.js'), `export function main() { process.stdout.write('${which} ' + process.argv.slice(2).join(' ')); }\n`);
  }
});
afterAll(() => cleanup());

function run(file = join(dir, 'bin', 'premia.js')): string {
  const r = spawnSync(process.execPath, [file, 'clock', 'show'], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

function launch(compiledAt: number, bundledAt: number | null, commonAt: number | null = null): string {
  utimesSync(app(), compiledAt, compiledAt);
  if (bundledAt !== null) utimesSync(esm(), bundledAt, bundledAt);
  if (commonAt !== null) utimesSync(cjs(), commonAt, commonAt);
  return run();
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

  describe('with the CommonJS bundle', () => {
    beforeAll(() => writeFileSync(cjs(), commonBundle('aaaa', 'common')));
    afterAll(() => rmSync(cjs(), { force: true }));

    it('runs it before the ES module bundle when it is as new as the compiled entry', () => {
      expect(launch(1_000_000, 1_000_000, 1_000_000)).toBe('common clock show');
    });

    it('passes it over when it is older than the compiled entry', () => {
      expect(launch(1_000_060, 1_000_060, 1_000_000)).toBe('bundle clock show');
      expect(launch(1_000_060, 1_000_000, 1_000_000)).toBe('app clock show');
    });
  });

  it('runs dist/ when there is no bundle (esbuild was not installed)', () => {
    rmSync(join(dir, 'dist', 'bundle'), { recursive: true });
    expect(launch(1_000_000, null)).toBe('app clock show');
  });
});

describe('the code cache', () => {
  let cacheDir: string;
  let done: () => void;
  const bundle = () => join(cacheDir, 'premia.cjs');
  /** Write `source` as the bundle, and make its cache with a run of the bundle (as the build does). */
  const cached = (source: string) => {
    writeFileSync(bundle(), source);
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', makeCache], { encoding: 'utf8', env: { ...process.env, BUNDLE: bundle() } });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('cache none');
  };
  const makeCache = `import { loadBundle, cacheFileOf } from ${JSON.stringify(join(REPO, 'bin', 'load-bundle.js'))};
    process.stdout.write('cache ' + loadBundle(process.env.BUNDLE, cacheFileOf(process.env.BUNDLE)).cache);`;
  /** Load the bundle as the launcher does: what its main printed, and what became of its cache. */
  const load = () => {
    const r = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `import { loadBundle } from ${JSON.stringify(join(REPO, 'bin', 'load-bundle.js'))};
        const b = loadBundle(process.env.BUNDLE); b.exports.main(); process.stdout.write(' / cache ' + b.cache);`],
      { encoding: 'utf8', env: { ...process.env, BUNDLE: bundle() } },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout;
  };
  beforeAll(() => ({ dir: cacheDir, cleanup: done } = tempDir('premia-code-cache-')));
  afterAll(() => done());

  it('is used for the bundle it was made from', () => {
    cached(commonBundle('1111', 'first'));
    expect(load()).toBe('first  / cache used');
  });

  it('is ignored for another build of the same length, which runs as written', () => {
    cached(commonBundle('1111', 'first'));
    writeFileSync(bundle(), commonBundle('2222', 'other'));
    expect(load()).toBe('other  / cache none');
  });

  it('(control) would run the old build if the id did not tell them apart: V8 checks only the length', () => {
    cached(commonBundle('1111', 'first'));
    writeFileSync(bundle(), commonBundle('1111', 'other'));
    expect(load()).toBe('first  / cache used');
  });

  it('that is damaged is refused by V8 and the bundle compiles as it runs', () => {
    cached(commonBundle('3333', 'third'));
    writeFileSync(`${bundle()}.cache`, Buffer.concat([Buffer.from('// premia build 3333\n'), Buffer.alloc(4096, 7)]));
    expect(load()).toBe('third  / cache rejected');
  });

  it.each(['premia.cjs', 'undici.cjs'])('the build made is used by its bundle %s', (name) => {
    const r = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `import { loadBundle } from ${JSON.stringify(join(REPO, 'bin', 'load-bundle.js'))};
        process.stdout.write(loadBundle(${JSON.stringify(join(REPO, 'dist', 'bundle', name))}).cache);`],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('used');
  });
});
