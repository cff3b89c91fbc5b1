import {
  moneyText
} from "./chunk-RB5YZ7WD.js";

// dist/cli/output/format.js
var money = (cents) => cents === null || cents === void 0 ? "-" : moneyText(cents, true);
var percentOf = (part, whole) => `${whole === 0 ? "0.0" : (Math.round(part / whole * 1e3) / 10).toFixed(1)}%`;

export {
  money,
  percentOf
};
