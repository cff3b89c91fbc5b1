/**
 * Duplicate keys in a JSON body. JSON.parse keeps the last of two equal keys; for money and
 * identity fields that is a guess premia will not make (`{"policy_number":"J-7","policy_number":"J-8"}`
 * is ambiguous), so the server refuses such a body, naming the key.
 */
import type { FastifyInstance } from 'fastify';
import { Decimal } from 'decimal.js';
import { validationError, type PremiaError } from '../domain/errors.js';

/**
 * JSON bodies: fastify's parser (prototype-poisoning refused, the body limit kept), plus rules of
 * ours: an empty body (or one of whitespace alone) is no body (so an optional body may be left
 * out even with a JSON Content-Type), a key given twice in one object is refused rather than resolved last-wins, so
 * is a number JSON.parse cannot read exactly, and so is a body nested deeper than MAX_JSON_DEPTH.
 */
export function useJsonParser(app: FastifyInstance): void {
  const defaultJson = app.getDefaultJsonParser('error', 'error'); // fastify's defaults: __proto__ and constructor.prototype refused
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const text = utf8Text(body as Buffer);
    if (text === null) return done(notUtf8Error(), undefined);
    // Nothing but JSON's whitespace (a lone newline a client's template left) is no body too.
    if (/^[ \t\n\r]*$/.test(text)) {
      done(null, undefined);
      return;
    }
    void defaultJson(request, text, (err: Error | null, value?: unknown) => {
      // fastify words both alike: valid JSON refused by the parser is the prototype guard.
      if (err) {
        const syntax = jsonSyntaxError(text);
        return done(syntax === null ? forbiddenKeyError() : invalidJsonError(text, syntax), undefined);
      }
      // Before anything walks the value (the key scan, validation, the idempotency hash).
      const depth = jsonDepth(text);
      if (depth > MAX_JSON_DEPTH) return done(tooDeepError(depth), undefined);
      const problem = bodyProblem(text);
      if (problem !== null) return done(problem, undefined);
      const loneAt = loneSurrogatePath(value);
      if (loneAt !== null) return done(loneSurrogateError(loneAt), undefined);
      done(null, value);
    });
  });
}

/**
 * A JSON body's text: its bytes read as UTF-8 (RFC 8259: JSON between systems is UTF-8; a
 * charset parameter does not change that), a leading BOM dropped; null when they are not UTF-8.
 * Reading them leniently would store U+FFFD in place of what was sent (a Latin-1 'é' in a
 * dispute reason), as the CSV import, which refuses such a file, never does.
 */
function utf8Text(bytes: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Half of a UTF-16 surrogate pair standing alone: no character, and not storable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The path of the first string of a parsed JSON body (a value or a key) holding a lone
 * surrogate, written as an escape (`"\ud800"`): valid JSON, but no text. The store would keep
 * U+FFFD in its place, so what was answered and what is read back later would differ. Null
 * when there is none. `value` is at most MAX_JSON_DEPTH deep (checked before).
 */
function loneSurrogatePath(value: unknown): string | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return path === '' ? 'body' : path;
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]` }));
    } else if (v !== null && typeof v === 'object') {
      for (const [key, item] of Object.entries(v)) {
        const at = path === '' ? key : `${path}.${key}`;
        if (LONE_SURROGATE.test(key)) return path === '' ? 'body' : path;
        stack.push({ value: item, path: at });
      }
    }
  }
  return null;
}

function loneSurrogateError(path: string): PremiaError {
  const field = path.length > 100 ? `${path.slice(0, 100)}…` : path;
  const message = `${field} holds an escape of half a UTF-16 surrogate pair (such as \\ud800) that is no character; send text as valid Unicode`;
  return validationError(`The JSON body's ${message}.`, [{ field, code: 'INVALID_ENCODING', message }]);
}

function notUtf8Error(): PremiaError {
  return validationError('The JSON body is not UTF-8 text (a legacy encoding such as Latin-1, or binary content); send JSON encoded as UTF-8.', [
    { field: 'body', code: 'INVALID_ENCODING', message: 'the body is not valid UTF-8' },
  ]);
}

/**
 * The path of the first key that appears twice in one object (`policy_number`, `a.b`,
 * `items[2].id`), or null. `text` must be valid JSON (it is scanned only after JSON.parse took it).
 */
export function duplicateKey(text: string): string | null {
  return walkJson(text, (path, seen) => (seen ? path : null), () => null);
}

/**
 * The first number of a JSON text that JSON.parse cannot read exactly (`149.999999999999999` is
 * read as 150, `12345678901234567890` as …68000, `1e400` as Infinity), with its path, or null.
 * Such a number is refused, not rounded: an amount premia stores must be the amount sent, as the
 * CSV import and the CLI, which read amounts as text, already make sure. `text` must be valid JSON.
 */
export function inexactNumber(text: string): { path: string; text: string } | null {
  return walkJson(text, () => null, (path, token) => (readsExactly(token) ? null : { path, text: token }));
}

/**
 * A key given twice (first found), else a number read inexactly (first found), in one walk of a
 * valid JSON text; null when neither.
 */
function bodyProblem(text: string): PremiaError | null {
  let inexact: { path: string; text: string } | null = null;
  const duplicate = walkJson(
    text,
    (path, seen) => (seen ? path : null),
    (path, token) => {
      if (inexact === null && !readsExactly(token)) inexact = { path, text: token };
      return null;
    },
  );
  if (duplicate !== null) return duplicateKeyError(duplicate);
  return inexact === null ? null : inexactNumberError(inexact);
}

/** Whether a JSON number's text denotes exactly the value JSON.parse gives it (shown as String() shows it). */
function readsExactly(token: string): boolean {
  const value = Number(token);
  if (!Number.isFinite(value)) return false;
  // Up to 15 significant digits a double holds any decimal exactly as written (DBL_DIG).
  if (token.length <= 15 && !/[eE]/.test(token)) return true;
  return new Decimal(token).eq(new Decimal(String(value)));
}

/**
 * Walk a valid JSON text once, without recursion, telling `onKey` each object key (its path, and
 * whether the object already had it) and `onNumber` each number (its path and text); the first
 * non-null answer of either ends the walk and is returned.
 */
function walkJson<T>(text: string, onKey: (path: string, seen: boolean) => T | null, onNumber: (path: string, token: string) => T | null): T | null {
  interface Frame {
    /** The keys seen so far (objects), or null (arrays). */
    keys: Set<string> | null;
    path: string;
    expectKey: boolean;
    lastKey: string;
    index: number;
  }
  const stack: Frame[] = [];
  const childPath = (parent: Frame | undefined): string => {
    if (!parent) return '';
    if (parent.keys) return parent.path === '' ? parent.lastKey : `${parent.path}.${parent.lastKey}`;
    return `${parent.path}[${parent.index}]`;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i + 1;
      while (text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c /* \ */ ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        const answer = onKey(top.path === '' ? key : `${top.path}.${key}`, top.keys.has(key));
        if (answer !== null) return answer;
        top.keys.add(key);
        top.expectKey = false;
        top.lastKey = key;
      }
      i = j;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < text.length && /[0-9eE.+-]/.test(text[j]!)) j++;
      const answer = onNumber(childPath(stack[stack.length - 1]), text.slice(i, j));
      if (answer !== null) return answer;
      i = j - 1;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const path = childPath(stack[stack.length - 1]);
      stack.push({ keys: c === 0x7b ? new Set() : null, path, expectKey: true, lastKey: '', index: 0 });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return null;
}

function inexactNumberError(found: { path: string; text: string }): PremiaError {
  const field = found.path === '' ? 'body' : found.path.length > 100 ? `${found.path.slice(0, 100)}…` : found.path;
  const shown = found.text.length > 40 ? `${found.text.slice(0, 40)}…` : found.text;
  const message = `the number ${shown} cannot be read exactly (a JSON number is read as a double: it would become ${String(Number(found.text))}); send it as written to be kept, amounts with at most two decimals`;
  return validationError(`The JSON body's ${field}: ${message}.`, [{ field, code: 'INEXACT_NUMBER', message }]);
}

export function duplicateKeyError(path: string): PremiaError {
  const shown = path.length > 100 ? `${path.slice(0, 100)}…` : path;
  return validationError(`The JSON body gives ${shown} more than once; send each field once.`, [
    { field: shown, code: 'DUPLICATE_KEY', message: `${shown} appears more than once in the same object` },
  ]);
}

/**
 * How deep a JSON body may nest objects and lists. premia's bodies need 3 at most (an object
 * holding a list of strings); the limit leaves room for clients that wrap, and keeps every later
 * walk over the value (validation, the idempotency hash) far from the stack's limit.
 */
export const MAX_JSON_DEPTH = 32;

/** The deepest nesting of objects and lists in a JSON text, counted without recursion. `text` must be valid JSON. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c /* \ */ ? 2 : 1;
      i = j;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return deepest;
}

/** JSON.parse's message for `text`, or null when it parses. */
function jsonSyntaxError(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * A body that is not JSON, said with what is wrong and where (line and column) as JSON.parse
 * found it: fastify's own words ("Body is not valid JSON but content-type is set to
 * 'application/json'") leave a client to hunt for a trailing comma or a single quote alone.
 * Never a quote of the body, which V8's message may hold and which may hold anything (a key).
 */
export function invalidJsonError(text: string, syntax: string): PremiaError {
  const what = describeSyntaxError(text, syntax);
  return validationError(`The body is not valid JSON: ${what}.`, [{ field: 'body', code: 'INVALID_JSON', message: what }]);
}

function describeSyntaxError(text: string, syntax: string): string {
  const at = /^(.+?) (in|after) JSON at position (\d+)/s.exec(syntax);
  if (at) {
    const position = Math.min(Number(at[3]), text.length);
    let line = 1;
    let lineStart = 0;
    for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) {
      line++;
      lineStart = i + 1;
    }
    const what = at[1]!.charAt(0).toLowerCase() + at[1]!.slice(1) + (at[2] === 'after' ? ' after the JSON value' : '');
    return `${what} at line ${line}, column ${position - lineStart + 1}`;
  }
  const token = /^Unexpected token '(.)'/su.exec(syntax);
  if (token) {
    const c = token[1]!;
    const shown = c.codePointAt(0)! < 0x20 ? `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : `'${c}'`;
    return `unexpected ${shown} (NaN, Infinity, comments, single quotes and unquoted names are not JSON)`;
  }
  if (/^Unexpected end of JSON input/.test(syntax)) return 'it ends before the JSON value does (cut short?)';
  return 'it is not a JSON text';
}

/** A valid JSON body with a `__proto__` key, or `constructor` holding `prototype`: refused (prototype poisoning), and said so. */
export function forbiddenKeyError(): PremiaError {
  return validationError(
    'The JSON body has a key premia never accepts: "__proto__", or "constructor" holding "prototype" (no request has either).',
    [{ field: 'body', code: 'FORBIDDEN_KEY', message: 'the body has a "__proto__" key, or "constructor" holding "prototype"' }],
  );
}

export function tooDeepError(depth: number): PremiaError {
  return validationError(
    `The JSON body nests objects and lists ${depth} levels deep; at most ${MAX_JSON_DEPTH} are accepted (no request needs more than 3).`,
    [{ field: 'body', code: 'TOO_DEEP', message: `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels` }],
  );
}
