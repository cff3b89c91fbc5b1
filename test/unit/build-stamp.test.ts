/**
 * scripts/build.mjs --if-stale (what `npm test` runs first): a build is skipped only when
 * dist/.build-inputs names exactly the inputs there now and the files a build makes exist.
 */
import { mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inputsDigest, isStale } from '../../scripts/build.mjs';
import { tempDir } from '../helpers/cli.js';

const digest = inputsDigest as (root: string) => string;
const stale = isStale as (root: string) => boolean;

let root: string;
let cleanup: () => void;

function write(path: string, text: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

beforeEach(() => {
  ({ dir: root, cleanup } = tempDir('premia-build-stamp-'));
  write('src/app/premia.ts', 'export {};\n');
  write('src/lib/a.ts', 'export const a = 1;\n');
  write('bin/load-bundle.js', '// loader\n');
  write('scripts/bundle.mjs', '// bundle\n');
  write('tsconfig.json', '{}\n');
  write('package.json', '{"name":"x"}\n');
  write('package-lock.json', '{}\n');
  write('dist/app/premia.js', '// built\n');
  write('dist/store/kysely.js', '// built\n');
});

afterEach(() => cleanup());

const stamp = () => write('dist/.build-inputs', `${digest(root)}\n`);

describe('the build stamp', () => {
  it('is stale with no stamp, and fresh once the stamp names the inputs', () => {
    expect(stale(root)).toBe(true);
    stamp();
    expect(stale(root)).toBe(false);
  });

  it('a changed byte, a new file, a renamed file or a changed lock file makes it stale; a touch does not', () => {
    stamp();
    const before = digest(root);
    utimesSync(join(root, 'src/lib/a.ts'), new Date(2030, 0, 1), new Date(2030, 0, 1));
    expect(digest(root)).toBe(before);
    expect(stale(root)).toBe(false);

    write('src/lib/a.ts', 'export const a = 2;\n');
    expect(stale(root)).toBe(true);
    write('src/lib/a.ts', 'export const a = 1;\n');
    expect(stale(root)).toBe(false);

    write('src/lib/b.ts', '');
    expect(stale(root)).toBe(true);
    rmSync(join(root, 'src/lib/b.ts'));
    expect(stale(root)).toBe(false);

    renameSync(join(root, 'src/lib/a.ts'), join(root, 'src/lib/c.ts'));
    expect(stale(root)).toBe(true);
    renameSync(join(root, 'src/lib/c.ts'), join(root, 'src/lib/a.ts'));

    for (const file of ['bin/load-bundle.js', 'scripts/bundle.mjs', 'tsconfig.json', 'package.json', 'package-lock.json']) {
      write(file, 'changed\n');
      expect(stale(root), file).toBe(true);
    }
  });

  it('a file the build makes gone makes it stale, the stamp unchanged', () => {
    stamp();
    rmSync(join(root, 'dist/app/premia.js'));
    expect(stale(root)).toBe(true);
  });

  it('outputs under dist/ are not inputs', () => {
    stamp();
    write('dist/app/premia.js', '// built again, differently\n');
    write('dist/bundle/premia.cjs', '// a bundle\n');
    expect(stale(root)).toBe(false);
  });
});
