import {
  plural
} from "./chunk-7BKCKV6J.js";
import {
  ExitCode,
  PremiaError,
  usageError
} from "./chunk-U6UK7MPY.js";

// dist/cli/confirm.js
function confirmMode(env) {
  if (env.globals.yes === true)
    return "yes";
  return env.ctx.stdinIsTTY && env.ctx.stderrIsTTY ? "ask" : "unattended";
}
async function askOrCancel(env, q) {
  for (const line of q.details)
    env.ctx.stderr.write(`${line}
`);
  if (!await env.ctx.prompter.confirm(q.question))
    throw declined();
}
function declined() {
  return new PremiaError("CANCELLED", "Nothing changed.", { exitCode: ExitCode.CANCELLED });
}
function stopped(message) {
  return new PremiaError("CANCELLED", message, { exitCode: ExitCode.CANCELLED });
}
function needsYes(periods) {
  return usageError(`This advance would close ${plural(periods.length, "period")} for good (${periodList(periods)}). Without a terminal to ask on, premia closes more than one period at a time only when told to: add --yes. Nothing changed.`);
}
function periodList(periods) {
  if (periods.length <= 1)
    return periods.join("");
  if (periods.length <= 3)
    return `${periods.slice(0, -1).join(", ")} and ${periods[periods.length - 1]}`;
  return `${periods[0]}, ${periods[1]}, \u2026, ${periods[periods.length - 1]}`;
}

export {
  confirmMode,
  askOrCancel,
  declined,
  stopped,
  needsYes,
  periodList
};
