/**
 * Remote-mode test helpers: a real premia service listening on 127.0.0.1 (port 0) in this
 * process, and `runPremia`, which runs the CLI in-process like runCli but can also inject a
 * prompter (premia login on a "terminal") and fast retry waits.
 */
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import { createContext, type Prompter, type RemoteTuning } from '../../src/cli/context.js';
import { run } from '../../src/cli/main.js';
import { createServer, type ServerOptions } from '../../src/server/app.js';
import { createKey } from '../../src/server/keys.js';
import { tempDir, type CliResult } from './cli.js';

export const NOW = () => new Date('2026-11-21T09:30:00.000Z');

export interface LiveServer {
  /** The base URL, with /v1. */
  url: string;
  app: FastifyInstance;
  backend: LocalBackend;
  dir: string;
  dbPath: string;
  logs: string[];
  /** Keys of two clients: acme ("Acme Life") and other ("Other Insure"). */
  keys: { acme: string; other: string };
  close: () => Promise<void>;
}

/** `premia serve` in-process: createServer on a fresh store, listening on 127.0.0.1, port 0. */
export async function startLiveServer(options: Partial<ServerOptions> = {}): Promise<LiveServer> {
  const { dir, cleanup } = tempDir('premia-live-');
  const dbPath = join(dir, 'server.db');
  // An explicit seed: ids the same as a local store made with --seed 1 (the contract suite compares them).
  const backend = await openLocalBackend({ path: dbPath, now: NOW, seed: 1 });
  const acme = await createKey(backend.store, 'Acme Life', NOW);
  const other = await createKey(backend.store, 'Other Insure', NOW);
  const logs: string[] = [];
  const app = await createServer({ backend, log: (l) => logs.push(l), tmpDir: dir, rateLimit: 0, now: NOW, ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    app,
    backend,
    dir,
    dbPath,
    logs,
    keys: { acme: acme.key, other: other.key },
    close: async () => {
      await app.close();
      await backend.close();
      cleanup();
    },
  };
}

export interface PremiaOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  stdin?: string | Buffer;
  /** stdin, stdout and stderr are terminals. */
  tty?: boolean;
  prompter?: Prompter;
  tuning?: RemoteTuning;
}

/** No waiting between retries (the waits asked for are recorded in `waits`). */
export function instantRetries(waits: number[] = []): RemoteTuning {
  return {
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
  };
}

export async function runPremia(args: string[], options: PremiaOptions): Promise<CliResult> {
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
    now: NOW,
    prompter: options.prompter,
    remoteTuning: options.tuning,
  });
  const code = await run(args, ctx);
  const stdoutText = Buffer.concat(out).toString('utf8');
  return { code, stdout: stdoutText, stderr: Buffer.concat(err).toString('utf8'), json: () => JSON.parse(stdoutText) };
}

/** The environment of remote mode against a server with a key. */
export function remoteEnv(url: string, key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PREMIA_BASE_URL: url, PREMIA_API_KEY: key, ...extra };
}

/** A prompter that answers from a list and records the questions (for premia login on a terminal). */
export function scriptedPrompter(answers: string[], asked: string[] = []): Prompter {
  const next = async (message: string) => {
    asked.push(message);
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`unexpected question: ${message}`);
    return answer;
  };
  return { password: next, input: next };
}
