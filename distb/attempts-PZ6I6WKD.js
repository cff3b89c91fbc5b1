import {
  writeDownload
} from "./chunk-X5LTGHGA.js";
import {
  checkFields,
  printList
} from "./chunk-RCUI2NJJ.js";
import {
  ATTEMPT_LIST
} from "./chunk-EDLGZEVV.js";
import "./chunk-QFVJLG6N.js";
import {
  checkPeriodOption
} from "./chunk-HUXLOL7T.js";
import "./chunk-IVFONV4X.js";
import "./chunk-MRLEVLPO.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import "./chunk-CXYRJJKB.js";
import {
  moneyToCents
} from "./chunk-MHVTT2HV.js";
import "./chunk-JX2JAKWC.js";
import {
  verb
} from "./chunk-ZHXFIFOW.js";
import "./chunk-RB5YZ7WD.js";
import "./chunk-7BKCKV6J.js";
import {
  usageError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/collections/attempts.js
function attemptsOptions(deps, flags) {
  const period = checkPeriodOption(flags.period);
  if (deps.globals.json && flags.fields !== void 0) {
    throw usageError("--json prints the export's JSON whole; to choose fields, use --format json --fields \u2026 (or --format csv).");
  }
  const fields = flags.fields === void 0 ? null : checkFields(flags.fields, ATTEMPT_LIST);
  return { ...deps, period, format: flags.format === "json" || flags.format === "table" ? flags.format : "csv", fields };
}
async function attemptsRun({ ctx, ui, backend, period, format, fields }) {
  if (format !== "table" && fields === null) {
    await writeDownload(ctx, await (await backend()).exportAttempts(period, format));
    return 0;
  }
  const download = await (await backend()).exportAttempts(period, "json");
  const chunks = [];
  for await (const c of download.body)
    chunks.push(typeof c === "string" ? Buffer.from(c) : Buffer.from(c));
  const body = moneyToCents(JSON.parse(Buffer.concat(chunks).toString("utf8")));
  const output = { format, fields };
  printList(ui, ATTEMPT_LIST, output, body.attempts, body);
  return 0;
}
var attempts_default = verb(attemptsOptions, attemptsRun);
export {
  attemptsOptions,
  attemptsRun,
  attempts_default as default
};
