/**
 * The policy import's reading thread (src/backend/local/policy-import-worker.ts) gives each
 * piece's array back with its ack, to be filled with the next piece: only once the header is
 * read, and only when its parser keeps nothing of the piece. These tests drive the compiled
 * worker (dist/, which `npm test` builds first) the way the importing thread does, and overwrite
 * every array they get back before sending the next piece: a row cut by a piece's end must still
 * come out whole, as the file has it.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { PolicyBatch } from '../../src/backend/local/policy-rows.js';

const WORKER = fileURLToPath(new URL('../../dist/backend/local/policy-import-worker.js', import.meta.url));
const HEADER = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\n';

type Out = { type: 'batch'; batch: PolicyBatch } | { type: 'ack'; spare?: ArrayBuffer } | { type: 'done' } | { type: 'error'; error: { message: string } };

/** The worker, and each message it sends in turn. */
function start() {
  const worker = new Worker(WORKER, { workerData: { fileName: 'policies.csv', idSalt: null } });
  const queue: Out[] = [];
  let wake: (() => void) | null = null;
  worker.on('message', (m: Out) => {
    queue.push(m);
    wake?.();
  });
  const next = async (): Promise<Out> => {
    while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = null;
    return queue.shift()!;
  };
  return { worker, next };
}

let running: Worker | null = null;
afterEach(async () => {
  await running?.terminate();
  running = null;
});

/** Row i of the file: `customer,ref,number,product,amount` (the amount i + 1 rand, i.e. (i + 1) * 100 cents). */
const row = (i: number) => `C${String(i).padStart(6, '0')},REF-${i},POL-${String(i).padStart(8, '0')},LIFE_BASIC,${i + 1}.00\n`;

/** A batch's rows as `customer,ref,number,product|cents@line`. */
function rowsOf(batch: PolicyBatch): string[] {
  const text = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength).toString('latin1');
  const out: string[] = [];
  for (let r = 0; r < batch.count; r++) {
    const o = r * 5;
    // Its four fields end at its fourth comma (the amount is in `amounts`).
    out.push(`${text.slice(batch.offsets[o], batch.offsets[o + 4])}|${batch.amounts[r]}@${batch.lines[r]}`);
  }
  return out;
}

/** What rowsOf must give for rows 0 .. n - 1 (file line = i + 2). */
const expected = (n: number) => Array.from({ length: n }, (_, i) => `${row(i).slice(0, row(i).lastIndexOf(','))}|${(i + 1) * 100}@${i + 2}`);

describe('the reading thread gives back the arrays it was sent', () => {
  it('not while the header is unread; then each, with the bytes it was sent', async () => {
    const { worker, next } = start();
    running = worker;
    const first = new Uint8Array(Buffer.from(HEADER.slice(0, 10), 'latin1'));
    worker.postMessage({ type: 'chunk', data: first }, [first.buffer]);
    expect(await next()).toEqual({ type: 'ack' });

    const piece = Buffer.from(HEADER.slice(10) + row(0) + row(1).slice(0, 7), 'latin1');
    const second = new Uint8Array(piece);
    worker.postMessage({ type: 'chunk', data: second }, [second.buffer]);
    const ack = await next();
    expect(ack.type).toBe('ack');
    const spare = (ack as { spare?: ArrayBuffer }).spare;
    expect(spare).toBeInstanceOf(ArrayBuffer);
    expect(Buffer.from(spare!).equals(piece)).toBe(true);

    new Uint8Array(spare!).fill(0x58); // used again at once, before the row it cut is finished

    const third = new Uint8Array(Buffer.from(row(1).slice(7), 'latin1'));
    worker.postMessage({ type: 'chunk', data: third }, [third.buffer]);
    expect(((await next()) as { spare?: ArrayBuffer }).spare?.byteLength).toBe(row(1).length - 7);
    worker.postMessage({ type: 'end' });
    const batch = await next();
    expect(batch.type).toBe('batch');
    expect(rowsOf((batch as { batch: PolicyBatch }).batch)).toEqual(expected(2));
    expect(await next()).toEqual({ type: 'done' });
  });

  it('arrays overwritten as soon as they come back: every row as the file has it', async () => {
    const n = 3000;
    const file = Buffer.from(HEADER + Array.from({ length: n }, (_, i) => row(i)).join(''), 'latin1');
    // Pieces of 7,919 bytes: each ends inside a row (or its line end), the first inside the header.
    const cuts: number[] = [];
    for (let at = 60; at < file.length; at += 7919) cuts.push(at);
    cuts.push(file.length);
    const { worker, next } = start();
    running = worker;
    const rows: string[] = [];
    let given = 0;
    let from = 0;
    for (const to of cuts) {
      const data = new Uint8Array(file.subarray(from, to));
      from = to;
      worker.postMessage({ type: 'chunk', data }, [data.buffer]);
      for (let m = await next(); ; m = await next()) {
        if (m.type === 'batch') rows.push(...rowsOf(m.batch));
        else if (m.type === 'ack') {
          if (m.spare !== undefined) {
            new Uint8Array(m.spare).fill(0x58); // used again at once: 'X' over every byte
            given++;
          }
          break;
        } else throw new Error(`unexpected ${JSON.stringify(m)}`);
      }
    }
    worker.postMessage({ type: 'end' });
    for (let m = await next(); m.type !== 'done'; m = await next()) {
      if (m.type === 'batch') rows.push(...rowsOf(m.batch));
      else throw new Error(`unexpected ${JSON.stringify(m)}`);
    }
    expect(rows).toEqual(expected(n));
    expect(given).toBe(cuts.length - 1); // every piece after the first (which holds only part of the header)
  });
});
