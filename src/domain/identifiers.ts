/**
 * Identifier rules. policy_number, customer_id and external_customer_ref: 1–64 ASCII letters,
 * digits and `- _ . /`, not starting with `-`. product_code: 1–32 of `A-Z 0-9 _ -`, not
 * starting with `-`. Because no identifier can start with `= + - @`, no cell premia writes
 * into a CSV can be read as a formula by a spreadsheet.
 */

export interface IdentifierProblem {
  code: 'REQUIRED' | 'TOO_LONG' | 'INVALID_FORMAT';
  message: string;
}

export const IDENTIFIER_MAX = 64;
export const PRODUCT_CODE_MAX = 32;

/** The characters allowed, as regular-expression classes: the one definition of both rules. */
const IDENTIFIER_CHARS = 'A-Za-z0-9_./-';
const PRODUCT_CODE_CHARS = 'A-Z0-9_-';
const IDENTIFIER_RE = new RegExp(`^(?!-)[${IDENTIFIER_CHARS}]{1,${IDENTIFIER_MAX}}$`);
const PRODUCT_CODE_RE = new RegExp(`^(?!-)[${PRODUCT_CODE_CHARS}]{1,${PRODUCT_CODE_MAX}}$`);
const IDENTIFIER_CHAR_RE = new RegExp(`[${IDENTIFIER_CHARS}]`);
const PRODUCT_CODE_CHAR_RE = new RegExp(`[${PRODUCT_CODE_CHARS}]`);

/** Bits of ASCII_CHAR_CLASS. */
export const IDENTIFIER_CHAR = 1;
export const PRODUCT_CODE_CHAR = 2;

/**
 * The same rules as a table, for the policy import's fast path (one lookup per character of a
 * million rows): per ASCII code, IDENTIFIER_CHAR when the character may appear in an
 * identifier, PRODUCT_CODE_CHAR when in a product code. Neither may start with '-'.
 */
export const ASCII_CHAR_CLASS: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    table[c] = (IDENTIFIER_CHAR_RE.test(ch) ? IDENTIFIER_CHAR : 0) | (PRODUCT_CODE_CHAR_RE.test(ch) ? PRODUCT_CODE_CHAR : 0);
  }
  return table;
})();

/** null when valid. `what` names the field in the message. */
export function checkIdentifier(value: string, what: string): IdentifierProblem | null {
  if (IDENTIFIER_RE.test(value)) return null;
  if (SCIENTIFIC_RE.test(value)) {
    return {
      code: 'INVALID_FORMAT',
      message: `${what} '${value}' is a long number as a spreadsheet shows it, in scientific notation, which keeps only its first digits; format the column as text and copy the ids from their source again`,
    };
  }
  return describe(value, what, IDENTIFIER_MAX, IDENTIFIER_CHAR_RE, "letters, digits and - _ . /");
}

/**
 * An id of digits alone that a spreadsheet took for a number and saved as it shows one
 * (`1.23457E+11`, `4.51E+15`): the digits past the first few are gone. Said so: the '+' the
 * message would otherwise name is no typo, and without it the text passes for an id.
 */
const SCIENTIFIC_RE = /^\d(?:\.\d+)?E\+\d{1,3}$/i;

export function checkProductCode(value: string): IdentifierProblem | null {
  if (PRODUCT_CODE_RE.test(value)) return null;
  if (value !== '' && value.length <= PRODUCT_CODE_MAX && PRODUCT_CODE_RE.test(value.toUpperCase())) {
    return { code: 'INVALID_FORMAT', message: `product_code '${value}' must be upper case (A-Z 0-9 _ -)` };
  }
  return describe(value, 'product_code', PRODUCT_CODE_MAX, PRODUCT_CODE_CHAR_RE, 'A-Z, 0-9, _ and -');
}

/** A premia API key as `keys create` makes it: pmk_ and 40 letters and digits (anywhere in a text). */
const API_KEY_RE = /pmk_[A-Za-z0-9]{40}/;
/** The length of a key: a shorter text holds none. */
export const API_KEY_LENGTH = 44;

/**
 * Whether `text` holds a premia API key. A key pasted into a field that is stored (a policy
 * number, a column of the import mixed up, a dispute reason) would be kept in clear and answered
 * in every read and report afterwards, where premia keeps keys only as hashes.
 */
export function holdsApiKey(text: string): boolean {
  return text.length >= API_KEY_LENGTH && API_KEY_RE.test(text);
}

/** The problem of an identifier to be stored that holds an API key (never echoing it), or null. */
export function apiKeyProblem(value: string, what: string): IdentifierProblem | null {
  if (!holdsApiKey(value)) return null;
  return { code: 'INVALID_FORMAT', message: `${what} holds an API key (pmk_ and 40 letters and digits), a secret never stored as data; give the ${what} itself` };
}

/**
 * Policy numbers that are the name of an endpoint under /policies (POST /policies/import): a
 * policy so numbered could never be read or updated by its number (GET and PATCH
 * /policies/import answer 405), so it is refused when it is created or imported.
 */
const ENDPOINT_NAMES: readonly string[] = ['import'];

/** The problem of a policy number that names an endpoint under /policies, or null. */
export function endpointNameProblem(policyNumber: string): IdentifierProblem | null {
  if (policyNumber === '.' || policyNumber === '..') {
    // RFC 3986 5.2.4: clients remove dot segments (curl, fetch, browsers; %2E too), so
    // /policies/.. is sent as / and /policies/. as /policies/.
    return {
      code: 'INVALID_FORMAT',
      message: `policy_number '${policyNumber}' is a dot segment, which HTTP clients remove from a URL path, so GET and PATCH /policies/${policyNumber} could never reach this policy by its number; choose another number`,
    };
  }
  if (!ENDPOINT_NAMES.includes(policyNumber)) return null;
  return {
    code: 'INVALID_FORMAT',
    message: `policy_number '${policyNumber}' is the name of an endpoint (POST /policies/${policyNumber}), so GET and PATCH /policies/${policyNumber} could never reach this policy by its number; choose another number`,
  };
}

function describe(value: string, what: string, max: number, allowed: RegExp, allowedText: string): IdentifierProblem {
  if (value === '') return { code: 'REQUIRED', message: `${what} is required` };
  if (value.length > max) return { code: 'TOO_LONG', message: `${what} is ${value.length} characters long; at most ${max} are allowed` };
  if (value.startsWith('-')) return { code: 'INVALID_FORMAT', message: `${what} '${printable(value)}' must not start with '-'` };
  for (let i = 0; i < value.length; i++) {
    // Whole code points, so a character outside the BMP is named whole, not half a surrogate pair.
    const ch = String.fromCodePoint(value.codePointAt(i)!);
    if (!allowed.test(ch)) {
      return {
        code: 'INVALID_FORMAT',
        message: `${what} '${printable(value)}' has ${describeChar(ch)} at position ${i + 1}; only ${allowedText} are allowed`,
      };
    }
  }
  return { code: 'INVALID_FORMAT', message: `${what} '${printable(value)}' is not valid; only ${allowedText} are allowed` };
}

/**
 * Characters a terminal acts on or a reader cannot see: C0 and C1 controls, zero-width and
 * direction marks and overrides (all of Unicode's bidirectional controls: the Arabic letter mark
 * U+061C with U+200E-200F, U+202A-202E and U+2066-2069), the byte order mark, and the other
 * format characters that show nothing where a value is shown: the soft hyphen U+00AD (seen only
 * where a line breaks at it), the Mongolian vowel separator U+180E, the interlinear annotation
 * marks U+FFF9-FFFB, and the tag characters U+E0000-E007F (each an invisible copy of an ASCII
 * letter: "C1\u{e0031}" reads as "C1"); and Unicode's noncharacters (U+FDD0-FDEF and the last
 * two of every plane, U+FFFE-FFFF to U+10FFFE-10FFFF), never text, shown as nothing or a box.
 */
const NONCHARACTERS = Array.from({ length: 17 }, (_, plane) => `\\u{${(plane * 0x10000 + 0xfffe).toString(16)}}\\u{${(plane * 0x10000 + 0xffff).toString(16)}}`).join('');
const UNSEEN = new RegExp(
  `[\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2069\\ufdd0-\\ufdef\\ufeff\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}${NONCHARACTERS}]`,
  'gu',
);

let graphemes: Intl.Segmenter | undefined;

/** The characters of `text` as a person counts them: grapheme clusters (an emoji, a letter with its accents). */
export function characterCount(text: string): number {
  graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  let n = 0;
  for (const _ of graphemes.segment(text)) n++;
  return n;
}

/**
 * Whether `text` has more than `max` characters as characterCount counts them, reading no more
 * of a long text than it needs: segmenting costs microseconds a character, and a file of long
 * descriptions would take minutes. Where a grapheme ends depends only on the characters up to
 * it, so a prefix's boundaries before its own end are the text's: a prefix that holds more than
 * max + 1 of them settles it. Only a text of unusually long clusters (a letter under dozens of
 * accents) is counted whole.
 */
export function moreCharactersThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  const prefix = text.slice(0, (max + 2) * 8);
  if (prefix.length < text.length) {
    graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
    let n = 0;
    for (const _ of graphemes.segment(prefix)) if (++n > max + 1) return true;
  }
  return characterCount(text) > max;
}

/**
 * The first character of `text` (as characterCount counts them) made of more than `max` code
 * points, as its 1-based position, or 0 when there is none: a letter under hundreds of stacked
 * accents is one character to count, but no text anyone writes (Unicode's stream-safe text has at
 * most 30 accents on a letter). Reads at most the text's first `within` characters.
 */
export function overlongCharacter(text: string, max: number, within: number): number {
  if (text.length <= max) return 0;
  graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  let n = 0;
  for (const { segment } of graphemes.segment(text)) {
    if (++n > within) return 0;
    if (segment.length > max && [...segment].length > max) return n;
  }
  return 0;
}

/** A character's code point as U+XXXX. */
const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The first character of `text` a terminal acts on or a reader cannot see, as U+XXXX (null: none). */
export function firstUnseen(text: string): string | null {
  UNSEEN.lastIndex = 0;
  const bad = UNSEEN.exec(text);
  UNSEEN.lastIndex = 0;
  return bad ? codePoint(bad[0]) : null;
}

function describeChar(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (code < 32 || (code >= 0x7f && code <= 0x9f)) return `a control character (${codePoint(ch)})`;
  if (firstUnseen(ch) !== null) return `an invisible character (${codePoint(ch)})`;
  if (ch === ' ') return 'a space';
  // Another space (a no-break one, as a spreadsheet or a web page gives): shown as itself, it read
  // as "has ' '", a space, which the reader cannot tell from the one that would be named so.
  if (/\p{Zs}/u.test(ch)) return `${/[\u00a0\u2007\u202f]/.test(ch) ? 'a no-break space' : 'a space of another kind'} (${codePoint(ch)})`;
  return `'${ch}'`;
}

/**
 * `text` with its controls and invisible characters written as \\uXXXX, so that a terminal shows
 * them instead of acting on them; its line breaks kept when `keepLines` (a message of several lines).
 */
export function escapeUnseen(text: string, keepLines = false): string {
  return text.replace(UNSEEN, (c) => (keepLines && c === '\n' ? c : escapedCodePoint(c.codePointAt(0)!)));
}

/** A code point as JavaScript writes it in a string: \\uXXXX, or \\u{XXXXX} past U+FFFF. */
function escapedCodePoint(code: number): string {
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text safe to echo in an error message: controls and invisible characters escaped, long values cut. */
export function printable(value: string, max = 80): string {
  const s = escapeUnseen(value);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
