/**
 * What a command gets injected: IO streams, terminal flags, environment, a wall clock and a
 * lazy backend. Tests build a context with buffers and run commands in-process; the binary
 * builds one from `process`. The concrete backend is chosen here and only here.
 */
import type { Readable, Writable } from 'node:stream';
import type { Backend } from '../backend/types.js';

export interface GlobalOptions {
  db?: string;
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
  yes?: boolean;
  seed?: string;
  debug?: boolean;
  baseUrl?: string;
  apiKey?: string;
  profile?: string;
  idempotencyKey?: string;
  client?: string;
}

export interface CliContext {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Wall clock (a new store's clock starts at its UTC date). */
  now: () => Date;
  /** The backend for these global options, created on first use and reused. */
  backend: (globals: GlobalOptions) => Promise<Backend>;
  /** Release what `backend` opened. */
  dispose: () => Promise<void>;
}

export interface ContextInit {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  stdinIsTTY?: boolean;
  env?: Record<string, string | undefined>;
  cwd?: string;
  now?: () => Date;
}

export const DEFAULT_DB_FILE = 'premia.db';

export function createContext(init: ContextInit): CliContext {
  const env = init.env ?? {};
  const now = init.now ?? (() => new Date());
  const cwd = init.cwd ?? process.cwd();
  let backend: Promise<Backend> | undefined;
  const ctx: CliContext = {
    stdout: init.stdout,
    stderr: init.stderr,
    stdin: init.stdin,
    stdoutIsTTY: init.stdoutIsTTY ?? false,
    stderrIsTTY: init.stderrIsTTY ?? false,
    stdinIsTTY: init.stdinIsTTY ?? false,
    env,
    cwd,
    now,
    backend(globals) {
      backend ??= openBackend(ctx, globals);
      return backend;
    },
    async dispose() {
      if (!backend) return;
      const b = backend;
      backend = undefined;
      try {
        await (await b).close();
      } catch {
        // opening failed: nothing to close
      }
    },
  };
  return ctx;
}

async function openBackend(ctx: CliContext, globals: GlobalOptions): Promise<Backend> {
  const { openLocalBackend } = await import('../backend/local/index.js');
  const { resolve } = await import('node:path');
  const dbOption = globals.db ?? ctx.env.PREMIA_DB ?? DEFAULT_DB_FILE;
  const path = dbOption === ':memory:' ? dbOption : resolve(ctx.cwd, dbOption);
  return openLocalBackend({
    path,
    seed: parseSeed(globals.seed),
    now: ctx.now,
  });
}

function parseSeed(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  return Number(text);
}
