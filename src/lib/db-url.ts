/**
 * What `--db` (or PREMIA_DB) names: a PostgreSQL database when it is a `postgres://` or
 * `postgresql://` URL, else an SQLite file (or `:memory:`). And the one way such a URL is
 * shown: with its password replaced by `***`, wherever it appears (messages, --debug lines,
 * `premia whoami`, the server's start line). Imports nothing of premia's but lib's key-text, so
 * the CLI and the store share it.
 */

import { holdsKey, redactKeysIn } from './key-text.js';

const PG_SCHEME = /^postgres(?:ql)?:\/\//i;

/** Whether `db` names a PostgreSQL database rather than an SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return PG_SCHEME.test(db.trim());
}

/** Whether `db` names an SQLite file on disk (not `:memory:`, not a PostgreSQL URL, not another URL). */
export function isStoreFile(db: string): boolean {
  return db !== ':memory:' && !isPostgresUrl(db) && foreignUrlScheme(db) === null;
}

/**
 * The scheme of `db` when it is written as a URL of another kind than PostgreSQL's (a mistyped
 * `postgress://`, a `mysql://`), else null: it names no file, and may hold a password, so it is
 * neither taken as a path nor shown.
 */
export function foreignUrlScheme(db: string): string | null {
  const m = /^\s*([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(db);
  return m !== null && !isPostgresUrl(db) ? m[1]! : null;
}

/**
 * Why `option`'s value `db` is refused when it is a URL of another kind (foreignUrlScheme), as a
 * message and its detail (the value itself not shown), else null.
 */
export function foreignUrlProblem(db: string, option: string): { message: string; detail: { field: string; code: 'INVALID_FORMAT'; message: string } } | null {
  const scheme = foreignUrlScheme(db);
  if (scheme === null) return null;
  return {
    message: `${option} is written as a ${scheme}:// URL, which names no store premia knows: give postgres://user@host:port/database (or postgresql://) for a PostgreSQL database, or the path of an SQLite file. The rest of the value is not shown (it may hold a password).`,
    detail: { field: option.replace(/^--/, ''), code: 'INVALID_FORMAT', message: `${scheme}:// is not a store's scheme` },
  };
}

/**
 * Why `option`'s value `db` is refused when it holds a premia API key (`--db "$PREMIA_API_KEY"`,
 * two variables mixed up), else null: taken as a path, it made a store file named by the secret,
 * and every line naming the store (`whoami`, the server's start line, `db copy`) printed it whole.
 * The message shows the key as `pmk_…` and its last 4 characters.
 */
export function keyAsStoreProblem(db: string, option: string): { message: string; detail: { field: string; code: 'INVALID_FORMAT'; message: string } } | null {
  if (!holdsKey(db)) return null;
  return {
    message: `${option} holds an API key (${redactKeysIn(redactDbUrl(db))}), not a store: give a file such as ./premia.db, :memory:, or a postgres:// URL; an API key is for remote mode (PREMIA_API_KEY). Nothing changed.`,
    detail: { field: option.replace(/^--/, ''), code: 'INVALID_FORMAT', message: 'a store is not an API key' },
  };
}

/**
 * A PostgreSQL URL's user-info password as it is written: everything from the colon after the user
 * name to the LAST `@` of the line (not crossing another URL). The driver reads a URL as a browser
 * does (the user-info ends at the last `@` before the host), and a password written unencoded
 * may hold `@`, `/` or a space (`my@Secret`, `Sec ret`): stopping at the first `@` or at a space
 * showed the rest. A URL with no user-info password but a port (`postgres://host:5432/db`)
 * followed on its line by an `@` loses a little more than the password: the safe side.
 */
const USERINFO_PASSWORD = /(postgres(?:ql)?:\/\/[^:@/?#\s]*:)(?:(?!postgres(?:ql)?:\/\/)[^\n])*@/gi;
const PASSWORD_PARAM = /([?&]password=)[^&#\s]*/gi;

/**
 * The URL with its password (in the user-info part or as a `password=` parameter) shown as
 * `***`. Works on text that does not parse as a URL too (it never throws): a mistyped URL in
 * an error message is redacted all the same.
 */
export function redactDbUrl(url: string): string {
  return url.replace(USERINFO_PASSWORD, '$1***@').replace(PASSWORD_PARAM, '$1***');
}

/** The user-info password of a single URL as written (USERINFO_PASSWORD's part, unredacted), or undefined. */
function writtenPassword(url: string): string | undefined {
  return /^postgres(?:ql)?:\/\/[^:@/?#\s]*:([^\n]*)@/i.exec(url.trim())?.[1];
}

/**
 * Every form the password of `url` may take in a message (user-info up to the last `@`, as the
 * driver parses it, a `password=` parameter; each as written and decoded), longest first.
 */
function passwordForms(url: string): string[] {
  const text = url.trim();
  const forms = new Set<string>();
  const add = (raw: string | undefined) => {
    if (raw === undefined || raw === '') return;
    forms.add(raw);
    try {
      forms.add(decodeURIComponent(raw));
    } catch {
      // not percent-encoded as a whole: as written only
    }
    forms.add(encodeURIComponent(raw));
  };
  add(writtenPassword(text));
  try {
    add(new URL(text).password);
  } catch {
    // not a URL the parser takes: the forms above
  }
  for (const m of text.matchAll(/[?&]password=([^&#\s]*)/gi)) add(m[1]);
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

/**
 * `text` with every occurrence of the URL's password (in each form it may take) replaced by
 * `***`, and any URL in it redacted: for messages that come from the driver or the server,
 * which might quote what they were given (or a piece of a mistyped URL as a host name).
 */
export function scrubDbSecret(text: string, url: string): string {
  let out = redactDbUrl(text);
  for (const secret of passwordForms(url)) out = out.split(secret).join('***');
  // Pieces of an unencoded password the driver took for a host or a path (`my@Sec/ret9`: host
  // `Sec`), each 3 characters or more.
  const written = writtenPassword(url);
  if (written !== undefined) {
    for (const piece of written.split(/[@/:?#\s]/)) if (piece.length >= 3) out = out.split(piece).join('***');
  }
  return out;
}
