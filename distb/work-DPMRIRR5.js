import {
  redactDbUrl
} from "./chunk-7L3A4ARV.js";
import {
  isIsoDate
} from "./chunk-CXYRJJKB.js";
import {
  catchCtrlC
} from "./chunk-XJNWV2JP.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import {
  usageError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/engine/work.js
function workOptions(deps, flags) {
  const until = flags.until?.trim();
  if (until !== void 0 && !isIsoDate(until))
    throw usageError(`--until must be a date written YYYY-MM-DD; got '${String(until).slice(0, 40)}'.`);
  return { ...deps, until };
}
async function workRun({ ctx, ui, admin, until }) {
  const a = await admin();
  const ctrlC = catchCtrlC(ctx, () => ui.status("Ctrl-C: stopping after the shard in progress (press Ctrl-C again to quit at once)."));
  const term = () => ctx.signals.emit("SIGINT");
  ctx.signals.on("SIGTERM", term);
  const start = () => ui.status(`Working on the days of ${redactDbUrl(a.storePath)}${until ? ` until ${until}` : ""}; Ctrl-C stops after the shard in progress.`);
  let lived = 0;
  try {
    lived = await a.engine.work({ until, signal: ctrlC.signal, onStart: start, onShard: () => lived++ });
  } finally {
    ctrlC.release();
    ctx.signals.removeListener("SIGTERM", term);
  }
  if (ui.json)
    ui.printJson({ shards: lived, stopped: ctrlC.signal.aborted });
  else
    ui.status(`Lived ${lived} ${lived === 1 ? "shard" : "shards"}${ctrlC.signal.aborted ? "; stopped by Ctrl-C" : ""}.`);
  return ctrlC.signal.aborted ? 130 : 0;
}
var work_default = verb(workOptions, workRun);
export {
  work_default as default,
  workOptions,
  workRun
};
