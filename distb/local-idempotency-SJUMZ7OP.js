import {
  OPERATION_LIST,
  buildRequest,
  requestHash
} from "./chunk-GR6SVUMH.js";
import {
  requestKey
} from "./chunk-7UDSVXC4.js";
import {
  moneyToCents,
  stringifyJson
} from "./chunk-MHVTT2HV.js";
import "./chunk-JX2JAKWC.js";
import {
  PremiaError,
  receivedCode
} from "./chunk-U6UK7MPY.js";

// dist/cli/local-idempotency.js
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
var JSON_TYPE = "application/json; charset=utf-8";
var IDEMPOTENT_WRITES = new Map(OPERATION_LIST.filter((row) => row.idempotent && row.backend !== null).map((row) => [row.backend, row]));
function withIdempotency(inner, baseKey, records, clientId, now) {
  let writes = 0;
  async function once(row, args, action) {
    const request = buildRequest(row, ...args);
    const key = requestKey(baseKey, ++writes);
    const path = `/v1${request.path}`;
    let file = null;
    if (request.upload)
      file = await identify(request.upload);
    try {
      const body = file ? null : JSON.parse(stringifyJson(request.json ?? null));
      const hash = requestHash(request.method, path, body, file?.sha256);
      const claim = await records.claim({ clientId, key, hash, method: request.method, path, now: now().getTime() });
      if (claim.kind === "replay")
        return replay(claim.response);
      const actual = file ? [file.upload, ...args.slice(1)] : args;
      let value;
      try {
        value = await action(actual);
      } catch (e) {
        await records.release(clientId, key).catch(() => false);
        throw e;
      }
      try {
        await records.complete(clientId, key, { status: request.status, contentType: JSON_TYPE, body: stringifyJson(value) });
      } catch (e) {
        await records.release(clientId, key).catch(() => false);
        throw e;
      }
      return value;
    } finally {
      await file?.remove?.();
    }
  }
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function")
        return value;
      const method = value;
      const row = typeof prop === "string" ? IDEMPOTENT_WRITES.get(prop) : void 0;
      if (!row)
        return method.bind(target);
      return (...args) => once(row, args, (actual) => method.apply(target, actual));
    }
  });
}
function replay(response) {
  const parsed = JSON.parse(response.body);
  if (response.status >= 400) {
    const error = parsed.error;
    throw new PremiaError(receivedCode(error.code), error.message, { status: response.status, details: error.details });
  }
  return moneyToCents(parsed);
}
async function identify(file) {
  if (file.reopen)
    return { upload: file, sha256: await sha256Of(file.reopen()) };
  return spool(file);
}
async function sha256Of(stream) {
  const hash = createHash("sha256");
  for await (const chunk of stream)
    hash.update(chunk);
  return hash.digest("hex");
}
async function spool(file) {
  const path = join(tmpdir(), `premia-stdin-${randomBytes(8).toString("hex")}`);
  const remove = () => rm(path, { force: true });
  const hash = createHash("sha256");
  let size = 0;
  try {
    await pipeline(Readable.from(file.stream), async function* (source) {
      for await (const chunk of source) {
        const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
        hash.update(buf);
        size += buf.length;
        yield buf;
      }
    }, createWriteStream(path, { flags: "wx", mode: 384 }));
  } catch (e) {
    await remove();
    throw e;
  }
  return {
    upload: { name: file.name, size, stream: createReadStream(path), reopen: () => createReadStream(path) },
    sha256: hash.digest("hex"),
    remove
  };
}
export {
  IDEMPOTENT_WRITES,
  withIdempotency
};
