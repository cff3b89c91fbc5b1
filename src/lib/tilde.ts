/**
 * A path with a directory named `~` in it is almost always a home directory that no shell
 * expanded: a quoted "~/acme.db", a crontab's `PREMIA_DB=~/acme.db` (cron expands no `~`), a
 * service file's environment. Said beside "does not exist", instead of "create it first": a
 * directory made under the name `~` is one `rm -rf ~` away from losing the home directory.
 */
export function unexpandedTilde(path: string): string | null {
  return path.split(/[\\/]/).includes('~')
    ? "('~' is not the home directory here: only a shell expands it, and not inside quotes nor in a crontab's variables; give the full path)"
    : null;
}
