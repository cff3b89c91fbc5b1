import {
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/cli/input.js
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { resolve } from "node:path";
async function openUpload(ctx, file) {
  if (file === "-")
    return { name: "stdin", stream: ctx.stdin };
  const path = resolve(ctx.cwd, file);
  let size;
  try {
    const info = await stat(path);
    if (info.isDirectory())
      throw validationError(`${file} is a directory; give a CSV file.`);
    size = info.size;
  } catch (e) {
    if (e.code === "ENOENT")
      throw validationError(`Cannot read ${file}: no such file.`);
    if (e.code === "EACCES")
      throw validationError(`Cannot read ${file}: permission denied.`);
    throw e;
  }
  const open = () => createReadStream(path, { highWaterMark: 1 << 20 });
  return { name: basename(path), stream: open(), size, reopen: open };
}

export {
  openUpload
};
