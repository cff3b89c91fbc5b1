// dist/domain/strategy-names.js
var STRATEGY_NAMES = ["smart", "naive", "oracle"];
var DEFAULT_STRATEGY = STRATEGY_NAMES[0];

export {
  STRATEGY_NAMES,
  DEFAULT_STRATEGY
};
