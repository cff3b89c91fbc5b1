import {
  showPolicy
} from "./chunk-4CXCTQFD.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";

// dist/cli/commands/policies/get.js
async function getRun({ ui, backend, ref }) {
  const policy = await (await backend()).getPolicy(ref);
  if (ui.json)
    ui.printJson(policy);
  else
    showPolicy(ui, policy);
  return 0;
}
var get_default = verb((deps, _flags, [ref]) => ({ ...deps, ref }), getRun);
export {
  get_default as default,
  getRun
};
