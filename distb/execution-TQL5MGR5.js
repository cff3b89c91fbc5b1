import {
  verb
} from "./chunk-ZHXFIFOW.js";

// dist/cli/commands/collections/execution.js
async function executionRun({ ui, backend, id }) {
  const e = await (await backend()).getExecution(id);
  if (ui.json) {
    ui.printJson(e);
    return 0;
  }
  ui.keyValues([
    ["execution_id", e.execution_id],
    ["period_month", e.period_month],
    ["status", e.status],
    ["strategy", e.strategy],
    ["policies_queued", e.policies_queued],
    ["created_at", e.created_at],
    ["completed_at", e.completed_at],
    ["PAID_FULL", e.counts.PAID_FULL],
    ["PAID_PARTIAL", e.counts.PAID_PARTIAL],
    ["UNPAID", e.counts.UNPAID],
    ["CANCELLED", e.counts.CANCELLED]
  ]);
  return 0;
}
var execution_default = verb((deps, _flags, [id]) => ({ ...deps, id }), executionRun);
export {
  execution_default as default,
  executionRun
};
