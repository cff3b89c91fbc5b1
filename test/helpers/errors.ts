import { expect } from 'vitest';
import { PremiaError } from '../../src/domain/errors.js';

/** The PremiaError a promise rejects with; fails the test when it resolves or throws anything else. */
export async function rejection(p: Promise<unknown>): Promise<PremiaError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(PremiaError);
    return e as PremiaError;
  }
  throw new Error('expected the promise to reject with a PremiaError');
}
