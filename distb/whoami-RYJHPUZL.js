import {
  isPostgresUrl,
  redactDbUrl
} from "./chunk-7L3A4ARV.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import {
  PremiaError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/whoami/whoami.js
import { existsSync } from "node:fs";
function isStoreNotFound(e) {
  return e instanceof PremiaError && (e.details ?? []).some((d) => d.code === "STORE_NOT_FOUND");
}
async function whoamiRun({ ctx, globals, ui, backend }) {
  const target = await ctx.target(globals);
  let noStore = target.mode === "local" && target.db !== ":memory:" && !isPostgresUrl(target.db) && !existsSync(target.db);
  const notCreated = { mode: "local", db: target.db, client: target.asClient ?? null };
  let described;
  if (noStore)
    described = notCreated;
  else {
    try {
      described = await (await backend()).describe();
    } catch (e) {
      if (!(target.mode === "local" && isPostgresUrl(target.db) && isStoreNotFound(e)))
        throw e;
      noStore = true;
      described = notCreated;
    }
  }
  const out = target.mode === "local" ? { mode: "local", db: redactDbUrl(described.db ?? target.db), client: described.client ?? null } : {
    mode: "remote",
    base_url: target.baseUrl,
    profile: target.profile,
    client: described.client ?? null,
    api_key: described.api_key ?? null,
    key_source: target.keySource ?? null,
    server_version: described.server_version ?? null
  };
  if (ui.json) {
    ui.printJson(out);
    return 0;
  }
  if (out.mode === "local") {
    ui.keyValues([
      ["mode", "local"],
      ["store", noStore ? `${out.db} (not created yet)` : out.db],
      ["client", out.client]
    ]);
  } else {
    ui.keyValues([
      ["mode", "remote"],
      ["url", out.base_url],
      ["profile", out.profile],
      ["client", out.client ?? "(this server does not say)"],
      ["api_key", `${out.api_key}${out.key_source ? ` (from ${out.key_source === "env" ? "PREMIA_API_KEY" : out.key_source === "flag" ? "--api-key" : "the profile"})` : ""}`],
      ["server", out.server_version ? `premia ${out.server_version}` : "another server implementing the spec"]
    ]);
  }
  return 0;
}
var whoami_default = verb((deps) => deps, whoamiRun);
export {
  whoami_default as default,
  whoamiRun
};
