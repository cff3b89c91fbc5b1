import {
  listOutput,
  printList
} from "./chunk-RCUI2NJJ.js";
import {
  configPath,
  readConfig,
  redactKey
} from "./chunk-TQX5C6XS.js";
import {
  PROFILE_LIST
} from "./chunk-EDLGZEVV.js";
import "./chunk-QFVJLG6N.js";
import "./chunk-MRLEVLPO.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import "./chunk-CXYRJJKB.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";
import "./chunk-U6UK7MPY.js";

// dist/cli/commands/profiles/profiles.js
async function profilesRun({ ctx, globals, ui, output }) {
  const path = configPath(ctx.env);
  const config = path === null ? { profiles: {} } : await readConfig(path);
  const names = Object.keys(config.profiles).sort();
  const current = names.length === 0 ? null : (await ctx.target(globals)).profile;
  const rows = names.map((name) => {
    const p = config.profiles[name];
    return { name, current: name === current, base_url: p.base_url, client: p.client ?? null, api_key: redactKey(p.api_key) ?? "\u2026" };
  });
  if (!ui.json && output.format === "table" && rows.length === 0) {
    ui.status(`No saved profiles${path ? ` in ${path}` : ""}; save one with 'premia login --base-url URL'.`);
    return 0;
  }
  printList(ui, PROFILE_LIST, output, rows, { current, profiles: rows });
  if (!ui.json && output.format === "table" && current === null) {
    ui.status(`None is in use: the commands run in local mode${globals.db !== void 0 || ctx.env.PREMIA_DB ? " (--db or PREMIA_DB)" : ""}.`);
  }
  return 0;
}
var profiles_default = verb((deps, flags) => ({ ...deps, output: listOutput(flags, deps.globals, PROFILE_LIST) }), profilesRun);
export {
  profiles_default as default,
  profilesRun
};
