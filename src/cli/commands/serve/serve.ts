import { validationError } from '../../../domain/errors.js';
import { verb, type CommandDeps } from '../../command.js';
import { makesNewStore } from '../action.js';
import type { ServeOptions as ServerOptions } from '../../context.js';

interface Flags {
  host?: string;
  port?: string;
  jsonLimit?: string;
  uploadLimit?: string;
  rateLimit?: string;
  simulation?: boolean;
}

export interface ServeOptions extends CommandDeps {
  server: ServerOptions;
}

function wholeNumber(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw validationError(`${flag} must be a whole number from ${min} to ${max}; got '${text}'.`);
  return n;
}

export function serveOptions(deps: CommandDeps, flags: Flags): ServeOptions {
  return {
    ...deps,
    server: {
      host: String(flags.host ?? '127.0.0.1'),
      port: wholeNumber('--port', flags.port ?? '8080', 0, 65535)!,
      jsonLimit: wholeNumber('--json-limit', flags.jsonLimit, 1, 1024 ** 3),
      uploadLimit: wholeNumber('--upload-limit', flags.uploadLimit, 1, 1024 ** 4),
      rateLimit: wholeNumber('--rate-limit', flags.rateLimit, 0, 1_000_000),
      simulation: flags.simulation !== false,
    },
  };
}

export async function serveRun({ ctx, globals, backend, server }: ServeOptions): Promise<number> {
  // A store the server makes is said so on its start line: a mistyped --db is seen at once, not as
  // every key refused by an empty store.
  const newStore = makesNewStore(await ctx.target(globals));
  // The server (and fastify with it) is loaded only when this command runs.
  return ctx.serve(await backend(), { ...server, newStore }, { stderr: ctx.stderr, signals: ctx.signals });
}

export default verb(serveOptions, serveRun);
