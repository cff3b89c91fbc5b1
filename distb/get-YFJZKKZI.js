import {
  showCollection
} from "./chunk-DSDBCVQQ.js";
import "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";

// dist/cli/commands/collections/get.js
async function getRun({ ui, backend, id }) {
  const c = await (await backend()).getCollection(id);
  if (ui.json)
    ui.printJson(c);
  else
    showCollection(ui, c);
  return 0;
}
var get_default = verb((deps, _flags, [id]) => ({ ...deps, id }), getRun);
export {
  get_default as default,
  getRun
};
