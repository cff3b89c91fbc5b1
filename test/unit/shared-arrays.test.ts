/** lib/shared-arrays.ts: copies posted to another thread without detaching anything (issue 13). */
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { sharedColumns, sharedCopy } from '../../src/lib/shared-arrays.js';

describe('shared arrays', () => {
  it('copies a typed array, or part of one, into a SharedArrayBuffer of its own', () => {
    const whole = Float64Array.from([1.5, -2, 1234567.25, 0]);
    const part = sharedCopy(whole.subarray(1, 3));
    expect(part).toBeInstanceOf(Float64Array);
    expect(part.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect([part.byteOffset, part.byteLength, part.buffer.byteLength]).toEqual([0, 16, 16]);
    expect(Array.from(part)).toEqual([-2, 1234567.25]);
    // A copy: the two go their own ways.
    whole[1] = 9;
    part[1] = 7;
    expect(Array.from(whole)).toEqual([1.5, 9, 1234567.25, 0]);
    expect(Array.from(part)).toEqual([-2, 7]);
  });

  it('copies a Node Buffer as a plain Uint8Array (no deprecated Buffer constructor), and refuses a type it has no copy for', () => {
    const copy = sharedCopy(Buffer.from([1, 2, 250]));
    expect(copy.constructor).toBe(Uint8Array);
    expect(Array.from(copy)).toEqual([1, 2, 250]);
    expect(copy.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(() => sharedCopy(new Uint16Array(2) as unknown as Uint8Array)).toThrow('sharedCopy: no copy for a Uint16Array');
  });

  it("replaces a row set's typed arrays with shared copies and keeps its other fields", () => {
    const rows = { n: 2, id: Int32Array.from([7, 8]), status: Uint8Array.from([1, 3]), periods: ['2026-11'] };
    const shared = sharedColumns(rows);
    expect(shared.id.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(shared.status.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(shared.id).not.toBe(rows.id);
    expect(Array.from(shared.id)).toEqual([7, 8]);
    expect(Array.from(shared.status)).toEqual([1, 3]);
    expect(shared.periods).toBe(rows.periods);
    expect(shared.n).toBe(2);
  });

  it('posted with no transfer list, the sender keeps its array and the receiver sees its writes', async () => {
    const { port1, port2 } = new MessageChannel();
    const sent = sharedCopy(Int32Array.from([1, 2, 3]));
    const got = new Promise<Int32Array>((resolve) => port2.once('message', (m: Int32Array) => resolve(m)));
    port1.postMessage(sent);
    const received = await got;
    port1.close();
    expect(sent.byteLength).toBe(12);
    received[0] = 42;
    expect(Array.from(sent)).toEqual([42, 2, 3]);
  });
});
