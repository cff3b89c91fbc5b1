import {
  FIXTURE_FILES,
  fixturePath
} from "./chunk-XJXUFRAS.js";
import {
  outputDirectory,
  writeDownload
} from "./chunk-X5LTGHGA.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import {
  conflict
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/fixtures/copy.js
import { createReadStream } from "node:fs";
import { lstat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
async function copyRun({ ctx, ui, dir, replace }) {
  const target = resolve(ctx.cwd, dir);
  const where = { output: dir, option: "DIR" };
  await outputDirectory(target, where, true);
  const existing = [];
  for (const name of FIXTURE_FILES) {
    try {
      await lstat(join(target, name));
      existing.push(name);
    } catch {
    }
  }
  if (existing.length > 0 && !replace) {
    throw conflict("CONFLICT", `${dir} already holds ${existing.join(", ")}; nothing was copied. Run again with --force (or --yes) to replace ${existing.length === 1 ? "it" : "them"}, or choose another directory.`, existing.map((name) => ({ field: "DIR", code: "FILE_EXISTS", message: `${join(dir, name)} exists` })));
  }
  const written = [];
  for (const name of FIXTURE_FILES) {
    const out = await writeDownload(ctx, { filename: name, contentType: "text/csv; charset=utf-8", body: createReadStream(fixturePath(name)) }, join(target, name), void 0, "DIR");
    written.push(out.path);
  }
  const shown = written.map((p) => relative(ctx.cwd, p) || p);
  if (ui.json) {
    ui.printJson({ directory: target, files: written });
    return 0;
  }
  for (const p of shown)
    ui.line(p);
  const policies = shown[0].includes(" ") ? `'${shown[0]}'` : shown[0];
  ui.status(`Copied the fixtures into ${dir}. Next: premia policies import ${policies}`);
  return 0;
}
var copy_default = verb((deps, flags, [dir]) => ({ ...deps, dir, replace: flags.force === true || deps.globals.yes === true }), copyRun);
export {
  copyRun,
  copy_default as default
};
