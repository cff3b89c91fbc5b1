import {
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/domain/idempotency.js
var MAX_GIVEN_KEY_LENGTH = 240;
function requestKey(base, n) {
  return n <= 1 ? base : `${base}:${n}`;
}
function checkGivenKey(key) {
  if (!/^[\x21-\x7e][\x20-\x7e]*$/.test(key) || key.length > MAX_GIVEN_KEY_LENGTH || /\s$/.test(key)) {
    throw validationError(`--idempotency-key must be 1-${MAX_GIVEN_KEY_LENGTH} printable ASCII characters without leading or trailing spaces.`);
  }
  return key;
}

export {
  requestKey,
  checkGivenKey
};
