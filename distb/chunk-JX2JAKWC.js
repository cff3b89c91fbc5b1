// dist/domain/money.js
import { Decimal } from "decimal.js";

// dist/domain/identifiers.js
var IDENTIFIER_MAX = 64;
var PRODUCT_CODE_MAX = 32;
var IDENTIFIER_CHARS = "A-Za-z0-9_./-";
var PRODUCT_CODE_CHARS = "A-Z0-9_-";
var IDENTIFIER_RE = new RegExp(`^(?!-)[${IDENTIFIER_CHARS}]{1,${IDENTIFIER_MAX}}$`);
var PRODUCT_CODE_RE = new RegExp(`^(?!-)[${PRODUCT_CODE_CHARS}]{1,${PRODUCT_CODE_MAX}}$`);
var IDENTIFIER_CHAR_RE = new RegExp(`[${IDENTIFIER_CHARS}]`);
var PRODUCT_CODE_CHAR_RE = new RegExp(`[${PRODUCT_CODE_CHARS}]`);
var IDENTIFIER_CHAR = 1;
var PRODUCT_CODE_CHAR = 2;
var ASCII_CHAR_CLASS = (() => {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    table[c] = (IDENTIFIER_CHAR_RE.test(ch) ? IDENTIFIER_CHAR : 0) | (PRODUCT_CODE_CHAR_RE.test(ch) ? PRODUCT_CODE_CHAR : 0);
  }
  return table;
})();
function checkIdentifier(value, what) {
  if (IDENTIFIER_RE.test(value))
    return null;
  return describe(value, what, IDENTIFIER_MAX, IDENTIFIER_CHAR_RE, "letters, digits and - _ . /");
}
function checkProductCode(value) {
  if (PRODUCT_CODE_RE.test(value))
    return null;
  if (value !== "" && value.length <= PRODUCT_CODE_MAX && PRODUCT_CODE_RE.test(value.toUpperCase())) {
    return { code: "INVALID_FORMAT", message: `product_code '${value}' must be upper case (A-Z 0-9 _ -)` };
  }
  return describe(value, "product_code", PRODUCT_CODE_MAX, PRODUCT_CODE_CHAR_RE, "A-Z, 0-9, _ and -");
}
function describe(value, what, max, allowed, allowedText) {
  if (value === "")
    return { code: "REQUIRED", message: `${what} is required` };
  if (value.length > max)
    return { code: "TOO_LONG", message: `${what} is ${value.length} characters long; at most ${max} are allowed` };
  if (value.startsWith("-"))
    return { code: "INVALID_FORMAT", message: `${what} '${printable(value)}' must not start with '-'` };
  for (let i = 0; i < value.length; i++) {
    const ch = String.fromCodePoint(value.codePointAt(i));
    if (!allowed.test(ch)) {
      return {
        code: "INVALID_FORMAT",
        message: `${what} '${printable(value)}' has ${describeChar(ch)} at position ${i + 1}; only ${allowedText} are allowed`
      };
    }
  }
  return { code: "INVALID_FORMAT", message: `${what} '${printable(value)}' is not valid; only ${allowedText} are allowed` };
}
function describeChar(ch) {
  const code = ch.codePointAt(0);
  if (code < 32 || code === 127)
    return `a control character (U+${code.toString(16).toUpperCase().padStart(4, "0")})`;
  if (ch === " ")
    return "a space";
  return `'${ch}'`;
}
function printable(value, max = 80) {
  const s = value.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return s.length > max ? `${s.slice(0, max)}\u2026` : s;
}

// dist/domain/money.js
var Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
function asCents(n) {
  return n;
}
var MAX_PREMIUM_CENTS = 1e8;
var PLAIN_DECIMAL = /^\d+(\.\d+)?$/;
function parsePremiumWithDecimal(text) {
  const s = text.trim();
  const shown = printable(s, 40);
  const problem = classifyMalformedAmount(s);
  if (problem)
    return problem;
  const dot = s.indexOf(".");
  if (dot >= 0 && s.length - dot - 1 > 2) {
    return { code: "INVALID_AMOUNT", message: `'${shown}' has more than two decimals` };
  }
  const value = new Money(s);
  if (value.decimalPlaces() > 2) {
    return { code: "INVALID_AMOUNT", message: `'${shown}' has more than two decimals` };
  }
  if (value.isZero())
    return { code: "AMOUNT_OUT_OF_RANGE", message: `'${shown}' must be greater than 0.00` };
  if (value.greaterThan(new Money(MAX_PREMIUM_CENTS).dividedBy(100))) {
    return { code: "AMOUNT_OUT_OF_RANGE", message: `'${shown}' is above the maximum premium of 1000000.00` };
  }
  return value.times(100).toNumber();
}
function classifyMalformedAmount(s) {
  if (s === "")
    return { code: "REQUIRED", message: "is empty; give a premium like 149.50" };
  if (PLAIN_DECIMAL.test(s))
    return null;
  const shown = printable(s, 40);
  if (/^-\s*\d/.test(s))
    return { code: "AMOUNT_OUT_OF_RANGE", message: `'${shown}' is negative; it must be greater than 0.00` };
  if (/^[+-]?[\d.]*[eE][+-]?\d*$/.test(s)) {
    return { code: "INVALID_AMOUNT", message: `'${shown}' uses exponent notation; write a plain decimal like 149.50` };
  }
  if (/^\d{1,3}([, '\u00a0]\d{3})+(\.\d+)?$/.test(s)) {
    return { code: "INVALID_AMOUNT", message: `'${shown}' has a thousands separator; write it without one, like 1000.00` };
  }
  if (/^\d+,\d{1,2}$/.test(s)) {
    return { code: "INVALID_AMOUNT", message: `'${shown}' uses a decimal comma; use a decimal point, like 149.50` };
  }
  return { code: "INVALID_AMOUNT", message: `'${shown}' is not a number; give a premium like 149.50` };
}
function parsePremium(text) {
  const cents = plainPremiumCents(text, 0, text.length);
  return cents > 0 ? cents : parsePremiumWithDecimal(text);
}
function plainPremiumCents(text, start, end) {
  const n = end - start;
  if (n <= 0 || n > 10)
    return -1;
  let cents = 0;
  let i = start;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 46)
      break;
    if (c < 48 || c > 57)
      return -1;
    cents = cents * 10 + (c - 48);
  }
  const intDigits = i - start;
  if (intDigits === 0 || intDigits > 7)
    return -1;
  cents *= 100;
  if (i < end) {
    const decimals = end - i - 1;
    if (decimals < 1 || decimals > 2)
      return -1;
    const d1 = text.charCodeAt(i + 1) - 48;
    const d2 = decimals === 2 ? text.charCodeAt(i + 2) - 48 : 0;
    if (d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9)
      return -1;
    cents += d1 * 10 + d2;
  }
  if (cents === 0 || cents > MAX_PREMIUM_CENTS)
    return -1;
  return cents;
}
function premiumFromInput(value) {
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      return { code: "INVALID_AMOUNT", message: "must be a finite number like 149.50" };
    return parsePremium(String(value));
  }
  if (typeof value === "string")
    return parsePremium(value.trim());
  if (value === void 0 || value === null)
    return { code: "REQUIRED", message: "is required; give a premium like 149.50" };
  return { code: "INVALID_AMOUNT", message: "must be a number like 149.50" };
}
function parseSignedAmount(text) {
  const s = text.trim();
  const shown = printable(s, 40);
  if (s === "")
    return { code: "REQUIRED", message: "is empty" };
  const m = /^([+-]?)(\d+)(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) {
    if (/^[+-]?\d+\.\d{3,}$/.test(s))
      return { code: "INVALID_AMOUNT", message: `'${shown}' has more than two decimals` };
    return { code: "INVALID_AMOUNT", message: `'${shown}' is not a signed decimal amount like -1200.50` };
  }
  const value = new Money(s);
  if (value.abs().greaterThan(1e9))
    return { code: "AMOUNT_OUT_OF_RANGE", message: `'${shown}' is implausibly large for one transaction` };
  return value.times(100).toNumber();
}
function formatCents(cents) {
  if (!Number.isSafeInteger(cents))
    throw new RangeError(`not an integer number of cents: ${cents}`);
  const negative = cents < 0;
  const abs = negative ? -cents : cents;
  const whole = Math.floor(abs / 100);
  const frac = abs - whole * 100;
  return `${negative ? "-" : ""}${whole}.${frac < 10 ? "0" : ""}${frac}`;
}
function applyRate(cents, rate) {
  return new Money(cents).times(rate).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}
function centsFromJsonNumber(value, field) {
  if (typeof value === "number" && Number.isFinite(value)) {
    const d = new Money(String(value)).times(100);
    if (d.isInteger())
      return d.toNumber();
  }
  if (typeof value === "string" && /^-?\d+(\.\d{1,2})?$/.test(value))
    return new Money(value).times(100).toNumber();
  throw new TypeError(`${field} is not a money amount: ${JSON.stringify(value)}`);
}

export {
  IDENTIFIER_MAX,
  PRODUCT_CODE_MAX,
  IDENTIFIER_CHAR,
  PRODUCT_CODE_CHAR,
  ASCII_CHAR_CLASS,
  checkIdentifier,
  checkProductCode,
  printable,
  Money,
  asCents,
  parsePremium,
  plainPremiumCents,
  premiumFromInput,
  parseSignedAmount,
  formatCents,
  applyRate,
  centsFromJsonNumber
};
