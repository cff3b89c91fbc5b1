import {
  moneyText
} from "./chunk-RB5YZ7WD.js";
import {
  count,
  plural
} from "./chunk-7BKCKV6J.js";

// dist/cli/output/live.js
var BAR_WIDTH = 20;
function bar(done, total, width = BAR_WIDTH) {
  const filled = total <= 0 ? width : Math.max(0, Math.min(width, Math.floor(width * done / total)));
  return `[${"\u2588".repeat(filled)}${"\u2591".repeat(width - filled)}]`;
}
function percent(done, total) {
  if (total <= 0 || done >= total)
    return 100;
  return Math.min(99, Math.max(0, Math.floor(100 * done / total)));
}
function advanceLine(index, total, date, attempts, collectedCents) {
  return `Day ${index} of ${total} (${date}) ${bar(index, total)} ${percent(index, total)}% \xB7 ${plural(attempts, "attempt")} \xB7 ${moneyText(collectedCents, true)} collected so far`;
}
function rowsPerSecond(rows, elapsedMs) {
  return elapsedMs < 1e3 ? null : Math.round(rows * 1e3 / elapsedMs);
}
var ImportProgressLine = class {
  name;
  size;
  shown = 0;
  constructor(name, size) {
    this.name = name;
    this.size = size;
  }
  line(rows, bytes, elapsedMs) {
    const rate = rowsPerSecond(rows, elapsedMs);
    const tail = `${plural(rows, "row")}${rate === null ? "" : ` \xB7 ${count(rate)} rows/s`}`;
    if (this.size === void 0 || this.size <= 0)
      return `Importing ${this.name}: ${tail}`;
    this.shown = Math.max(this.shown, Math.min(99, percent(bytes, this.size)));
    return `Importing ${this.name} ${bar(this.shown, 100)} ${this.shown}% \xB7 ${tail}`;
  }
};

export {
  advanceLine,
  ImportProgressLine
};
