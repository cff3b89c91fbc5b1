/**
 * Every command's --help ends with its examples and the pointer to the global options, `premia
 * help <command…>` shows the same help (nested commands included), and every example is a real
 * command line: parsed by premia as written, with the context's runF in place of running it.
 */
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { allCommands, commandWords, EXAMPLES, GLOBAL_OPTIONS_LINE } from '../../src/cli/commands/help.js';
import { buildProgram } from '../../src/cli/main.js';
import { createContext } from '../../src/cli/context.js';
import { runCli, tempDir } from '../helpers/cli.js';

const { dir, cleanup } = tempDir('premia-help-');
afterAll(() => cleanup());

const program = buildProgram(createContext({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: Readable.from([]), env: {}, cwd: dir }), { exitCode: 0, globals: {} });
const COMMANDS = allCommands(program).map(commandWords);

/** Shell words of an example, without `premia`, leading VAR=value and anything from a redirection on. */
function words(example: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(example); m; m = re.exec(example)) {
    const word = m[1] ?? m[2] ?? m[3]!;
    if (m[3] !== undefined && /^[<>|]/.test(word)) break;
    out.push(word);
  }
  while (out.length > 0 && /^[A-Z_]+=/.test(out[0]!)) out.shift();
  expect(out.shift()).toBe('premia');
  return out;
}

describe('help', () => {
  it('has examples for exactly the commands there are', () => {
    expect(COMMANDS.length).toBeGreaterThan(40);
    expect(Object.keys(EXAMPLES).sort()).toEqual([...COMMANDS].sort());
  });

  it.each(COMMANDS)('%s --help ends with its examples and the global-options line; premia help %s shows the same', async (command) => {
    const path = command.split(' ');
    const r = await runCli([...path, '--help'], { cwd: dir });
    expect(r.code).toBe(0);
    const examples = EXAMPLES[command]!;
    expect(examples.length).toBeGreaterThanOrEqual(1);
    expect(examples.length).toBeLessThanOrEqual(2);
    const tail = ['', examples.length === 1 ? 'Example:' : 'Examples:', ...examples.map((e) => `  ${e}`), '', GLOBAL_OPTIONS_LINE, ''].join('\n');
    expect(r.stdout.endsWith(tail)).toBe(true);
    // Its examples once: a command's own help text adds none of its own.
    expect(r.stdout.split(/^Examples?:$/m).length).toBe(2);
    expect(r.stdout.startsWith(`Usage: premia ${command} `)).toBe(true);
    const viaHelp = await runCli(['help', ...path], { cwd: dir });
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(r.stdout);
  });

  it.each(Object.entries(EXAMPLES).flatMap(([command, list]) => list.map((e) => [command, e] as const)))('%s: `%s` is a command line premia accepts', async (command, example) => {
    const argv = words(example);
    let ran: string | null = null;
    const r = await runCli(argv, {
      cwd: dir,
      prepare: (ctx) => {
        ctx.runF = async (path) => {
          ran = path;
          return 0;
        };
      },
    });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    if (command === 'help') {
      expect(r.stdout).toMatch(/^Usage: premia /);
      return;
    }
    // A group's examples run one of its commands.
    expect(ran === command || (ran !== null && (ran as string).startsWith(`${command} `))).toBe(true);
  });

  it('premia help with an unknown command: exit 2 naming the commands there are', async () => {
    const r = await runCli(['help', 'clock', 'forward'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("'forward' is not a command of premia clock; its commands are: show, advance, set.");
    expect(r.stdout).toBe('');
  });

  it('no subcommand (an empty variable in a cron line): the help on stderr and exit 2; --help asked for is exit 0 on stdout', async () => {
    for (const args of [[], ['policies'], ['settlements']]) {
      const r = await runCli(args, { cwd: dir });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`Usage: premia${args.length > 0 ? ` ${args[0]}` : ''} [options]`);
    }
    const asked = await runCli(['policies', '--help'], { cwd: dir });
    expect(asked.code).toBe(0);
    expect(asked.stdout).toContain('Usage: premia policies [options]');
  });

  it('clock advance --help says an advance asks or needs --yes only once a collections run exists, as it does', async () => {
    const help = await runCli(['clock', 'advance', '--help'], { cwd: dir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      'Once a collections run exists, an advance that closes a period asks first on a terminal (global\n' +
        '--yes skips the question); without a terminal it goes ahead, unless it would close more than one\n' +
        'period, or one with no collections queued: that needs --yes. Before the first run (clock set can\n' +
        'still move the clock back) it asks nothing.\n',
    );
    const db = ['--db', join(dir, 'advance-help.db')];
    expect((await runCli([...db, 'clock', 'set', '2026-10-31'], { cwd: dir })).code).toBe(0);
    const policy = ['policies', 'create', '--policy-number', 'P1', '--customer-id', 'C1', '--external-ref', 'E1', '--product-code', 'X', '--amount', '10'];
    expect((await runCli([...db, ...policy], { cwd: dir })).code).toBe(0);
    // No run yet: two periods close, nobody queued them, no terminal and no --yes, and it goes ahead.
    const before = await runCli([...db, 'clock', 'advance', '--to', '2027-01-05'], { cwd: dir });
    expect(before.code).toBe(0);
    expect(before.stderr).toContain('Clock moved from 2026-10-31 to 2027-01-05: 66 days lived, 0.00 collected.');
    // Once a run exists, the same kind of advance needs --yes.
    expect((await runCli([...db, 'collections', 'execute', '--period', '2027-01'], { cwd: dir })).code).toBe(0);
    const after = await runCli([...db, 'clock', 'advance', '--to', '2027-03-05'], { cwd: dir });
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('This advance would close 2 periods for good (2027-01 and 2027-02).');
  });

  it('premia help alone is premia --help', async () => {
    const a = await runCli(['help'], { cwd: dir });
    const b = await runCli(['--help'], { cwd: dir });
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
  });
});
