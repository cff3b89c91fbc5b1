import {
  showCollection
} from "./chunk-DSDBCVQQ.js";
import {
  money
} from "./chunk-RYOHSQ24.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";

// dist/cli/commands/collections/explain.js
async function explainRun({ ui, backend, id }) {
  const e = await (await backend()).explainCollection(id);
  if (ui.json) {
    ui.printJson(e);
    return 0;
  }
  showCollection(ui, e.collection);
  ui.line();
  ui.line(`Strategy: ${e.strategy}`);
  ui.line(`Income: ${e.income.description}`);
  if (e.income.next_income_dates.length > 0)
    ui.line(`Next income expected: ${e.income.next_income_dates.join(", ")}`);
  ui.line();
  if (e.attempts.length === 0)
    ui.line("No attempts yet.");
  for (const a of e.attempts) {
    const outcome = a.outcome === "SUCCESS" ? "collected" : `FAILED (${a.failure_reason})`;
    ui.line(`${a.date}  ${money(a.amount).padStart(10)}  ${outcome}`);
    ui.line(`            why: ${a.why}`);
  }
  for (const p of e.plan)
    ui.line(`Plan: ${p}`);
  ui.line();
  ui.line(e.summary);
  return 0;
}
var explain_default = verb((deps, _flags, [id]) => ({ ...deps, id }), explainRun);
export {
  explain_default as default,
  explainRun
};
