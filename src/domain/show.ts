import { escapeUnseen } from './identifiers.js';

/**
 * A value a caller sent, quoted for an error message: a string in JSON quotes, a number,
 * boolean or null as written, a list or an object by name only. It never walks into a list or
 * an object (a body nested thousands of levels deep would overflow the stack of JSON.stringify,
 * and the message has no use for the contents), and it is at most 60 characters long.
 */
export function showValue(v: unknown): string {
  let s: string;
  // JSON.stringify escapes control characters but not the invisible ones (a zero-width space, a
  // direction override): a format of "\u200bcsv" would read as the valid "csv" it is not.
  if (typeof v === 'string') s = escapeUnseen(JSON.stringify(v));
  else if (Array.isArray(v)) s = 'a list';
  else if (v !== null && typeof v === 'object') s = 'an object';
  else if (v === undefined) s = 'nothing';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects were described above
  else s = String(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

/** The longest field name an error repeats as it came, as for a JSON path (server/json.ts); a longer one is cut. */
const FIELD_NAME_SHOWN = 100;

/**
 * A key of a caller's body or query, named in an error (`UNKNOWN_FIELD`): as sent, but at most
 * FIELD_NAME_SHOWN characters, so that a body of megabyte-long keys is not answered with them
 * several times over.
 */
export function fieldName(key: string): string {
  return key.length > FIELD_NAME_SHOWN ? `${key.slice(0, FIELD_NAME_SHOWN)}…` : key;
}
