/**
 * What `--db` (or PREMIA_DB) names: a PostgreSQL database when it is a `postgres://` or
 * `postgresql://` URL, else an SQLite file (or `:memory:`). And the one way such a URL is
 * shown: with its password replaced by `***`, wherever it appears (messages, --debug lines,
 * `premia whoami`, the server's start line). Imports nothing of premia's, so the CLI and the
 * store share it.
 */

const PG_SCHEME = /^postgres(?:ql)?:\/\//i;

/** Whether `db` names a PostgreSQL database rather than an SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return PG_SCHEME.test(db.trim());
}

/** Whether `db` names an SQLite file on disk (not `:memory:`, not a PostgreSQL URL). */
export function isStoreFile(db: string): boolean {
  return db !== ':memory:' && !isPostgresUrl(db);
}

/**
 * The URL with its password (in the user-info part or as a `password=` parameter) shown as
 * `***`. Works on text that does not parse as a URL too (it never throws): a mistyped URL in
 * an error message is redacted all the same.
 */
export function redactDbUrl(url: string): string {
  return url
    .replace(/(postgres(?:ql)?:\/\/[^:@/?#\s]*:)[^@\s]*@/gi, '$1***@')
    .replace(/([?&]password=)[^&#\s]*/gi, '$1***');
}

/** The password a URL carries (user-info or `password=`), decoded, or null. */
export function dbUrlPassword(url: string): string | null {
  const info = /^postgres(?:ql)?:\/\/[^:@/?#\s]*:([^@\s]*)@/i.exec(url.trim());
  const param = /[?&]password=([^&#\s]*)/i.exec(url);
  const raw = info?.[1] ?? param?.[1];
  if (raw === undefined || raw === '') return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * `text` with every occurrence of the URL's password (as written and decoded) replaced by
 * `***`, and any URL in it redacted: for messages that come from the driver or the server,
 * which might quote what they were given.
 */
export function scrubDbSecret(text: string, url: string): string {
  let out = redactDbUrl(text);
  const password = dbUrlPassword(url);
  if (password !== null && password.length > 0) {
    const raw = /^postgres(?:ql)?:\/\/[^:@/?#\s]*:([^@\s]*)@/i.exec(url.trim())?.[1];
    for (const secret of new Set([password, raw ?? password, encodeURIComponent(password)])) {
      if (secret.length > 0) out = out.split(secret).join('***');
    }
  }
  return out;
}
