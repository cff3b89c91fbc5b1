// dist/lib/csv-writer.js
var NEEDS_QUOTES = /[",\r\n]/;
function csvCell(value) {
  if (value === null || value === void 0)
    return "";
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
function csvRow(cells) {
  let line = "";
  for (let i = 0; i < cells.length; i++) {
    if (i > 0)
      line += ",";
    const v = cells[i];
    line += typeof v === "number" ? String(v) : csvCell(v);
  }
  return `${line}
`;
}

export {
  csvCell,
  csvRow
};
