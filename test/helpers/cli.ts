/** Run the CLI in-process with captured stdout/stderr, as the tests of every command do. */
import type { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createContext, type Prompter, type RemoteTuning, type ServeFn } from '../../src/cli/context.js';
import { run } from '../../src/cli/main.js';

/** `premia serve` in-process, as the process entry (src/app/premia.ts) gives it. */
const serve: ServeFn = async (backend, options, io) => (await import('../../src/server/serve.js')).serve(backend, options, io);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws when it is not exactly one JSON document). */
  json: () => any;
}

export interface CliOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  stdin?: string | Buffer;
  tty?: boolean;
  now?: () => Date;
  /** Answers to prompts (premia login on a "terminal"). */
  prompter?: Prompter;
  /** Remote mode's retry waits. */
  tuning?: RemoteTuning;
  /** Where the command's SIGINT handlers listen (tests emit 'SIGINT' on it to press Ctrl-C). */
  signals?: EventEmitter;
  /** Change the context before the command runs (e.g. a backend that fails). */
  prepare?: (ctx: ReturnType<typeof createContext>) => void;
}

export async function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const stdin = options.stdin === undefined ? Readable.from([]) : Readable.from([Buffer.from(options.stdin)]);
  const ctx = createContext({
    stdout,
    stderr,
    stdin,
    stdoutIsTTY: options.tty ?? false,
    stderrIsTTY: options.tty ?? false,
    stdinIsTTY: options.tty ?? false,
    env: { ...options.env },
    cwd: options.cwd,
    // A new store's clock then starts at 2026-11-21 (the day before: backend/local/world.ts).
    now: options.now ?? (() => new Date('2026-11-22T09:30:00.000Z')),
    prompter: options.prompter,
    signals: options.signals,
    remoteTuning: options.tuning,
    serve,
  });
  options.prepare?.(ctx);
  const code = await run(args, ctx);
  const stdoutText = Buffer.concat(out).toString('utf8');
  return {
    code,
    stdout: stdoutText,
    stderr: Buffer.concat(err).toString('utf8'),
    json: () => JSON.parse(stdoutText),
  };
}

/** A temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'premia-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const REPO = join(import.meta.dirname, '..', '..');
export const FIXTURES = join(REPO, 'fixtures');

/** A prompter that answers yes/no questions from `answers` in turn, recording them in `asked`; any other question, or one past the list, fails the test. */
export function answering(answers: boolean[], asked: string[] = []): Prompter {
  const refuse = async (message: string): Promise<string> => {
    throw new Error(`unexpected question: ${message}`);
  };
  return {
    password: refuse,
    input: refuse,
    confirm: async (message) => {
      asked.push(message);
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected confirmation: ${message}`);
      return answer;
    },
  };
}

/** The warning a write under --idempotency-key `key` prints when it repeated an earlier run's answer (cli/keyed-write.ts repeatedAnswerNote, without `redo`). */
export const replayedNote = (key: string, nothing: string): string =>
  `warning: that is the answer of an earlier run with idempotency key '${key}', repeated: ${nothing}. Run it with a new idempotency key (or none) to act now.\n`;
