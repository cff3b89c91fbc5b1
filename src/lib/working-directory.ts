/** The directory relative paths are resolved from. */
import { readlinkSync } from 'node:fs';

/**
 * This process's working directory. One that was removed under it (a cron job's `cd` into a
 * directory a clean-up then deleted) has no path: `process.cwd()` throws ENOENT, and premia ended
 * on that with a stack trace, even for a command given only absolute paths. Where Linux still
 * names it (/proc/self/cwd, `PATH (deleted)`), that path is taken: absolute paths work, and a
 * relative one is said missing under it, as the directory is. Elsewhere the error stands.
 */
export function workingDirectory(): string {
  try {
    return process.cwd();
  } catch (e) {
    let link: string;
    try {
      link = readlinkSync('/proc/self/cwd');
    } catch {
      throw e;
    }
    const gone = ' (deleted)';
    if (!link.startsWith('/') || !link.endsWith(gone)) throw e;
    return link.slice(0, -gone.length);
  }
}
