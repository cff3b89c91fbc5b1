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

  private start(): Writable {
    const { from: copyFrom } = require('pg-copy-streams') as typeof import('pg-copy-streams');
    const stream = this.client.query(copyFrom(this.statement)) as unknown as Writable;
    this.done = new Promise<void>((resolve, reject) => {
      stream.on('finish', resolve);
      stream.on('error', (e) => {
        this.failure ??= asError(e);
        reject(asError(e));
      });
    });
    this.done.catch(() => undefined); // reported by write(), ready() or end()
    return stream;
  }
}
