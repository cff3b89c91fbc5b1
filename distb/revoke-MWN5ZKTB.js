import {
  revokeQuestion
} from "./chunk-KWEFP6XG.js";
import {
  askOrCancel,
  confirmMode
} from "./chunk-ICH5SV3J.js";
import "./chunk-V3ZTTVYI.js";
import "./chunk-CXYRJJKB.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";
import "./chunk-U6UK7MPY.js";

// dist/cli/commands/keys/revoke.js
async function revokeRun(opts) {
  const { ui, keyId } = opts;
  const admin = await opts.admin();
  if (confirmMode(opts) === "ask") {
    const keys = await admin.keys.list();
    const key2 = keys.find((k) => k.id === keyId.trim());
    if (key2 && key2.revoked_at === null) {
      const others = keys.filter((k) => k.client === key2.client && k.id !== key2.id && k.revoked_at === null).length;
      await askOrCancel(opts, revokeQuestion(key2, others));
    }
  }
  const { key, changed } = await admin.keys.revoke(keyId);
  if (ui.json)
    ui.printJson(key);
  else if (changed)
    ui.status(`Revoked key ${key.id} (${key.key}) of ${key.client}; requests with it are refused from now on.`);
  else
    ui.status(`Key ${key.id} (${key.key}) of ${key.client} was already revoked on ${key.revoked_at}.`);
  return 0;
}
var revoke_default = verb((deps, _flags, [keyId]) => ({ ...deps, keyId }), revokeRun);
export {
  revoke_default as default,
  revokeRun
};
