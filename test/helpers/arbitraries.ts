/** fast-check arbitraries shared by the property tests. */
import fc from 'fast-check';

/**
 * Any code point, lone surrogates included (what fast-check's unit 'binary' draws), drawn as an
 * integer: 'binary' maps every one of the 1,114,112 code points back to its index each time a
 * string arbitrary is made of it, ~1.5 s of CPU per test.
 */
export const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp));
