/**
 * `policies import -` under --idempotency-key keeps a copy of stdin in TMPDIR (to hash it and to
 * read it again). A TMPDIR that does not exist, or is a file, failed "unexpectedly" (ENOENT,
 * exit 1) naming neither TMPDIR nor the fix; it is a VALIDATION_ERROR now, nothing imported, and
 * the key still free for the rerun.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

const tmp = tempDir('premia-stdin-spool-');
afterAll(() => tmp.cleanup());
const saved = process.env.TMPDIR;
afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
});

const db = join(tmp.dir, 'acme.db');
const CSV = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,LIFE,10.00\n';
const importStdin = () => runCli(['--db', db, '--idempotency-key', 'book-1', 'policies', 'import', '-'], { cwd: tmp.dir, stdin: CSV });

describe('stdin spooled under --idempotency-key', () => {
  it('a TMPDIR that is missing or a file: exit 2 naming it, nothing imported; the rerun with a good TMPDIR imports', async () => {
    writeFileSync(join(tmp.dir, 'a-file'), 'x');
    for (const [dir, why] of [
      [join(tmp.dir, 'missing'), 'there is no such directory'],
      [join(tmp.dir, 'a-file'), 'it is not a directory'],
    ] as const) {
      process.env.TMPDIR = dir;
      const r = await importStdin();
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        '',
        `error: Cannot keep a copy of standard input for --idempotency-key in ${dir} (TMPDIR): ${why}. Nothing was imported; set TMPDIR to a directory premia can write, or give the file's path instead of '-'.\n  (code VALIDATION_ERROR)\n`,
      ]);
    }
    process.env.TMPDIR = tmp.dir;
    const again = await importStdin();
    expect([again.code, again.stdout, again.stderr]).toEqual([0, 'Imported 1 policy; 0 rows failed.\n', '']);
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('premia-stdin-'))).toEqual([]);
  });
});
