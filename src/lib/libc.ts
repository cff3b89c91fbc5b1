/**
 * The C library's functions that Node has no call for (malloc_trim, tcflush), made through koffi,
 * a maintained FFI library with prebuilt binaries (no compiler at install, unlike an addon of our
 * own). Loaded once, on first use: most commands never need it.
 */
import { createRequire } from 'node:module';

let library: { func(signature: string): unknown } | null | undefined;

/**
 * The function of C declaration `signature` (`int tcflush(int fd, int queue_selector)`), or null
 * where it cannot be had: no C library premia knows the name of here (Linux's glibc, macOS's
 * libSystem), koffi not loading, or no such function in it.
 */
export function cFunction<F>(signature: string): F | null {
  library ??= load();
  if (library === null) return null;
  try {
    return library.func(signature) as F;
  } catch {
    return null;
  }
}

function load(): { func(signature: string): unknown } | null {
  const name = process.platform === 'linux' ? 'libc.so.6' : process.platform === 'darwin' ? '/usr/lib/libSystem.B.dylib' : null;
  if (name === null) return null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    return koffi.load(name);
  } catch {
    return null;
  }
}
