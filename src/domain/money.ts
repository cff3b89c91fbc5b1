/**
 * Money: integer cents wherever an amount is stored or summed. decimal.js parses text,
 * applies rates and rounds (half-up, to cents). One formatter writes two decimals.
 *
 * Amounts stay well inside Number.MAX_SAFE_INTEGER: a million policies at the largest
 * premium (1,000,000.00) sum to 1e14 cents.
 */
import { Decimal } from 'decimal.js';
import { printable } from './identifiers.js';
import { showValue } from './show.js';

/** Decimal configured for money: half-up rounding ("away from zero" at .5). */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type MoneyDecimal = InstanceType<typeof Money>;

/**
 * An amount of money in integer cents. Branded, so the compiler tells an amount from a count,
 * a day number or an id (a number is not Cents until something says it is), at no cost at run
 * time: it is a plain number. Sums and differences of Cents are numbers again; `asCents` says
 * that a number computed from Cents, or read where the store keeps cents, is an amount.
 */
export type Cents = number & { readonly __brand: 'Cents' };

/** This number is an amount in cents (a cast: no check, no cost). */
export function asCents(n: number): Cents {
  return n as Cents;
}

export const MAX_PREMIUM_CENTS = 100_000_000 as Cents; // 1,000,000.00

/** Why an amount is refused. `message` reads after the field name: `collection_amount ${message}`. */
export interface AmountProblem {
  code: 'REQUIRED' | 'INVALID_AMOUNT' | 'AMOUNT_OUT_OF_RANGE' | 'INVALID_TYPE';
  message: string;
}

const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

/**
 * Parse a premium written as text (`149.5`, `149.50`, `1000`) into cents, with decimal.js.
 * Returns the cents, or the problem that makes the text unacceptable.
 */
export function parsePremiumWithDecimal(text: string): Cents | AmountProblem {
  const s = text.trim();
  const shown = printable(s, 40);
  const problem = classifyMalformedAmount(s);
  if (problem) return problem;
  // Decimals as written: decimal.js drops trailing zeros, so 149.500 would pass for 149.5.
  const dot = s.indexOf('.');
  if (dot >= 0 && s.length - dot - 1 > 2) {
    return { code: 'INVALID_AMOUNT', message: `'${shown}' has more than two decimals` };
  }
  const value = new Money(s);
  if (value.decimalPlaces() > 2) {
    return { code: 'INVALID_AMOUNT', message: `'${shown}' has more than two decimals` };
  }
  if (value.isZero()) return { code: 'AMOUNT_OUT_OF_RANGE', message: `'${shown}' must be greater than 0.00` };
  if (value.greaterThan(new Money(MAX_PREMIUM_CENTS).dividedBy(100))) {
    return { code: 'AMOUNT_OUT_OF_RANGE', message: `'${shown}' is above the maximum premium of 1000000.00` };
  }
  return value.times(100).toNumber() as Cents;
}

/** Describe why a trimmed amount text is not a plain positive decimal, or null when it is one. */
function classifyMalformedAmount(s: string): AmountProblem | null {
  if (s === '') return { code: 'REQUIRED', message: 'is empty; give a premium like 149.50' };
  if (PLAIN_DECIMAL.test(s)) return null;
  const shown = printable(s, 40);
  if (/^-\s*\d/.test(s)) return { code: 'AMOUNT_OUT_OF_RANGE', message: `'${shown}' is negative; it must be greater than 0.00` };
  // A plus sign, or a currency beside the number (R100.00, 100 ZAR): a number, written as no premium is.
  const dash = otherDash(s);
  if (dash) return { code: 'INVALID_AMOUNT', message: `'${shown}' begins with '${dash.dash}' (${dash.codePoint}), a minus sign or dash; write the premium without a sign, like 149.50` };
  if (/^\+\s*\d+(\.\d+)?$/.test(s)) return { code: 'INVALID_AMOUNT', message: `'${shown}' has a plus sign; write the premium without a sign, like 149.50` };
  // Negative as accounts write it (a spreadsheet's accounting format): said so, as '-150.00' is.
  if (/^\(\s*\d+(?:[.,]\d+)?\s*\)$/.test(s)) return { code: 'AMOUNT_OUT_OF_RANGE', message: `'${shown}' is in brackets, a negative amount; it must be greater than 0.00` };
  if (/^\d+(?:[.,]\d+)?\s*-$/.test(s)) return { code: 'AMOUNT_OUT_OF_RANGE', message: `'${shown}' has a minus sign after the number, a negative amount; it must be greater than 0.00` };
  if (/^\d+(?:[.,]\d+)?\s*\+$/.test(s)) return { code: 'INVALID_AMOUNT', message: `'${shown}' has a plus sign after the number; write the premium without a sign, like 149.50` };
  if (/^(?:(?:\p{Sc}|\p{Lu}{1,3})\s*\d+(?:\.\d+)?|\d+(?:\.\d+)?\s*(?:\p{Sc}|\p{Lu}{1,3}))$/u.test(s)) {
    return { code: 'INVALID_AMOUNT', message: `'${shown}' has a currency or other sign beside the number; write the number alone, like 149.50` };
  }
  if (/^[+-]?[\d.]*[eE][+-]?\d*$/.test(s)) {
    return { code: 'INVALID_AMOUNT', message: `'${shown}' uses exponent notation; write a plain decimal like 149.50` };
  }
  const local = spreadsheetNumberProblem(s, '', { grouped: '1000.00', comma: '149.50' });
  if (local) return { code: 'INVALID_AMOUNT', message: `'${shown}' ${local}` };
  return { code: 'INVALID_AMOUNT', message: `'${shown}' is not a number; give a premium like 149.50` };
}

/**
 * Parse a premium from text into cents. The common case (digits, an optional point and one
 * or two decimals) is decided by integer arithmetic on character codes, which is exact and
 * fast enough for million-row imports; everything else goes through the decimal.js parser,
 * which also words the problem. A property test holds both paths to the same answers.
 */
export function parsePremium(text: string): Cents | AmountProblem {
  const cents = text.length <= PLAIN_MAX ? plainPremiumCents(premiumCodes(text), 0, text.length) : -1;
  return cents > 0 ? (cents as Cents) : parsePremiumWithDecimal(text);
}

/** The longest plain premium: 7 integer digits, a point and 2 decimals. */
const PLAIN_MAX = 10;
const codes = new Uint8Array(PLAIN_MAX);

/** A short text's character codes for plainPremiumCents, any code above ASCII as 0 (no digit). */
function premiumCodes(text: string): Uint8Array {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    codes[i] = c < 128 ? c : 0;
  }
  return codes;
}

/**
 * The fast path of parsePremium on the character codes `text[start, end)` (the policy import
 * reads its rows as bytes): the cents of a plain premium (at most 7 integer digits, an optional
 * point with 1–2 decimals, above 0 and at most the maximum), or -1 for anything else, which
 * parsePremium then accepts or words through decimal.js.
 */
export function plainPremiumCents(text: Uint8Array, start: number, end: number): number {
  const n = end - start;
  if (n <= 0 || n > PLAIN_MAX) return -1;
  let cents = 0;
  let i = start;
  for (; i < end; i++) {
    const c = text[i]!;
    if (c === 46 /* . */) break;
    if (c < 48 || c > 57) return -1;
    cents = cents * 10 + (c - 48);
  }
  const intDigits = i - start;
  if (intDigits === 0 || intDigits > 7) return -1;
  cents *= 100;
  if (i < end) {
    const decimals = end - i - 1;
    if (decimals < 1 || decimals > 2) return -1;
    const d1 = text[i + 1]! - 48;
    const d2 = decimals === 2 ? text[i + 2]! - 48 : 0;
    if (d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9) return -1;
    cents += d1 * 10 + d2;
  }
  if (cents === 0 || cents > MAX_PREMIUM_CENTS) return -1;
  return cents;
}

/**
 * A premium sent as a JSON number (the API: `from` 'json') or a string (a CLI flag: 'text').
 * JSON numbers are read through their shortest text form, so 149.5 is 149.50 and 0.1 + 0.2 is
 * refused as having too many decimals rather than silently rounded. The API's amount is a
 * number (spec 4.1, 4.3): a JSON string is refused there, as a number is for a text field.
 */
export function premiumFromInput(value: unknown, from: 'json' | 'text' = 'text'): Cents | AmountProblem {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { code: 'INVALID_AMOUNT', message: 'must be a finite number like 149.50' };
    // String() gives the shortest text that reads back as this number, in exponent form from
    // 1e21 and below 1e-6: written out, so the value is judged (above the maximum, too many
    // decimals) and named as a plain decimal, as the client may well have sent it.
    const text = String(value);
    return parsePremium(/e/i.test(text) ? new Money(text).toFixed() : text);
  }
  if (typeof value === 'string') {
    if (from === 'json') return { code: 'INVALID_TYPE', message: `must be a JSON number like 149.50, not a string (got ${showValue(value)})` };
    return parsePremium(value.trim());
  }
  if (value === undefined || value === null) return { code: 'REQUIRED', message: 'is required; give a premium like 149.50' };
  // The wrong JSON type (true, a list, an object), as a string is: INVALID_TYPE, saying what came.
  const kind = typeof value === 'boolean' ? `a boolean (got ${String(value)})` : Array.isArray(value) ? 'a list' : 'an object';
  return { code: 'INVALID_TYPE', message: `must be a JSON number like 149.50, not ${kind}` };
}

/**
 * The most money one account's imported statement may move in all (the sum of its rows' amounts,
 * either way), in cents: 10,000,000,000,000.00. Any balance of the account then stays an exact
 * integer of cents, far inside Number.MAX_SAFE_INTEGER (~90,071,992,547,409.91).
 */
export const MAX_ACCOUNT_TURNOVER = 1_000_000_000_000_000;

/** A signed amount with at most two decimals (bank transactions): `-1200.5`, `0`, `15000.00`. */
export function parseSignedAmount(text: string): Cents | AmountProblem {
  const s = text.trim();
  const shown = printable(s, 40);
  if (s === '') return { code: 'REQUIRED', message: 'is empty' };
  const m = /^([+-]?)(\d+)(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) {
    if (/^[+-]?\d+\.\d{3,}$/.test(s)) return { code: 'INVALID_AMOUNT', message: `'${shown}' has more than two decimals` };
    // As a premium's problems are worded (classifyMalformedAmount), the sign aside.
    const unsigned = s.replace(/^[+-]/, '');
    const local = spreadsheetNumberProblem(unsigned, s.startsWith('-') ? '-' : '', { grouped: '-1200.50', comma: '-1200.50' });
    if (local) return { code: 'INVALID_AMOUNT', message: `'${shown}' ${local}` };
    if (/^[\d.]*[eE][+-]?\d*$/.test(unsigned)) return { code: 'INVALID_AMOUNT', message: `'${shown}' uses exponent notation; write a plain decimal like -1200.50` };
    // A minus written with another dash (U+2212, as typeset text and some exports write it; an en
    // dash, as a word processor turns '-' into): said so, not taken for a currency sign.
    const dash = otherDash(s);
    if (dash) return { code: 'INVALID_AMOUNT', message: `'${shown}' begins with '${dash.dash}' (${dash.codePoint}), not the minus sign '-'; write it -${dash.digits}` };
    // As other banks' statements write money out: a sign after the number, accounting brackets, a currency.
    const NUMBER = /\d+(?:[.,]\d+)?/.source;
    if (new RegExp(`^${NUMBER}\\s*[+-]$`).test(s)) return { code: 'INVALID_AMOUNT', message: `'${shown}' has its sign after the number; write it before, like -1200.50` };
    if (new RegExp(`^\\(\\s*${NUMBER}\\s*\\)$`).test(s)) {
      return { code: 'INVALID_AMOUNT', message: `'${shown}' is in brackets; write money out with a minus sign, like -1200.50` };
    }
    if (new RegExp(`^${NUMBER}\\s*(?:CR|DR)$`, 'i').test(s)) {
      return { code: 'INVALID_AMOUNT', message: `'${shown}' says credit or debit in words; write money in as it is and money out with a minus sign, like -1200.50` };
    }
    if (/^[+-]?\s*(?:[^\d\s.,+-]{1,3}\s*[+-]?\s*[\d.,]+|[\d.,]+\s*[^\d\s.,+-]{1,3})$/u.test(s)) {
      return { code: 'INVALID_AMOUNT', message: `'${shown}' has a currency or other sign beside the number; write the number alone, like -1200.50` };
    }
    return { code: 'INVALID_AMOUNT', message: `'${shown}' is not a signed decimal amount like -1200.50` };
  }
  const value = new Money(s);
  if (value.abs().greaterThan(1_000_000_000)) {
    return { code: 'AMOUNT_OUT_OF_RANGE', message: `'${shown}' is beyond the most one transaction may move, 1000000000.00 either way` };
  }
  return value.times(100).toNumber() as Cents;
}

/** An amount written as a spreadsheet formats money where premia reads a plain decimal (spreadsheetNumber). */
export interface SpreadsheetNumber {
  /** Its thousands grouped. */
  grouped: boolean;
  /** A comma for the decimal point. */
  decimalComma: boolean;
  /** The plain decimal it stands for (`1234.50`). */
  plain: string;
}

/**
 * An unsigned number written as a spreadsheet formats money: its thousands grouped by a comma, a
 * space (a no-break one, or French Excel's narrow no-break space U+202F, or a thin one) or an
 * apostrophe (Swiss: `1'234.50`, `1’234.50`) with a decimal point; or grouped by a point, a space
 * or an apostrophe with a decimal comma (`1.234,50`, `1 234,50`); or a decimal comma alone
 * (`149,50`). Null for any other text. One home for these forms: an amount's message
 * (spreadsheetNumberProblem) and a CSV row its commas split (row-errors.ts) both read them here.
 */
export function spreadsheetNumber(unsigned: string): SpreadsheetNumber | null {
  if (/^\d{1,3}(?:[. '\u00a0\u202f\u2009\u2019]\d{3})+,\d{1,2}$/.test(unsigned)) {
    return { grouped: true, decimalComma: true, plain: unsigned.replace(/[^\d,]/g, '').replace(',', '.') };
  }
  if (/^\d{1,3}(?:[, '\u00a0\u202f\u2009\u2019]\d{3})+(?:\.\d+)?$/.test(unsigned)) return { grouped: true, decimalComma: false, plain: unsigned.replace(/[^\d.]/g, '') };
  if (/^\d+,\d{1,2}$/.test(unsigned)) return { grouped: false, decimalComma: true, plain: unsigned.replace(',', '.') };
  return null;
}

/**
 * What is wrong with an unsigned amount written as a spreadsheet formats money (spreadsheetNumber):
 * with both a grouping and a decimal comma, the number as it should be written (`sign` before
 * it); else the examples `like` gives. Null for any other text.
 */
function spreadsheetNumberProblem(unsigned: string, sign: string, like: { grouped: string; comma: string }): string | null {
  const n = spreadsheetNumber(unsigned);
  if (n === null) return null;
  if (n.grouped && n.decimalComma) return `has a thousands separator and a decimal comma; write it as ${sign}${n.plain}`;
  return n.grouped ? `has a thousands separator; write it without one, like ${like.grouped}` : `uses a decimal comma; use a decimal point, like ${like.comma}`;
}

/** Exactly two decimals: 14950 → "149.50", -5 → "-0.05". */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not an integer number of cents: ${cents}`);
  const negative = cents < 0;
  const abs = negative ? -cents : cents;
  const whole = Math.floor(abs / 100);
  const frac = abs - whole * 100;
  return `${negative ? '-' : ''}${whole}.${frac < 10 ? '0' : ''}${frac}`;
}

/** cents × rate, rounded half-up to whole cents. */
/**
 * A number written after a dash that is not '-' (U+2212 as typeset text writes a minus, an en
 * dash as a word processor turns '-' into): the dash, its code point (U+2212) and the digits.
 */
function otherDash(s: string): { dash: string; codePoint: string; digits: string } | null {
  const m = /^([\u2010-\u2015\u2212\ufe63\uff0d])\s*(\d+(?:\.\d+)?)$/.exec(s);
  return m ? { dash: m[1]!, codePoint: `U+${m[1]!.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`, digits: m[2]! } : null;
}

export function applyRate(cents: number, rate: MoneyDecimal | string): Cents {
  return new Money(cents).times(rate).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber() as Cents;
}

/** The most a number may be off a whole cent and still be read as that cent (float noise): 0.05 cents. */
const NOISE_CAP_CENTS = 0.05;

/**
 * Whether the shortest text of a double (String(value)) can be the last digits of binary floating
 * point: it has more than 15 significant digits. A double gives back every decimal of at most 15
 * significant digits as written, so a shorter text is exactly what was sent.
 */
function isFloatNoise(text: string): boolean {
  const mantissa = text.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '');
  return mantissa.length > 15;
}

/**
 * Read a money value from the API's JSON (a number with up to two decimals) into cents. With
 * `floatNoise` (another server's answers), a number that is a whole number of cents but for the
 * last digits of binary floating point (149.5 - 50.3 sent as 99.19999999999999) is that number of
 * cents: within a millionth of a cent, or a millionth of a millionth of the amount, and never as
 * much as a twentieth of a cent. Such noise only shows past the 15th significant digit: a number
 * whose shortest text has at most 15 is the decimal the server wrote, exactly, so a real third
 * decimal (356.3125, or 5000000000.125 where a millionth of a millionth is half a cent) is
 * refused either way, never rounded on the client.
 */
export function centsFromJsonNumber(value: unknown, field: string, floatNoise = false): Cents {
  // A JSON number reaches premia as a double, which gives back every decimal of at most 15
  // significant digits as written: amounts below 10^13 (10^15 cents). Beyond, a number may have
  // changed on the way (90071992547409.91 parses as ….9, and 1e400 as Infinity), and cents beyond
  // 2^53 are not held exactly at all: refused as what was sent, never read as another amount.
  const limit = typeof value === 'number' ? 999_999_999_999_999 : Number.MAX_SAFE_INTEGER;
  const exact = (d: MoneyDecimal): Cents => {
    if (!d.abs().lte(limit)) throw new TypeError(`${field} is too large an amount to read to the cent: ${typeof value === 'number' ? String(value) : JSON.stringify(value)}`);
    return d.toNumber() as Cents;
  };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return exact(new Money(Infinity));
    const d = new Money(String(value)).times(100);
    if (d.isInteger()) return exact(d);
    const whole = d.toDecimalPlaces(0);
    if (floatNoise && isFloatNoise(String(value)) && d.minus(whole).abs().lte(Money.min(d.abs().times(1e-12).plus(1e-6), NOISE_CAP_CENTS))) return exact(whole);
  }
  if (typeof value === 'string' && /^-?\d+(\.\d{1,2})?$/.test(value)) return exact(new Money(value).times(100));
  throw new TypeError(`${field} is not a money amount: ${JSON.stringify(value)}`);
}
