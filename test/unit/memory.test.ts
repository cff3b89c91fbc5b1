import { describe, expect, it } from 'vitest';
import { freedMemoryRelease, keepLargeBuffersMapped, releaseFreedMemory } from '../../src/lib/memory.js';

/** The C library's glibc version, when this Node runs on one (Node's diagnostic report says). */
function glibc(): string | undefined {
  const header = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header;
  return header.glibcVersionRuntime;
}

describe('releaseFreedMemory', () => {
  it('trims through glibc where there is one, and does nothing elsewhere', () => {
    const expected = process.platform === 'linux' && glibc() !== undefined && process.env.PREMIA_MALLOC_TRIM !== '0' ? 'malloc_trim' : 'none';
    expect(freedMemoryRelease()).toBe(expected);
    expect(() => releaseFreedMemory()).not.toThrow();
  });
});

describe('keepLargeBuffersMapped', () => {
  it("fixes glibc's mmap threshold where there is one (once; the same answer after), and does nothing elsewhere", () => {
    const expected = process.platform === 'linux' && glibc() !== undefined && process.env.PREMIA_MALLOC_TRIM !== '0' ? 'fixed' : 'none';
    expect(keepLargeBuffersMapped()).toBe(expected);
    expect(keepLargeBuffersMapped()).toBe(expected);
  });
});
