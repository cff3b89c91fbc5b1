import {
  PremiaError,
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/cli/output/download.js
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { constants, write as writeFd } from "node:fs";
import { lstat, mkdir, open, readlink, realpath, rename, rm, stat } from "node:fs/promises";
import { createConnection } from "node:net";
import { basename, dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
var NODE_FILES = { open };
var MAX_LINKS = 40;
async function writeDownload(ctx, download, output, files = NODE_FILES, option = "--output") {
  if (output === void 0 || output === "-")
    return { path: null, bytes: await toStream(ctx.stdout, download) };
  const named = resolve(ctx.cwd, output);
  let place = await placeOf(named, { output, option });
  let path = named;
  if (place.kind === "directory") {
    path = join(named, download.filename);
    place = await placeOf(path, { output, option });
    if (place.kind === "directory") {
      throw validationError(`Cannot write ${option} ${output}: ${path} is a directory. Give a file name, or remove the directory.`, [
        { field: option, code: "IS_A_DIRECTORY", message: `${path} is a directory` }
      ]);
    }
  }
  const where = { output, option };
  switch (place.kind) {
    case "file":
      return { path, bytes: await replaceFile(download, place.path, place.existing, files, where) };
    case "descriptor":
      return { path, bytes: await toDescriptor(ctx, download, place.fd, where) };
    case "through":
      return { path, bytes: await throughFile(download, place.path, where) };
    case "socket":
      return { path, bytes: await throughSocket(download, place.path, where) };
  }
}
async function outputDirectory(dir, where, create) {
  try {
    if ((await stat(dir)).isDirectory())
      return;
  } catch (e) {
    const code = e.code;
    if (code !== "ENOENT" && code !== "ENOTDIR")
      throw outputError(e, where, join(dir, "."));
    if (code === "ENOENT") {
      if (!create)
        return;
      try {
        await mkdir(dir, { recursive: true });
        return;
      } catch (e2) {
        if (e2.code !== "ENOTDIR" && e2.code !== "EEXIST")
          throw outputError(e2, where, join(dir, "."));
      }
    }
  }
  throw validationError(`Cannot write ${where.option} ${where.output}: ${dir} is not a directory (or lies under a file). Give a directory, or a path that does not exist yet.`, [
    { field: where.option, code: "NOT_A_DIRECTORY", message: `${dir} is not a directory` }
  ]);
}
async function placeOf(path, where) {
  let current = path;
  for (let hops = 0; ; hops++) {
    const fd = ownDescriptor(current);
    if (fd !== null)
      return { kind: "descriptor", fd };
    let dir;
    try {
      dir = await realpath(dirname(current));
    } catch (e) {
      throw outputError(e, where, current);
    }
    current = join(dir, basename(current));
    if (ownDescriptor(current) !== null)
      continue;
    let info;
    try {
      info = await lstat(current);
    } catch (e) {
      const code = e.code;
      if (code === "ENOENT")
        return { kind: "file", path: current, existing: null };
      throw outputError(e, where, current);
    }
    if (info.isSymbolicLink()) {
      if (hops >= MAX_LINKS) {
        throw validationError(`Cannot write ${where.option} ${where.output}: ${path} is a loop of symbolic links (or more than ${MAX_LINKS} of them).`, [
          { field: where.option, code: "SYMLINK_LOOP", message: `more than ${MAX_LINKS} symbolic links` }
        ]);
      }
      try {
        current = resolve(dir, await readlink(current));
      } catch (e) {
        throw outputError(e, where, current);
      }
      continue;
    }
    if (info.isFile())
      return { kind: "file", path: current, existing: info };
    if (info.isDirectory())
      return { kind: "directory", path: current };
    if (info.isSocket())
      return { kind: "socket", path: current };
    return { kind: "through", path: current };
  }
}
function ownDescriptor(path) {
  const std = /^\/dev\/(stdin|stdout|stderr)$/.exec(path);
  if (std)
    return ["stdin", "stdout", "stderr"].indexOf(std[1]);
  const fd = /^\/dev\/fd\/(\d+)$/.exec(path) ?? /^\/proc\/(?:self|thread-self|(\d+)(?:\/task\/\d+)?)\/fd\/(\d+)$/.exec(path);
  if (!fd)
    return null;
  if (fd.length === 2)
    return Number(fd[1]);
  if (fd[1] !== void 0 && Number(fd[1]) !== process.pid)
    return null;
  return Number(fd[2]);
}
async function toStream(stream, download) {
  let bytes = 0;
  for await (const chunk of download.body) {
    if (chunk.length === 0)
      continue;
    bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (!stream.write(chunk))
      await once(stream, "drain");
  }
  return bytes;
}
var writeToFd = promisify(writeFd);
async function toDescriptor(ctx, download, fd, where) {
  if (fd === 1)
    return toStream(ctx.stdout, download);
  if (fd === 2)
    return toStream(ctx.stderr, download);
  let bytes = 0;
  try {
    for await (const chunk of download.body) {
      const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let offset = 0;
      while (offset < buf.byteLength) {
        try {
          offset += (await writeToFd(fd, buf, offset, buf.byteLength - offset, null)).bytesWritten ?? 0;
        } catch (e) {
          if (e.code !== "EAGAIN")
            throw e;
          await new Promise((r) => setTimeout(r, 5));
        }
      }
      bytes += buf.byteLength;
    }
  } catch (e) {
    throw e instanceof PremiaError ? e : outputError(e, where, `descriptor ${fd}`, "through");
  }
  return bytes;
}
async function throughFile(download, path, where) {
  let file;
  try {
    file = await open(path, constants.O_WRONLY);
  } catch (e) {
    throw outputError(e, where, path);
  }
  let bytes = 0;
  try {
    for await (const chunk of download.body) {
      if (chunk.length === 0)
        continue;
      const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      await writeAll(file, buf);
      bytes += buf.byteLength;
    }
    await file.sync().catch(() => void 0);
  } catch (e) {
    throw e instanceof PremiaError ? e : outputError(e, where, path, "through");
  } finally {
    await file.close().catch(() => void 0);
  }
  return bytes;
}
async function throughSocket(download, path, where) {
  const socket = createConnection(path);
  let bytes = 0;
  try {
    await once(socket, "connect");
    for await (const chunk of download.body) {
      if (chunk.length === 0)
        continue;
      bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
      if (!socket.write(chunk))
        await once(socket, "drain");
    }
    socket.end();
    await once(socket, "close");
  } catch (e) {
    socket.destroy();
    throw e instanceof PremiaError ? e : outputError(e, where, path, "through");
  }
  return bytes;
}
async function replaceFile(download, target, existing, files, where) {
  const dir = dirname(target);
  const temp = join(dir, `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  let file;
  try {
    file = await files.open(temp, "wx", existing ? 384 : 438);
  } catch (e) {
    throw outputError(e, where, target);
  }
  let bytes = 0;
  try {
    if (existing) {
      await file.chown(existing.uid, existing.gid).catch((e) => {
        if (e.code !== "EPERM" && e.code !== "EINVAL")
          throw e;
      });
      await file.chmod(existing.mode & 4095);
    }
    for await (const chunk of download.body) {
      if (chunk.length === 0)
        continue;
      const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      bytes += buf.byteLength;
      await writeAll(file, buf);
    }
    await file.sync();
    const size = (await file.stat()).size;
    if (size !== bytes) {
      throw new Error(`the file holds ${size} bytes after writing ${bytes}`);
    }
    await file.close();
    file = void 0;
    await rename(temp, target);
  } catch (e) {
    if (file)
      await file.close().catch(() => void 0);
    await rm(temp, { force: true }).catch(() => void 0);
    throw e instanceof PremiaError ? e : outputError(e, where, target);
  }
  await syncDirectory(dir);
  return bytes;
}
async function writeAll(file, buf) {
  let offset = 0;
  while (offset < buf.byteLength) {
    const { bytesWritten } = await file.write(buf, offset, buf.byteLength - offset);
    if (!(bytesWritten > 0)) {
      throw Object.assign(new Error(`a write took no bytes at offset ${offset} of a ${buf.byteLength}-byte chunk`), { code: "EIO" });
    }
    offset += bytesWritten;
  }
}
async function syncDirectory(dir) {
  let handle;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
  } finally {
    await handle?.close().catch(() => void 0);
  }
}
function outputError(e, where, target, mode = "file") {
  const { output, option } = where;
  const code = e.code;
  const nothing = mode === "file" ? "; no file was written" : "";
  const detail = (c, message) => [{ field: option, code: c, message }];
  if (code === "ENOENT") {
    return validationError(`Cannot write ${option} ${output}: the directory ${dirname(target)} does not exist. Create it first or choose another path.`, detail("DIRECTORY_NOT_FOUND", `${dirname(target)} does not exist`));
  }
  if (code === "ENOTDIR") {
    return validationError(`Cannot write ${option} ${output}: ${dirname(target)} is not a directory.`, detail("NOT_A_DIRECTORY", `${dirname(target)} is not a directory`));
  }
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
    return validationError(`Cannot write ${option} ${output}: permission denied in ${dirname(target)}.`, detail("PERMISSION_DENIED", `cannot write in ${dirname(target)}`));
  }
  if (code === "ELOOP") {
    return validationError(`Cannot write ${option} ${output}: ${target} is a loop of symbolic links.`, detail("SYMLINK_LOOP", "a loop of symbolic links"));
  }
  if (code === "ENOSPC" || code === "EDQUOT") {
    return new PremiaError("INTERNAL", `Writing ${option} ${output} failed: no space left on the device of ${dirname(target)}${nothing}.`, { cause: e });
  }
  return new PremiaError("INTERNAL", `Writing ${option} ${output} failed (${e.message})${nothing}.`, { cause: e });
}

export {
  writeDownload,
  outputDirectory
};
