/**
 * Start-up stays light: `--help` and `--version` must not load the database or HTTP libraries.
 * Each run loads test/e2e/support/record-loads.mjs with `node --import`, which logs every ESM
 * import (a module.register resolve hook) and every CommonJS require (Module._load).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../helpers/cli.js';
import { premiaBin } from './spawn.js';

const PROBE = join(import.meta.dirname, 'support', 'record-loads.mjs');
const HEAVY = ['better-sqlite3', 'kysely', 'undici', 'fastify'];
/** The packages every command loads, which the build carries inside the CLI's bundle (scripts/bundle.mjs INSIDE). */
const INSIDE = ['commander', 'chalk', 'decimal.js'];
/** premia's modules as the build bundles them into one CommonJS file (scripts/bundle.mjs), kysely among them. */
const APP_BUNDLE = '/dist/bundle/premia.cjs';

let dir: string;
let cleanup: () => void;
beforeAll(() => ({ dir, cleanup } = tempDir('premia-startup-')));
afterAll(() => cleanup());

/** Run premia under the probe: the package names it loaded, and every line of the probe's log. */
async function loaded(args: string[], name: string): Promise<{ packages: Set<string>; lines: string[] }> {
  const log = join(dir, `${name}.log`);
  const r = await premiaBin(args, { cwd: dir, env: { PREMIA_LOAD_LOG: log }, nodeArgs: ['--import', PROBE] });
  expect(r.code).toBe(0);
  const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  expect(lines.length).toBeGreaterThan(5); // the probe saw premia's own modules
  // premia's own modules, from the build's bundle (its requires come from it), not dist/'s ~160
  // files nor the ES module bundle's chunks.
  expect(lines.some((l) => l.includes(APP_BUNDLE))).toBe(true);
  expect(lines.filter((l) => /\/dist\/(?!bundle\/premia\.cjs)/.test(l))).toEqual([]);
  const packages = new Set<string>();
  for (const line of lines) {
    for (const m of line.matchAll(/node_modules\/((?:@[^/]+\/)?[^/\s]+)/g)) packages.add(m[1]!);
    const bare = /^require ((?:@[^/\s]+\/)?[^./\s][^/\s]*)/.exec(line);
    if (bare && !bare[1]!.startsWith('node:')) packages.add(bare[1]!);
  }
  return { packages, lines };
}

describe('start-up', () => {
  it.each([
    ['--help', ['--help']],
    ['--version', ['--version']],
    ['policies --help', ['policies', '--help']],
  ])('%s loads none of better-sqlite3, kysely, undici, fastify', async (name, args) => {
    const { packages, lines } = await loaded(args, name.replace(/\W+/g, '-'));
    expect(HEAVY.filter((p) => packages.has(p))).toEqual([]);
    expect(INSIDE.filter((p) => packages.has(p))).toEqual([]); // commander parsed the arguments from inside the bundle
    expect(lines.filter((l) => l.includes('/dist/bundle/undici.cjs'))).toEqual([]); // nor undici's bundle
  });

  it('the probe does see them when a command opens the store (the control), kysely bundled in', async () => {
    const { packages, lines } = await loaded(['--db', ':memory:', 'clock'], 'clock');
    expect(packages.has('better-sqlite3')).toBe(true);
    // Bundled with premia's modules, not kysely's 279 files under node_modules; and without the
    // app bundle (a tsc build alone) dist/store/kysely.js is kysely bundled into one file.
    expect(lines.some((l) => l.includes(`better-sqlite3 from ${REPO}${APP_BUNDLE}`))).toBe(true);
    expect(lines.filter((l) => l.includes('/dist/store/'))).toEqual([]);
    expect(packages.has('kysely')).toBe(false);
    expect(INSIDE.filter((p) => packages.has(p))).toEqual([]);
    const bundle = readFileSync(join(import.meta.dirname, '..', '..', 'dist', 'store', 'kysely.js'), 'utf8');
    expect(bundle).toMatch(/^\/\*! kysely \d+\.\d+\.\d+, bundled for premia/);
    expect(bundle).toContain('Permission is hereby granted');
    expect(bundle).not.toMatch(/^\s*(import|export)\b[^\n]*from ['"]kysely['"]/m);
  });

  it("the CLI's bundle carries commander, chalk and decimal.js with their licences, and requires none of them", () => {
    const bundle = readFileSync(join(REPO, 'dist', 'bundle', 'premia.cjs'), 'utf8');
    expect(bundle).not.toMatch(/require\(["'](commander|chalk|decimal\.js)["']\)/);
    const legal = readFileSync(join(REPO, 'dist', 'bundle', 'premia.cjs.LEGAL.txt'), 'utf8');
    for (const name of INSIDE) expect(legal).toMatch(new RegExp(`^/\\*! ${name.replace('.', '\\.')} \\d+\\.\\d+\\.\\d+, bundled for premia`, 'm'));
    expect(legal).toContain('Copyright (c) 2011 TJ Holowaychuk'); // commander's
    expect(legal).toContain('Copyright (c) Sindre Sorhus'); // chalk's
    expect(legal).toContain('Michael Mclaughlin'); // decimal.js's
  });

  it("undici's bundle carries undici's licence and is no copy of node_modules' requires", () => {
    const bundle = readFileSync(join(REPO, 'dist', 'bundle', 'undici.cjs'), 'utf8');
    expect(bundle).toMatch(/^\/\/ premia build [0-9a-f]{24} \(undici\)\n\/\*! undici \d+\.\d+\.\d+, bundled for premia/);
    expect(bundle).toContain('Copyright (c) Matteo Collina and Undici contributors');
    expect(bundle).not.toMatch(/require\(["']undici["']\)/);
  });
});
