// dist/store/pg-copy.js
import { createRequire } from "node:module";
var require2 = createRequire(import.meta.url);
function asError(e) {
  return e instanceof Error ? e : new Error(String(e));
}
function pgLiteral(value) {
  return require2("pg").escapeLiteral(value);
}
var CopyIn = class {
  client;
  statement;
  stream = null;
  done = null;
  failure = null;
  draining = null;
  constructor(client, statement) {
    this.client = client;
    this.statement = statement;
  }
  /** Throw the COPY's failure, if it failed. */
  check() {
    if (this.failure !== null)
      throw this.failure;
  }
  /** Send `text` (whole CSV lines, as a string or bytes). Throws the COPY's failure, if it failed. */
  write(text) {
    this.check();
    const stream = this.stream ??= this.start();
    if (!stream.write(text)) {
      this.draining ??= new Promise((resolve, reject) => {
        const onDrain = () => {
          stream.off("error", onError);
          this.draining = null;
          resolve();
        };
        const onError = (e) => {
          stream.off("drain", onDrain);
          reject(asError(e));
        };
        stream.once("drain", onDrain);
        stream.once("error", onError);
      });
    }
  }
  /** Resolves when the stream can take more (undefined when it can now); rejects once it failed. */
  ready() {
    if (this.failure !== null)
      return Promise.reject(this.failure);
    return this.draining ?? void 0;
  }
  /** End the COPY and wait for the server. Whether anything was sent; throws the COPY's failure. */
  async end() {
    if (this.stream !== null) {
      this.stream.end();
      await this.done;
    }
    if (this.failure !== null)
      throw this.failure;
    return this.stream !== null;
  }
  start() {
    const { from: copyFrom } = require2("pg-copy-streams");
    const stream = this.client.query(copyFrom(this.statement));
    this.done = new Promise((resolve, reject) => {
      stream.on("finish", resolve);
      stream.on("error", (e) => {
        this.failure ??= asError(e);
        reject(asError(e));
      });
    });
    this.done.catch(() => void 0);
    return stream;
  }
};

export {
  pgLiteral,
  CopyIn
};
