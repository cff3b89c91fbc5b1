/**
 * Whether a file is write-protected: this user may not write it (`>` would be refused), or no one
 * may (`chmod a-w` on a file kept from change: root may write anything, so the mode is what says
 * so). A rename over it would replace it all the same, since only its directory's permission
 * counts for that; premia's atomic writes ask this first.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';

/** `mode`: the file's (its stat's mode, already at hand). */
export async function isWriteProtected(path: string, mode: number): Promise<boolean> {
  const forUser = await access(path, constants.W_OK).then(
    () => true,
    (e: NodeJS.ErrnoException) => e.code !== 'EACCES' && e.code !== 'EPERM',
  );
  return !forUser || (mode & 0o222) === 0;
}
