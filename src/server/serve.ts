/**
 * `premia serve`: make the API listen, log requests on stderr, and stop cleanly on SIGTERM or
 * SIGINT (stop accepting, finish the requests in flight, then return so the CLI closes the store
 * and exits 0). fastify is loaded only from here, and this module only by the serve command.
 */
import type { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { LocalBackend } from '../backend/local/index.js';
import type { Backend } from '../backend/types.js';
import { usageError, validationError } from '../domain/errors.js';
import { escapeUnseen } from '../domain/identifiers.js';
import { isLoopback } from '../lib/loopback.js';
import { createServer } from './app.js';

export interface ServeOptions {
  host: string;
  port: number;
  jsonLimit?: number;
  uploadLimit?: number;
  rateLimit?: number;
  simulation?: boolean;
  /** The store did not exist before this server made it (said on the start line). */
  newStore?: boolean;
  /** How long a stop waits for a request still arriving (default SHUTDOWN_GRACE_MS; tests). */
  shutdownGraceMs?: number;
}

export interface ServeIo {
  stderr: Writable;
  /** Where SIGTERM, SIGINT and SIGHUP arrive (the CLI context's `signals`). */
  signals: EventEmitter;
  /** Told the base URL once the server listens (tests). */
  onListening?: (url: string) => void;
}

export async function serve(backend: Backend, options: ServeOptions, io: ServeIo): Promise<number> {
  if (!(backend instanceof LocalBackend)) {
    throw usageError("'premia serve' serves a local store; give it --db (or PREMIA_DB), not a remote profile.");
  }
  // A line of the log (the start, with the store's path; each request) with its control
  // characters escaped, as the CLI writes its status lines: the terminal shows them, not acts on them.
  const write = (line: string) => io.stderr.write(`${escapeUnseen(line, true)}\n`);
  // Listen for signals before anything starts, so one sent during start-up is not lost.
  let onTerm = () => {};
  let onInt = () => {};
  const stop = new Promise<string>((resolve) => {
    onTerm = () => resolve('SIGTERM');
    onInt = () => resolve('SIGINT');
  });
  // SIGHUP (the terminal it ran in closed, an SSH session that ended, a service manager asking
  // for a reload): Node's default ends the process at once, without a word in the log, cutting
  // an advance or an import mid-way (Node undoes even nohup's). premia has nothing to reload: it
  // says so and goes on serving (its lines to a terminal that is gone are dropped).
  const onHup = () =>
    write('premia: SIGHUP received (a closed terminal, or a reload asked for): premia has nothing to reload and goes on serving; SIGTERM or Ctrl-C stops it.');
  io.signals.on('SIGTERM', onTerm);
  io.signals.on('SIGINT', onInt);
  io.signals.on('SIGHUP', onHup);
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
    const stragglers = trackConnections(app.server);
    const address = app.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `http://${host}:${address.port}/v1`;
    if (!isLoopback(options.host)) {
      write(`warning: listening on ${options.host}, reachable from other machines; anyone with a key can use the API over plain HTTP.`);
    }
    const simulation = options.simulation ?? true;
    const store = `${options.newStore === true ? 'new store, created now: ' : 'store '}${backend.admin.storePath}`;
    write(`premia: serving ${url} (${store}; ${simulation ? 'simulated bank' : 'no simulation: no clock or bank endpoints'}; SIGTERM or Ctrl-C stops)`);
    io.onListening?.(url);

    const signal = await stop;
    write(`premia: ${signal} received; finishing requests in flight…`);
    // Stops accepting connections, closes idle ones, and waits for the requests in flight. Node
    // stops timing requests out once its server closes, so a client still sending (a header a
    // line at a time, a body a byte at a time) would hold the stop for as long as it liked.
    const cut = stragglers(options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
    try {
      await app.close();
    } finally {
      cut();
    }
    write('premia: stopped.');
    return 0;
  } finally {
    io.signals.off('SIGTERM', onTerm);
    io.signals.off('SIGINT', onInt);
    io.signals.off('SIGHUP', onHup);
  }
}

/** How long a stop waits for a request still arriving (its body not all received) before it is cut off. */
const SHUTDOWN_GRACE_MS = 30_000;

/**
 * Follow the server's connections and requests; the function returned, called when the server
 * stops, cuts off at once the connections with no request under way (idle, or a request's
 * headers still arriving: nothing has started for them), and after `graceMs` those whose
 * request's body has still not all arrived. A request received whole (an advance, an import
 * being written) is never cut: it finishes. Its own returned function clears the timer.
 */
function trackConnections(server: Server): (graceMs: number) => () => void {
  const sockets = new Set<Socket>();
  const requests = new Set<IncomingMessage>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    requests.add(req);
    res.once('close', () => requests.delete(req));
  });
  return (graceMs) => {
    const busy = new Set([...requests].map((r) => r.socket));
    for (const socket of sockets) if (!busy.has(socket)) socket.destroy();
    const timer = setTimeout(() => {
      for (const req of requests) if (!req.complete) req.socket.destroy();
    }, graceMs);
    timer.unref();
    return () => clearTimeout(timer);
  };
}

function listenError(e: unknown, options: ServeOptions): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return validationError(`Port ${options.port} on ${options.host} is already in use; choose another with --port.`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return validationError(`Cannot listen on ${options.host}: no such local address.`);
  if (code === 'EACCES') return validationError(`Not allowed to listen on port ${options.port}; choose a port above 1023.`);
  return e;
}

