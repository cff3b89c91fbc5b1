/**
 * A small file premia keeps beside its work (the config's profiles, simulate's manifest), read
 * only when it is what it should be: a regular file of a few bytes. Opened non-blocking, so a
 * FIFO of its name never holds the command waiting for a writer; a device (a link to /dev/zero)
 * or a huge file is not read into memory.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * The file's text; or, without reading it, 'not a file' (a device, a pipe, a socket) or 'too
 * large' (over `maxBytes`). A directory is thrown as EISDIR; a missing file and other failures
 * of the system are thrown as they come.
 */
export async function readSmallFile(path: string, maxBytes: number): Promise<{ text: string } | { refused: 'not a file' | 'too large' }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw Object.assign(new Error(`EISDIR: ${path}`), { code: 'EISDIR' });
    if (!info.isFile()) return { refused: 'not a file' };
    if (info.size > maxBytes) return { refused: 'too large' };
    return { text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}
