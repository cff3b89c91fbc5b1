import {
  verb
} from "./chunk-ZHXFIFOW.js";
import {
  usageError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/keys/create.js
function createOptions(deps, flags) {
  const operator = flags.operator === true;
  if (flags.client === void 0 && !operator) {
    throw usageError("Say whose key it is: --client NAME for a client's key, or --operator for an operator key (with --client NAME it acts for that client).");
  }
  return { ...deps, client: flags.client === void 0 ? null : String(flags.client), role: operator ? "operator" : "client" };
}
async function createRun({ ui, admin, client, role }) {
  const created = await (await admin()).keys.create(client, role);
  if (ui.json)
    ui.printJson(created);
  else {
    ui.line(created.key);
    ui.status(created.role === "operator" ? `Created operator key ${created.id} (acts for client ${created.client}).` : `Created key ${created.id} for client ${created.client}.`);
    ui.status("Keep it secret and store it now: it is not shown again (only its last 4 characters are kept).");
  }
  return 0;
}
var create_default = verb(createOptions, createRun);
export {
  createOptions,
  createRun,
  create_default as default
};
