/**
 * Giving freed memory back to the system (issue 13). glibc's allocator keeps what a process
 * frees for its own next allocations: the day writer's rows of a million-policy month's large
 * days (~100 MB at a time) and the load's buffers, once freed, stay in the process's heap and
 * count in its RSS until a trim gives them back. Node has no call for it (lib/libc.ts makes it).
 *
 * Linux with glibc only: elsewhere (musl has no malloc_trim, other systems other allocators),
 * or when koffi cannot load, this does nothing. PREMIA_MALLOC_TRIM=0 turns it off.
 */
import { cFunction } from './libc.js';

/** glibc's two calls, once loaded (null: not here, or turned off). */
interface Allocator {
  mallocTrim(pad: number): number;
  mallopt(param: number, value: number): number;
}
let allocator: Allocator | null | undefined;
let threshold: 'fixed' | 'none' | undefined;

/**
 * Keep large buffers in their own mappings, given back to the system when freed: glibc serves
 * allocations of 128 KiB or more with mmap, but each time such a block is freed it raises that
 * threshold to the block's size (up to 32 MiB), after which buffers of that size come from its
 * heap and stay there once freed until a trim. An advance allocates and frees many (a day's
 * rows, plan batches, image blocks): with the threshold fixed at 128 KiB they go back to the
 * system as they are freed, which lowers the advance's peak (issue 13). Once per process; the
 * same conditions as releaseFreedMemory.
 */
export function keepLargeBuffersMapped(): 'fixed' | 'none' {
  threshold ??= glibc()?.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) === 1 ? 'fixed' : 'none';
  return threshold;
}

/** mallopt's parameter for the mmap threshold (malloc.h), and the value fixed: glibc's default. */
const M_MMAP_THRESHOLD = -3;
const MMAP_THRESHOLD = 128 * 1024;

/** Return the allocator's free pages to the system (all its arenas: every thread's). */
export function releaseFreedMemory(): void {
  glibc()?.mallocTrim(0);
}

/** How freed memory is given back here: glibc's malloc_trim, or not at all. */
export function freedMemoryRelease(): 'malloc_trim' | 'none' {
  return glibc() === null ? 'none' : 'malloc_trim';
}

function glibc(): Allocator | null {
  if (allocator === undefined) allocator = loadGlibc();
  return allocator;
}

function loadGlibc(): Allocator | null {
  if (process.platform !== 'linux' || process.env.PREMIA_MALLOC_TRIM === '0') return null;
  const mallocTrim = cFunction<Allocator['mallocTrim']>('int malloc_trim(size_t pad)');
  const mallopt = cFunction<Allocator['mallopt']>('int mallopt(int param, int value)');
  return mallocTrim && mallopt && { mallocTrim, mallopt };
}
