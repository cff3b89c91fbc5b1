/**
 * `premia serve`: make the API listen, log requests on stderr, and stop cleanly on SIGTERM or
 * SIGINT (stop accepting, finish the requests in flight, then return so the CLI closes the store
 * and exits 0). fastify is loaded only from here, and this module only by the serve command.
 */
import type { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import { LocalBackend } from '../backend/local/index.js';
import type { Backend } from '../backend/types.js';
import { usageError, validationError } from '../domain/errors.js';
import { createServer } from './app.js';

export interface ServeOptions {
  host: string;
  port: number;
  jsonLimit?: number;
  uploadLimit?: number;
  rateLimit?: number;
  simulation?: boolean;
}

export interface ServeIo {
  stderr: Writable;
  /** Where SIGTERM and SIGINT come from (the process). */
  signals: EventEmitter;
  /** Told the base URL once the server listens (tests). */
  onListening?: (url: string) => void;
}

export async function serve(backend: Backend, options: ServeOptions, io: ServeIo): Promise<number> {
  if (!(backend instanceof LocalBackend)) {
    throw usageError("'premia serve' serves a local store; give it --db (or PREMIA_DB), not a remote profile.");
  }
  const write = (line: string) => io.stderr.write(`${line}\n`);
  // Listen for signals before anything starts, so one sent during start-up is not lost.
  let onTerm = () => {};
  let onInt = () => {};
  const stop = new Promise<string>((resolve) => {
    onTerm = () => resolve('SIGTERM');
    onInt = () => resolve('SIGINT');
  });
  io.signals.on('SIGTERM', onTerm);
  io.signals.on('SIGINT', onInt);
  try {
    const app = await createServer({
      backend,
      simulation: options.simulation ?? true,
      jsonLimit: options.jsonLimit,
      uploadLimit: options.uploadLimit,
      rateLimit: options.rateLimit,
      log: write,
    });
    try {
      await app.listen({ host: options.host, port: options.port });
    } catch (e) {
      await app.close();
      throw listenError(e, options);
    }
    const address = app.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `http://${host}:${address.port}/v1`;
    if (!isLoopback(options.host)) {
      write(`warning: listening on ${options.host}, reachable from other machines; anyone with a key can use the API over plain HTTP.`);
    }
    const simulation = options.simulation ?? true;
    write(`premia: serving ${url} (store ${backend.admin.storePath}; ${simulation ? 'simulated bank' : 'no simulation: no clock or bank endpoints'}; SIGTERM or Ctrl-C stops)`);
    io.onListening?.(url);

    const signal = await stop;
    write(`premia: ${signal} received; finishing requests in flight…`);
    // Stops accepting connections, closes idle ones, and waits for the requests in flight.
    await app.close();
    write('premia: stopped.');
    return 0;
  } finally {
    io.signals.off('SIGTERM', onTerm);
    io.signals.off('SIGINT', onInt);
  }
}

function listenError(e: unknown, options: ServeOptions): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return validationError(`Port ${options.port} on ${options.host} is already in use; choose another with --port.`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return validationError(`Cannot listen on ${options.host}: no such local address.`);
  if (code === 'EACCES') return validationError(`Not allowed to listen on port ${options.port}; choose a port above 1023.`);
  return e;
}

export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
