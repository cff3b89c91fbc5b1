import {
  csvRow
} from "./chunk-QFVJLG6N.js";
import {
  moneyText
} from "./chunk-RB5YZ7WD.js";
import {
  usageError,
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/cli/output/list.js
function listOutput(flags, globals, spec) {
  if (globals.json && flags.format !== void 0 && flags.format !== "json") {
    throw usageError(`--json asks for the API's JSON body but --format ${flags.format} asks for ${flags.format}; give only one of them.`);
  }
  if (globals.json && flags.fields !== void 0) {
    throw usageError("--json prints the API's body whole; to choose fields, use --format json --fields \u2026 (or --format csv).");
  }
  const fields = flags.fields === void 0 ? null : checkFields(flags.fields, spec);
  return { format: flags.format ?? "table", fields };
}
function checkFields(text, spec) {
  const valid = spec.fields.map((f) => f.name);
  const names = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (names.length === 0)
    throw validationError(`--fields needs at least one field; the fields are: ${valid.join(", ")}.`, [{ field: "--fields", code: "REQUIRED", message: "no field named" }]);
  const unknown = names.filter((n) => !valid.includes(n));
  if (unknown.length > 0) {
    const which = unknown.length === 1 ? `'${unknown[0]}' is not a field` : `${unknown.map((u) => `'${u}'`).join(", ")} are not fields`;
    throw validationError(`--fields: ${which} of this list; the fields are: ${valid.join(", ")}.`, [
      { field: "--fields", code: "UNKNOWN_FIELD", message: `unknown: ${unknown.join(", ")}; valid: ${valid.join(", ")}` }
    ]);
  }
  return [...new Set(names)];
}
function printList(ui, spec, out, rows, apiBody) {
  if (ui.json) {
    ui.printJson(apiBody);
    return;
  }
  const byName = new Map(spec.fields.map((f) => [f.name, f]));
  const chosen = (out.fields ?? (out.format === "table" ? spec.table : spec.fields.map((f) => f.name))).map((n) => typeof n === "string" ? byName.get(n) : n);
  switch (out.format) {
    case "csv": {
      let text = csvRow(chosen.map((f) => f.name));
      for (const row of rows)
        text += csvRow(chosen.map((f) => csvValue(f, row)));
      ui.write(text);
      return;
    }
    case "json": {
      ui.printJson(rows.map((row) => Object.fromEntries(chosen.map((f) => [f.name, f.value(row) ?? null]))));
      return;
    }
    case "table": {
      const columns = chosen.map((f) => ({
        header: out.fields === null ? f.header ?? f.name : f.name,
        value: (row) => {
          const v = f.value(row);
          return typeof v === "boolean" ? v ? "yes" : "no" : v;
        },
        money: f.money === true,
        align: f.numeric === true ? "right" : "left"
      }));
      ui.table(columns, [...rows]);
    }
  }
}
function csvValue(f, row) {
  const v = f.value(row);
  if (v === null || v === void 0)
    return null;
  if (f.money && typeof v === "number")
    return moneyText(v, false);
  return String(v);
}

export {
  listOutput,
  checkFields,
  printList
};
