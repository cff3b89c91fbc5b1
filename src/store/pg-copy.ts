/**
 * `COPY … FROM STDIN` as a writer the bulk paths feed line by line (the policy import's staging
 * table, the bank import): started on the first write, so an empty input sends no COPY; writes
 * honour backpressure through `ready()`; the first error of the stream is kept and thrown by the
 * next write, `ready()` or `end()`.
 */
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import type { ClientBase } from 'pg';

// Loaded on the first COPY: every store imports the modules that use this one.
const require = createRequire(import.meta.url);

/** What a stream failed with, as an Error (pg's errors are; anything else is wrapped). */
export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/** A text value as a PostgreSQL string literal, for statements that take no parameters (COPY … TO). */
export function pgLiteral(value: string): string {
  return (require('pg') as typeof import('pg')).escapeLiteral(value);
}

/** The COPY in progress on each connection, for abortCopy. */
const active = new WeakMap<ClientBase, CopyIn>();

/**
 * Stop the COPY in progress on `client`, if any, and wait until the server has given it up: a
 * rollback sent on a connection still in COPY would wait behind it for good (the server awaits
 * more rows), with the transaction, and the store's writer lock, held all the while.
 */
export async function abortCopy(client: ClientBase): Promise<void> {
  await active.get(client)?.abort();
}

export class CopyIn {
  private stream: Writable | null = null;
  private done: Promise<void> | null = null;
  private failure: Error | null = null;
  private draining: Promise<void> | null = null;

  constructor(
    private readonly client: ClientBase,
    private readonly statement: string,
  ) {}

  /** Throw the COPY's failure, if it failed. */
  check(): void {
    if (this.failure !== null) throw this.failure;
  }

  /** Send `text` (whole CSV lines, as a string or bytes). Throws the COPY's failure, if it failed. */
  write(text: string | Buffer): void {
    this.check();
    const stream = (this.stream ??= this.start());
    if (!stream.write(text)) {
      this.draining ??= new Promise<void>((resolve, reject) => {
        const onDrain = () => {
          stream.off('error', onError);
          this.draining = null;
          resolve();
        };
        const onError = (e: unknown) => {
          stream.off('drain', onDrain);
          reject(asError(e));
        };
        stream.once('drain', onDrain);
        stream.once('error', onError);
      });
      // A COPY that fails while the writer waits to drain (the server refuses it, or goes away)
      // is reported by the next write(), ready() or end(); a caller that ends without asking
      // ready() again must not leave this rejection unhandled (it would end the process).
      this.draining.catch(() => undefined);
    }
  }

  /** Resolves when the stream can take more (undefined when it can now); rejects once it failed. */
  ready(): Promise<void> | undefined {
    if (this.failure !== null) return Promise.reject(this.failure);
    return this.draining ?? undefined;
  }

  /** End the COPY and wait for the server. Whether anything was sent; throws the COPY's failure. */
  async end(): Promise<boolean> {
    if (this.stream !== null) {
      this.stream.end();
      await this.done;
    }
    if (this.failure !== null) throw this.failure;
    return this.stream !== null;
  }

  /**
   * Give the COPY up (the work feeding it failed or was stopped): the stream sends CopyFail, and
   * this resolves once the server has answered it, the connection free for the rollback.
   */
  async abort(): Promise<void> {
    const stream = this.stream;
    if (stream === null || this.failure !== null || this.settled) return;
    this.failure = new Error('the COPY was given up');
    stream.destroy(this.failure);
    await this.done?.catch(() => undefined);
  }

  private settled = false;

  private start(): Writable {
    const { from: copyFrom } = require('pg-copy-streams') as typeof import('pg-copy-streams');
    const stream = this.client.query(copyFrom(this.statement)) as unknown as Writable;
    active.set(this.client, this);
    this.done = new Promise<void>((resolve, reject) => {
      stream.on('finish', resolve);
      stream.on('error', (e) => {
        this.failure ??= asError(e);
        reject(asError(e));
      });
    }).finally(() => {
      this.settled = true;
      if (active.get(this.client) === this) active.delete(this.client);
    });
    this.done.catch(() => undefined); // reported by write(), ready() or end()
    return stream;
  }
}
