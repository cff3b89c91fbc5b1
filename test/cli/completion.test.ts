/**
 * `premia completion bash|zsh|fish`: the scripts load in their shell without error, and the bash
 * one completes what the commander tree holds (driven through COMP_WORDS/COMP_CWORD in `bash -c`,
 * no terminal). fish's own `complete -C` checks the fish script; zsh is loaded and parsed. A shell
 * that is not installed is skipped with the reason printed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const { dir, cleanup } = tempDir('premia-completion-');
afterAll(() => cleanup());

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;
const scripts: Record<string, string> = {};

beforeAll(async () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await runCli(['completion', shell], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    scripts[shell] = join(dir, `premia.${shell}`);
    writeFileSync(scripts[shell], r.stdout);
  }
  mkdirSync(join(dir, 'work', 'month'), { recursive: true });
  writeFileSync(join(dir, 'work', 'policies.csv'), '');
});

/** What bash completes for the words (the last one is the word being completed). */
function bashComplete(...words: string[]): string[] {
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', `source "$1" || exit 9; COMP_WORDS=(${quoted}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _premia; printf '%s\\n' "\${COMPREPLY[@]}"`, 'bash', scripts.bash!], {
    cwd: join(dir, 'work'),
    encoding: 'utf8',
  });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe.skipIf(!has('bash'))('bash completion', () => {
  it('loads without error and registers _premia for premia', () => {
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', 'source "$1" && complete -p premia', 'bash', scripts.bash!], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('complete -F _premia premia\n');
  });

  it('completes commands', () => {
    expect(bashComplete('premia', 'col')).toEqual(['collections']);
    expect(bashComplete('premia', 'se')).toEqual(['settings', 'serve', 'settlements']);
    expect(bashComplete('premia', 'collections', '')).toEqual(['execute', 'get', 'list', 'attempts', 'explain', 'execution']);
    expect(bashComplete('premia', 'clock', 'a')).toEqual(['advance']);
    // Global options and their values are skipped on the way.
    expect(bashComplete('premia', '--db', 'x.db', 'pol')).toEqual(['policies']);
    expect(bashComplete('premia', 'help', 'clock', '')).toEqual(['show', 'advance', 'set']);
  });

  it('completes options and their choices', () => {
    expect(bashComplete('premia', 'collections', 'list', '--st')).toEqual(['--status']);
    expect(bashComplete('premia', 'collections', 'list', '--status', '')).toEqual(['PAID_FULL', 'PAID_PARTIAL', 'UNPAID', 'CANCELLED']);
    expect(bashComplete('premia', 'policies', 'list', '--format', '')).toEqual(['table', 'csv', 'json']);
    expect(bashComplete('premia', 'policies', 'list', '--fo')).toEqual(['--format']);
    expect(bashComplete('premia', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
    // --fields: the list's field names, comma after comma.
    expect(bashComplete('premia', 'policies', 'list', '--fields', 'pol')).toEqual(['policy_number']);
    expect(bashComplete('premia', 'policies', 'list', '--fields', 'policy_number,coll')).toEqual(['policy_number,collection_amount', 'policy_number,collection_amount_effective_period']);
    expect(bashComplete('premia', 'settings', '--fields', 'key,d')).toEqual(['key,default', 'key,description']);
    // A global option after the command.
    expect(bashComplete('premia', 'policies', 'list', '--qu')).toEqual(['--quiet']);
  });

  it('completes paths where a value is a path, and nothing for ids', () => {
    expect(bashComplete('premia', 'reports', 'collections', '--output', 'pol')).toEqual(['policies.csv']);
    expect(bashComplete('premia', 'fixtures', 'copy', 'mo')).toEqual(['month']);
    expect(bashComplete('premia', 'collections', 'get', '')).toEqual([]);
  });
});

describe.skipIf(!has('fish'))('fish completion', () => {
  it('loads and completes commands and choices', () => {
    const r = spawnSync('fish', ['--no-config', '-c', 'source $argv[1]; and complete -C "premia col"; and complete -C "premia settlements list --status "', scripts.fish!], { encoding: 'utf8', cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('collections\trun the monthly collections and follow their results\ndisputed\tonly this status\npaid\tonly this status\npending\tonly this status\n');
  });
});

describe.skipIf(!has('zsh'))('zsh completion', () => {
  it('loads after compinit and defines _premia', () => {
    const r = spawnSync('zsh', ['-f', '-c', 'autoload -U compinit && compinit -u -D && source "$1" && whence -w _premia', 'zsh', scripts.zsh!], { encoding: 'utf8', cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('_premia: function\n');
  });
});

for (const shell of ['bash', 'zsh', 'fish']) {
  if (!has(shell)) console.log(`completion.test: ${shell} is not installed; its completion test is skipped.`);
}
