/**
 * `policies import -` under --idempotency-key keeps a copy of stdin in TMPDIR (to hash it and to
 * read it again). A TMPDIR that does not exist, or is a file, failed "unexpectedly" (ENOENT,
 * exit 1) naming neither TMPDIR nor the fix; it is a VALIDATION_ERROR now, nothing imported, and
 * the key still free for the rerun.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { removeAbandonedSpools } from '../../src/cli/local-idempotency.js';
import { HERE, HERE_TAG, placeTag } from '../../src/lib/process.js';
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

/**
 * A copy of stdin is removed when the import ends, but a process killed outright (SIGKILL,
 * SIGTERM, a power cut) cannot remove its own: the whole book stayed in TMPDIR, one more copy for
 * every killed run. The next spool removes those of processes that are gone, and only those.
 */
describe('copies of stdin left by killed processes', () => {
  it('the next import from stdin removes those of dead processes and keeps a live one\'s', async () => {
    const dir = join(tmp.dir, 'spools');
    mkdirSync(dir);
    const dead = spawnSync(process.execPath, ['-e', '']).pid; // exited and reaped
    const left = `premia-stdin-${dead}-${HERE_TAG}-0123456789abcdef`;
    const live = `premia-stdin-${process.ppid}-${HERE_TAG}-fedcba9876543210`;
    const other = 'premia-stdin-notes.txt';
    for (const name of [left, live, other]) writeFileSync(join(dir, name), CSV);
    process.env.TMPDIR = dir;
    const r = await runCli(['--db', join(tmp.dir, 'spools.db'), '--idempotency-key', 'book-2', 'policies', 'import', '-'], { cwd: tmp.dir, stdin: CSV });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'Imported 1 policy; 0 rows failed.\n', '']);
    expect(readdirSync(dir).sort()).toEqual([other, live].sort());
  });

  // Containers sharing a TMPDIR volume (and the host's name) each have their own PID namespace,
  // premia often pid 1 in each: a pid of another's names no process here, or another one, even
  // this one. Their copies, and those named by earlier versions (which do not say where they were
  // made), are removed only once nobody has written them for a day.
  it('judges by pid only the copies made in this host and PID namespace; others, and old names, only by age', async () => {
    const dir = join(tmp.dir, 'places');
    mkdirSync(dir);
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const there = placeTag({ host: HERE.host, pidNamespace: 'pid:[4026532999]' });
    expect(there).toMatch(/^[0-9a-f]{8}$/);
    expect(there).not.toBe(HERE_TAG);
    const fresh = {
      thereDead: `premia-stdin-${dead}-${there}-0123456789abcdef`,
      therePid1: `premia-stdin-1-${there}-0123456789abcdef`,
      thereOurPid: `premia-stdin-${process.pid}-${there}-0123456789abcdef`,
      oldDead: `premia-stdin-${dead}-0123456789abcdef`,
      oldOurPid: `premia-stdin-${process.pid}-0123456789abcdef`,
      hereDead: `premia-stdin-${dead}-${HERE_TAG}-0123456789abcdef`,
      hereLive: `premia-stdin-${process.ppid}-${HERE_TAG}-0123456789abcdef`,
    };
    const old = {
      thereDead: `premia-stdin-${dead}-${there}-fedcba9876543210`,
      therePid1: `premia-stdin-1-${there}-fedcba9876543210`,
      oldDead: `premia-stdin-${dead}-fedcba9876543210`,
      oldOurPid: `premia-stdin-${process.pid}-fedcba9876543210`,
      // This process's own: never removed, however old.
      mine: `premia-stdin-${process.pid}-${HERE_TAG}-fedcba9876543210`,
    };
    for (const name of [...Object.values(fresh), ...Object.values(old)]) writeFileSync(join(dir, name), CSV);
    const dayAgo = Date.now() / 1000 - 25 * 3600;
    for (const name of Object.values(old)) utimesSync(join(dir, name), dayAgo, dayAgo);

    await removeAbandonedSpools(dir);
    expect(readdirSync(dir).sort()).toEqual(
      [fresh.thereDead, fresh.therePid1, fresh.thereOurPid, fresh.oldDead, fresh.oldOurPid, fresh.hereLive, old.mine].sort(),
    );
  });

  it('a copy is named with its process id and place', async () => {
    const dir = join(tmp.dir, 'named');
    mkdirSync(dir);
    process.env.TMPDIR = dir;
    const seen: string[] = [];
    const r = await runCli(['--db', join(tmp.dir, 'named.db'), '--idempotency-key', 'book-3', 'policies', 'import', '-'], {
      cwd: tmp.dir,
      prepare: (ctx) => {
        ctx.stdin = Readable.from(
          (async function* () {
            yield Buffer.from(CSV);
            // The copy is being made by now (its file opens whatever stdin does): look at its name.
            while (readdirSync(dir).length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
            seen.push(...readdirSync(dir));
          })(),
        );
      },
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'Imported 1 policy; 0 rows failed.\n', '']);
    expect(seen).toEqual([expect.stringMatching(new RegExp(`^premia-stdin-${process.pid}-${HERE_TAG}-[0-9a-f]{16}$`))]);
    expect(readdirSync(dir)).toEqual([]);
  });
});

/**
 * A stream that is no CSV text (/dev/zero, a binary file piped in, a line that never ends) was
 * copied to TMPDIR whole before the import refused it at its first bytes: `< /dev/zero` filled the
 * disk. The copy now stops at the chunk that shows it, and the import refuses it as it refuses the
 * stream without --idempotency-key. Bounded by input: the stream offers far more chunks than the
 * copy may take, and counts those taken.
 */
describe('stdin that is not CSV text under --idempotency-key is refused at once, not copied whole', () => {
  const CHUNK = 64 * 1024;
  const OFFERED = 4096; // 256 MiB in all, were it read to its end
  const cases: Array<[string, Buffer, Buffer, string]> = [
    ['NUL bytes (/dev/zero)', Buffer.alloc(0), Buffer.alloc(CHUNK, 0), 'line 1: the file contains NUL bytes; it is binary, not CSV text'],
    [
      'a line that never ends',
      Buffer.from('customer_id,external_customer_ref,policy_number,product_code,collection_amount\n'),
      Buffer.alloc(CHUNK, 0x61),
      'line 2: the record starting here is longer than 1048576 characters (a quote left open?)',
    ],
    ['bytes that are not UTF-8', Buffer.alloc(0), Buffer.alloc(CHUNK, 0xff), 'line 1: the file is not UTF-8 text (a legacy encoding such as Windows-1252, or binary content); save it as UTF-8 ("CSV UTF-8" in Excel)'],
  ];
  it.each(cases)('%s', async (_name, head, chunk, why) => {
    let taken = 0;
    async function* endless() {
      if (head.length > 0) yield head;
      for (let i = 0; i < OFFERED; i++) {
        taken++;
        yield chunk;
      }
    }
    const store = join(tmp.dir, 'binary.db');
    process.env.TMPDIR = tmp.dir;
    const r = await runCli(['--db', store, '--idempotency-key', 'bin-1', 'policies', 'import', '-'], {
      cwd: tmp.dir,
      prepare: (ctx) => {
        ctx.stdin = Readable.from(endless());
      },
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: stdin is not a policy CSV file: ${why}. Nothing was imported.\n  (code INVALID_FILE)\n`]);
    // Read up to the chunk that showed it (for a line, 3 MiB, 48 chunks: more bytes than a record
    // of 1 MiB of characters can take), and the few the streams read ahead: not all 4,096 offered.
    expect(taken).toBeLessThanOrEqual(64);
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('premia-stdin-'))).toEqual([]);
    if (existsSync(store)) {
      const list = await runCli(['--db', store, '--json', 'policies', 'list'], { cwd: tmp.dir });
      expect(list.json().data).toEqual([]);
    }
  });
});

// A file given by name is hashed where it is, before the import: a sparse file of a terabyte (or
// a disk image given by mistake) was read whole, hours, before the import refused its first
// bytes. The hash stops where the import is sure to refuse it. Bounded by the file's size: the
// test could not end within its run were the terabyte read.
it('a file that is not CSV text under --idempotency-key is refused without reading it whole', async () => {
  const file = join(tmp.dir, 'sparse.csv');
  writeFileSync(file, '');
  truncateSync(file, 1024 ** 4); // 1 TiB of NULs that take no disk
  const r = await runCli(['--db', join(tmp.dir, 'sparse.db'), '--idempotency-key', 'sparse-1', 'policies', 'import', 'sparse.csv'], { cwd: tmp.dir });
  expect([r.code, r.stdout, r.stderr]).toEqual([
    2,
    '',
    'error: sparse.csv is not a policy CSV file: line 1: the file contains NUL bytes; it is binary, not CSV text. Nothing was imported.\n  (code INVALID_FILE)\n',
  ]);
});
