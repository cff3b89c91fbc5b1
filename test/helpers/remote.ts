/**
 * Remote-mode test helpers: a real premia service listening on 127.0.0.1 (port 0) in this
 * process, and `runPremia`, runCli at the tests' fixed time (with a prompter and fast retry
 * waits where a test needs them).
 */
import type { AddressInfo } from 'node:net';
import type { Prompter, RemoteTuning } from '../../src/cli/context.js';
import type { ServerOptions } from '../../src/server/app.js';
import { NOW, startServer, type TestServer } from '../server/helpers.js';
import { seedPeriod } from '../server/fixture-period.js';
import { runCli, type CliOptions, type CliResult } from './cli.js';
import { setClock } from './seed-collections.js';

export { NOW };

export interface LiveServer extends TestServer {
  /** The base URL, with /v1. */
  url: string;
}

/**
 * `premia serve` in-process: startServer (no rate limit) listening on `host` (127.0.0.1), port 0, with its
 * writes on the job thread as `premia serve` runs them.
 */
export async function startLiveServer(options: Partial<ServerOptions> = {}, host = '127.0.0.1'): Promise<LiveServer> {
  const s = await startServer({ rateLimit: 0, offload: true, ...options });
  await s.app.listen({ host, port: 0 });
  const { port } = s.app.server.address() as AddressInfo;
  return { ...s, url: `http://${host}:${port}/v1` };
}

/** A live service whose store holds the fixture period's collections (test/server/fixture-period.ts), its clock at `clock`. */
export async function startSeededService(clock: string): Promise<LiveServer> {
  const server = await startLiveServer();
  await seedPeriod(server.backend.store);
  await setClock(server.backend.store, clock);
  return server;
}

export type PremiaOptions = Omit<CliOptions, 'now' | 'prepare'>;

/** No waiting between retries (the waits asked for are recorded in `waits`). */
export function instantRetries(waits: number[] = []): RemoteTuning {
  return {
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
  };
}

/** runCli at the remote tests' fixed time. */
export function runPremia(args: string[], options: PremiaOptions): Promise<CliResult> {
  return runCli(args, { ...options, now: NOW });
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
  return {
    password: next,
    input: next,
    confirm: async (message) => {
      throw new Error(`unexpected confirmation: ${message}`);
    },
  };
}
