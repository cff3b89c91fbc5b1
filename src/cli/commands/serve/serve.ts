import { validationError } from '../../../domain/errors.js';
import type { CommandEnv } from '../action.js';

function wholeNumber(flag: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw validationError(`${flag} must be a whole number from ${min} to ${max}; got '${text}'.`);
  return n;
}

export default async function serveCommand({ ctx, opts, backend }: CommandEnv): Promise<number> {
  const options = {
    host: String(opts.host ?? '127.0.0.1'),
    port: wholeNumber('--port', opts.port ?? '8080', 0, 65535)!,
    jsonLimit: wholeNumber('--json-limit', opts.jsonLimit, 1, 1024 ** 3),
    uploadLimit: wholeNumber('--upload-limit', opts.uploadLimit, 1, 1024 ** 4),
    rateLimit: wholeNumber('--rate-limit', opts.rateLimit, 0, 1_000_000),
    simulation: opts.simulation !== false,
  };
  // The server (and fastify with it) is loaded only when this command runs.
  return ctx.serve(await backend(), options, { stderr: ctx.stderr, signals: process });
}
