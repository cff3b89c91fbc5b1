/**
 * The documentation holds together (issue 15): every relative link in README.md and docs/*.md
 * leads to a file of the repository (never outside it: the spec is docs/spec.md), every #anchor
 * to a heading (GitHub's slugs) or an <a id> of the file it names, and every command of the
 * README's command table is a command of the CLI (its --help answers, in-process).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = join(REPO, 'docs');
const FILES = ['README.md', ...readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/** The text outside fenced code blocks, line by line (code blocks are blanked, so line numbers stay). */
function proseLines(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null && m) {
      fence = m[1]!;
      return '';
    }
    if (fence !== null) {
      if (m && m[1]!.startsWith(fence)) fence = null;
      return '';
    }
    return line;
  });
}

/** GitHub's anchor of a heading: its text lower-cased, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // [text](link) → text
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file: its headings' slugs (repeats numbered -1, -2, …) and its <a id/name>. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      found.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const a of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(a[1]!);
  }
  return found;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

/** The links of a file ([text](target) and ![alt](target)), outside code blocks and code spans. */
function links(file: string): Link[] {
  const out: Link[] = [];
  proseLines(readFileSync(join(REPO, file), 'utf8')).forEach((text, i) => {
    const line = text.replace(/`[^`]*`/g, '``');
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ file, line: i + 1, target: m[1]! });
  });
  return out;
}

/** What is wrong with a link, or null when it resolves. */
function problem(link: Link): string | null {
  const { target } = link;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto:: not checked here
  const hash = target.indexOf('#');
  const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  const file = path === '' ? join(REPO, link.file) : resolve(dirname(join(REPO, link.file)), path);
  if (relative(REPO, file).startsWith('..') || !(file + sep).startsWith(REPO + sep)) return 'leads outside the repository';
  if (!existsSync(file)) return `${relative(REPO, file)} does not exist`;
  if (anchor !== null) {
    if (!file.endsWith('.md')) return 'an anchor into a file that is not Markdown';
    if (!anchors(readFileSync(file, 'utf8')).has(anchor)) return `no heading or <a id> "${anchor}" in ${relative(REPO, file)}`;
  }
  return null;
}

describe('links in README.md and docs/', () => {
  it('computes the anchors GitHub gives headings', () => {
    expect(slug('The service: `premia serve`')).toBe('the-service-premia-serve');
    expect(slug('Decisions where the specification says "not shown"')).toBe('decisions-where-the-specification-says-not-shown');
    expect(slug('Measured (1,000,000 policies, this 2-core machine, 2026-11-21)')).toBe('measured-1000000-policies-this-2-core-machine-2026-11-21');
    expect(slug('`npm run bench`')).toBe('npm-run-bench');
    expect(slug('Profiles: login and logout')).toBe('profiles-login-and-logout');
    expect([...anchors('# A\n\n```\n# not a heading\n```\n## A\n<a id="x"></a>text')]).toEqual(['a', 'a-1', 'x']);
  });

  it('finds the links of every file, and each resolves inside the repository', () => {
    const all = FILES.flatMap(links);
    // The README links into docs/ and the docs link to one another: an extractor that found none would pass anything.
    expect(all.filter((l) => l.file === 'README.md' && l.target.startsWith('docs/')).length).toBeGreaterThan(10);
    const broken = all.map((l) => ({ l, why: problem(l) })).filter((x) => x.why !== null);
    expect(broken.map(({ l, why }) => `${l.file}:${l.line}: (${l.target}) ${why}`)).toEqual([]);
  });

  it('docs/README.md lists every file of docs/', () => {
    const index = links('docs/README.md').map((l) => l.target.split('#')[0]);
    const missing = FILES.filter((f) => f.startsWith('docs/') && f !== 'docs/README.md').filter((f) => !index.includes(f.slice('docs/'.length)));
    expect(missing).toEqual([]);
  });

  it('README.md stays short: at most 250 lines', () => {
    expect(readFileSync(join(REPO, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(251);
  });
});

/** The command of each row of the README's table: the words of its first code span before any argument or option. */
function tableCommands(): string[][] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Commands\n');
  expect(start).toBeGreaterThan(0);
  const section = readme.slice(start + 1, readme.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((l) => /^\|\s*`/.test(l))
    .map((row) => {
      const words = /`([^`]+)`/.exec(row)![1]!.trim().split(/\s+/);
      const path: string[] = [];
      for (const w of words) {
        if (!/^[a-z][a-z-]*$/.test(w)) break;
        path.push(w);
      }
      return path;
    });
}

describe("the README's command table", () => {
  it('names only commands the CLI has (each answers --help with its own usage)', async () => {
    const rows = tableCommands();
    expect(rows.length).toBeGreaterThan(30);
    const tmp = tempDir();
    try {
      const wrong: string[] = [];
      for (const path of rows) {
        if (path.length === 0) {
          wrong.push('a row without a command');
          continue;
        }
        // `help` is commander's own command: `premia help clock` shows clock's help.
        const [args, usage] = path[0] === 'help' && path.length === 1 ? [['help', 'clock'], 'Usage: premia clock '] : [[...path, '--help'], `Usage: premia ${path.join(' ')} `];
        const r = await runCli(args, { cwd: tmp.dir });
        if (r.code !== 0 || !r.stdout.startsWith(usage)) wrong.push(`${path.join(' ')}: exit ${r.code}, ${JSON.stringify((r.stdout || r.stderr).split('\n')[0])}`);
      }
      expect(wrong).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });

  it('has a row for every command of the CLI', async () => {
    const tmp = tempDir();
    try {
      const r = await runCli(['--help'], { cwd: tmp.dir });
      const list = r.stdout.slice(r.stdout.indexOf('\nCommands:\n') + '\nCommands:\n'.length);
      const commands = list.slice(0, list.indexOf('\n\n')).split('\n').map((l) => /^ {2}([a-z][a-z-]*)\b/.exec(l)?.[1]).filter((c): c is string => c !== undefined);
      expect(commands).toContain('policies');
      const documented = new Set(tableCommands().map((p) => p[0]));
      expect(commands.filter((c) => !documented.has(c))).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
});
