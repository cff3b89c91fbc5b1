/** A spooled upload that fails leaves no file behind, however early it fails (src/server/upload.ts spool). */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { spool } from '../../src/server/upload.js';

const dir = mkdtempSync(join(tmpdir(), 'premia-spool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spool', () => {
  it('a part that breaks off before its file is even open: refused, and no file is left', async () => {
    for (let k = 0; k < 20; k++) {
      const part = new Readable({
        read() {
          this.destroy(new Error('the form ended before its closing boundary'));
        },
      });
      await expect(spool(part, 'a.csv', 1_000_000, dir)).rejects.toThrow('closing boundary');
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('a part that breaks off after some bytes: the same', async () => {
    const part = Readable.from(
      (async function* () {
        yield Buffer.from('customer_id,external_customer_ref\n');
        throw new Error('premature close');
      })(),
    );
    await expect(spool(part, 'a.csv', 1_000_000, dir)).rejects.toThrow('premature close');
    expect(readdirSync(dir)).toEqual([]);
  });

  // As busboy's part stream does at its fileSize limit: it says 'limit' and stops short, but ends
  // only with the part. A chunked body that never ends was received without end, never answered.
  it('a part past the limit whose body goes on: refused at the limit (413), and no file is left', async () => {
    let sent = 0;
    const part = new Readable({
      read() {
        if (sent < 1000) {
          sent += 100;
          this.push(Buffer.alloc(100, 'a'));
          if (sent === 1000) setImmediate(() => this.emit('limit'));
        }
        // then nothing more, and no end: the rest of the part is being discarded
      },
    });
    await expect(spool(part, 'a.csv', 1000, dir)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(readdirSync(dir)).toEqual([]);
  });
});
