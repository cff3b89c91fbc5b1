/** What is at a path, in the words premia's messages name it with. */
import type { Stats } from 'node:fs';

export type FileKind = 'a file' | 'a directory' | 'a named pipe' | 'a socket' | 'a device';

/** What `info` (the path's stat, links followed) is: a regular file, a directory, a named pipe, a socket, or a device (anything else). */
export function fileKind(info: Stats): FileKind {
  if (info.isFile()) return 'a file';
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  return 'a device';
}

/** Which kind of device `info` is ('character device': /dev/tty, /dev/zero; 'block device': a disk), or null for no device. */
export function deviceKind(info: Stats): 'character device' | 'block device' | null {
  if (info.isCharacterDevice()) return 'character device';
  if (info.isBlockDevice()) return 'block device';
  return null;
}
