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
});
