/**
 * What `--output PATH` (and simulate's `--out`) does with each kind of path, on the real
 * filesystem: regular files are replaced atomically keeping their mode and owner, symlinks are
 * followed and left as links, FIFOs, devices, sockets and /dev/stdout-style paths are written
 * through, never replaced, and a directory where a file is wanted is an error.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Download } from '../../src/backend/types.js';
import { createContext } from '../../src/cli/context.js';
import { writeDownload } from '../../src/cli/output/download.js';
import { PremiaError } from '../../src/domain/errors.js';
import { rejection } from '../helpers/errors.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { BIN } from '../e2e/spawn.js';

const HEADER =
  'period_month,customer_id,external_customer_ref,policy_number,product_code,collection_amount_due,' +
  'collection_amount_collected,shortfall,collection_status,first_attempt_date,last_attempt_date,number_of_attempts,last_failure_reason\n';
const BODY = '2026-11,C100001,EXT-1,POL-0001,FUNERAL_BASIC,149.50,149.50,0.00,PAID_FULL,2026-11-03,2026-11-05,2,\n'.repeat(50);
const isRoot = process.getuid?.() === 0;
/** An earlier download of the same kind (its first line the same): what a report replaces without --force. */
const EARLIER = BODY.slice(0, BODY.indexOf('\n') + 1);

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('premia-output-')));
afterEach(() => cleanup());

const context = () => createContext({ stdout: new PassThrough(), stderr: new PassThrough(), stdin: Readable.from([]), cwd: dir });
const download = (text = BODY, filename = 'r.csv'): Download => ({
  filename,
  contentType: 'text/csv; charset=utf-8',
  body: (async function* () {
    for (let i = 0; i < text.length; i += 1000) yield text.slice(i, i + 1000);
  })(),
});
const mode = (path: string) => statSync(path).mode & 0o7777;

/** Run the built CLI (`npm test` builds dist first) with `args`; stdout and stderr are pipes. */
function premia(args: string[], options: { umask?: string; extraFd?: boolean } = {}): Promise<{ code: number | null; stdout: string; stderr: string; fd3: string }> {
  return new Promise((resolve, reject) => {
    const command = options.umask
      ? spawn('sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, BIN, ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] })
      : spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    const out = { stdout: '', stderr: '', fd3: '' };
    command.stdout.setEncoding('utf8').on('data', (c: string) => (out.stdout += c));
    command.stderr.setEncoding('utf8').on('data', (c: string) => (out.stderr += c));
    (command.stdio[3] as Readable).setEncoding('utf8').on('data', (c: string) => (out.fd3 += c));
    command.on('error', reject);
    command.on('close', (code) => resolve({ code, ...out }));
    command.stdin.end();
  });
}
const REPORT = ['--db', ':memory:', 'reports', 'collections', '--period', '2026-11'];

describe('a regular file is replaced atomically, keeping its mode and owner', () => {
  it.each([0o600, 0o640])('mode %o is kept', async (m) => {
    writeFileSync(join(dir, 'r.csv'), EARLIER);
    chmodSync(join(dir, 'r.csv'), m);
    const before = statSync(join(dir, 'r.csv')).ino;
    const written = await writeDownload(context(), download(), 'r.csv');
    expect(written).toEqual({ path: join(dir, 'r.csv'), bytes: Buffer.byteLength(BODY) });
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toBe(BODY);
    expect(mode(join(dir, 'r.csv'))).toBe(m);
    expect(statSync(join(dir, 'r.csv')).ino).not.toBe(before); // a new file renamed into place
    expect(readdirSync(dir)).toEqual(['r.csv']);
  });

  it.skipIf(!isRoot)('its owner and group are kept (where permitted: here, as root)', async () => {
    writeFileSync(join(dir, 'r.csv'), EARLIER);
    chownSync(join(dir, 'r.csv'), 1234, 5678);
    chmodSync(join(dir, 'r.csv'), 0o640);
    await writeDownload(context(), download(), 'r.csv');
    const st = statSync(join(dir, 'r.csv'));
    expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([1234, 5678, 0o640]);
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toBe(BODY);
  });

  it.each([
    ['027', 0o640],
    ['022', 0o644],
  ])('a new file gets 0666 less the umask (umask %s)', async (umask, expected) => {
    const r = await premia([...REPORT, '--output', 'new.csv'], { umask });
    expect(r.stderr).toBe(`Wrote the 2026-11 collections report to ${join(dir, 'new.csv')} (${HEADER.length} bytes).\n`);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'new.csv'), 'utf8')).toBe(HEADER);
    expect(mode(join(dir, 'new.csv'))).toBe(expected);
  });
});

describe('an existing file is replaced only by a download of its kind; a database never', () => {
  it('a file of something else (the input book) is refused, untouched, with no temporary file left; --force replaces it', async () => {
    const book = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,P1,LIFE,10.00\n';
    writeFileSync(join(dir, 'policies.csv'), book);
    const refused = await writeDownload(context(), download(), 'policies.csv').catch((e: PremiaError) => e);
    expect(refused).toBeInstanceOf(PremiaError);
    expect([(refused as PremiaError).code, (refused as PremiaError).exitCode]).toEqual(['VALIDATION_ERROR', 2]);
    expect((refused as PremiaError).message).toBe(
      `Cannot write --output policies.csv: ${join(dir, 'policies.csv')} already exists and is not a download of this kind ` +
        `(its first line is 'customer_id,external_customer_ref,policy_number,product_code,collection_amount'). Nothing was written; give another file name, or --force to replace it.`,
    );
    expect(readFileSync(join(dir, 'policies.csv'), 'utf8')).toBe(book);
    expect(readdirSync(dir)).toEqual(['policies.csv']);
    await writeDownload(context(), download(), 'policies.csv', undefined, '--output', true);
    expect(readFileSync(join(dir, 'policies.csv'), 'utf8')).toBe(BODY);
  });

  it('a long first line is quoted to 80 characters, marked as cut', async () => {
    writeFileSync(join(dir, 'notes.csv'), `${'x'.repeat(79)}yz\n`);
    const refused = await writeDownload(context(), download(), 'notes.csv').catch((e: PremiaError) => e);
    expect((refused as PremiaError).message).toContain(`(its first line is '${'x'.repeat(79)}y…')`);
  });

  it("an export removes the temporary files a killed export of the same name left (not a live one's)", async () => {
    const old = join(dir, '.r.csv.0123456789ab.tmp');
    const live = join(dir, '.r.csv.ba9876543210.tmp');
    const other = join(dir, '.q.csv.0123456789ab.tmp');
    for (const f of [old, live, other]) writeFileSync(f, 'partial');
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
    utimesSync(old, hourAgo, hourAgo);
    utimesSync(other, hourAgo, hourAgo);
    await writeDownload(context(), download(), 'r.csv');
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toBe(BODY);
    expect(readdirSync(dir).sort()).toEqual(['.q.csv.0123456789ab.tmp', '.r.csv.ba9876543210.tmp', 'r.csv']);
  });

  const jsonDownload = (text: string, filename = 'r.json'): Download => ({ filename, contentType: 'application/json', body: Readable.from([text]) });
  const REPORT_JSON = '{"period_month":"2026-11","period_state":{"state":"closed","as_of":"2026-11-30","closes_on":"2026-11-30","open_collections":0},"results":[]}\n';

  it('a JSON file that is not a JSON download of the same kind (a package.json, the attempts) is refused; last month\'s report, however spaced, is replaced', async () => {
    const pkg = '{"name":"acme-scripts","version":"1.0.0","files":["bin"]}\n';
    writeFileSync(join(dir, 'package.json'), pkg);
    const refused = await rejection(writeDownload(context(), jsonDownload(REPORT_JSON), 'package.json'));
    expect([refused.code, refused.exitCode, refused.details?.[0]?.code]).toEqual(['VALIDATION_ERROR', 2, 'WOULD_OVERWRITE']);
    expect(refused.message).toBe(
      `Cannot write --output package.json: ${join(dir, 'package.json')} already exists and is not a download of this kind ` +
        `(its first line is '{"name":"acme-scripts","version":"1.0.0","files":["bin"]}'). Nothing was written; give another file name, or --force to replace it.`,
    );
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(pkg);
    const attempts = '{"period_month":"2026-11","attempts":[]}\n';
    writeFileSync(join(dir, 'attempts.json'), attempts);
    expect((await rejection(writeDownload(context(), jsonDownload(REPORT_JSON), 'attempts.json'))).details?.[0]?.code).toBe('WOULD_OVERWRITE');
    expect(readFileSync(join(dir, 'attempts.json'), 'utf8')).toBe(attempts);
    expect(readdirSync(dir).sort()).toEqual(['attempts.json', 'package.json']);

    writeFileSync(join(dir, 'r.json'), '{\n  "period_month": "2026-10",\n  "results": [\n    {"policy_number": "P-1"}\n  ]\n}\n');
    await writeDownload(context(), jsonDownload(REPORT_JSON), 'r.json');
    expect(readFileSync(join(dir, 'r.json'), 'utf8')).toBe(REPORT_JSON);
    await writeDownload(context(), jsonDownload(REPORT_JSON), 'package.json', undefined, '--output', true);
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(REPORT_JSON);
  });

  it("an HTML page that is not last month's summary page is refused, though it begins <!DOCTYPE html> too", async () => {
    const page = (title: string) => `<!DOCTYPE html>\n<html lang="en">\n<head>\n<title>${title}</title>\n</head>\n<body></body>\n</html>\n`;
    const html = (text: string): Download => ({ filename: 'summary-2026-11.html', contentType: 'text/html; charset=utf-8', body: Readable.from([text]) });
    writeFileSync(join(dir, 'index.html'), page('Team wiki'));
    const refused = await rejection(writeDownload(context(), html(page('Collections 2026-11')), 'index.html', undefined, '--html'));
    expect(refused.message).toBe(
      `Cannot write --html index.html: ${join(dir, 'index.html')} already exists and is not a download of this kind (a page titled 'Team wiki'). ` +
        'Nothing was written; give another file name, or --force to replace it.',
    );
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toBe(page('Team wiki'));
    writeFileSync(join(dir, 'bare.html'), '<!DOCTYPE html>\n<p>notes</p>\n');
    expect((await rejection(writeDownload(context(), html(page('Collections 2026-11')), 'bare.html', undefined, '--html'))).message).toContain('(a page without a title)');
    writeFileSync(join(dir, 'month.html'), page('Collections 2026-10'));
    await writeDownload(context(), html(page('Collections 2026-11')), 'month.html', undefined, '--html');
    expect(readFileSync(join(dir, 'month.html'), 'utf8')).toBe(page('Collections 2026-11'));
  });

  it('a write-protected file (chmod a-w: a report kept as final) is refused even with --force, untouched, as > would refuse it', async () => {
    writeFileSync(join(dir, 'final.csv'), EARLIER);
    chmodSync(join(dir, 'final.csv'), 0o444);
    for (const force of [false, true]) {
      const refused = await rejection(writeDownload(context(), download(), 'final.csv', undefined, '--output', force));
      expect([refused.code, refused.exitCode]).toEqual(['VALIDATION_ERROR', 2]);
      expect(refused.message).toBe(
        `Cannot write --output final.csv: ${join(dir, 'final.csv')} is write-protected (mode 0444), and premia does not replace a file it may not write. ` +
          `Nothing was written; give another file name, or make it writable first (chmod u+w ${join(dir, 'final.csv')}).`,
      );
      expect(refused.details).toEqual([{ field: '--output', code: 'PERMISSION_DENIED', message: `${join(dir, 'final.csv')} is write-protected` }]);
    }
    expect(readFileSync(join(dir, 'final.csv'), 'utf8')).toBe(EARLIER);
    expect(readdirSync(dir)).toEqual(['final.csv']);
  });

  it('an empty file is replaced', async () => {
    writeFileSync(join(dir, 'r.csv'), '');
    await writeDownload(context(), download(), 'r.csv');
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toBe(BODY);
  });

  it('the store itself (or any SQLite file, or its WAL) is refused even with --force, before the report is read', async () => {
    const store = await runCli(['--db', 'premia.db', 'clock', 'set', '2026-10-31'], { cwd: dir });
    expect(store.code).toBe(0);
    const before = readFileSync(join(dir, 'premia.db'));
    const r = await premia(['--db', 'premia.db', 'reports', 'collections', '--period', '2026-11', '--output', 'premia.db', '--force']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Cannot write --output premia.db: ${join(dir, 'premia.db')} is a SQLite database (a premia store?), and a report is never written over one.`);
    expect(readFileSync(join(dir, 'premia.db')).equals(before)).toBe(true);
    const wal = Buffer.alloc(32);
    wal.writeUInt32BE(0x377f0682, 0);
    writeFileSync(join(dir, 'x.db-wal'), wal);
    const e = await writeDownload(context(), download(), 'x.db-wal', undefined, '--output', true).catch((err: PremiaError) => err);
    expect((e as PremiaError).details?.[0]).toMatchObject({ code: 'WOULD_OVERWRITE' });
    expect(readFileSync(join(dir, 'x.db-wal')).equals(wal)).toBe(true);
  });

  // SQLite removes the store's WAL and shared memory when it closes: a report renamed over either
  // was reported written, then gone. An idle WAL is empty and a -shm has no header, so the name
  // beside the store is what is refused, existing or not.
  it.each([
    ['premia.db-wal', 'without --force', []],
    ['premia.db-shm', 'with --force', ['--force']],
    ['premia.db-journal', 'with --force', ['--force']],
  ])("the store's own %s is refused %s, existing or not (exit 2, WOULD_OVERWRITE), and nothing is written", async (name, _how, force) => {
    const store = await runCli(['--db', 'premia.db', 'clock', 'set', '2026-10-31'], { cwd: dir });
    expect(store.code).toBe(0);
    const before = readFileSync(join(dir, 'premia.db'));
    const r = await premia(['--json', '--db', 'premia.db', 'reports', 'collections', '--period', '2026-11', '--output', name, ...force]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const target = join(dir, name);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message:
          `Cannot write --output ${name}: ${target} is the ${name.slice(name.lastIndexOf('-'))} file of the SQLite database ${join(dir, 'premia.db')} (a premia store?), ` +
          'which SQLite alone writes and removes, and a report is never written there. Nothing was written; give another file name.',
        request_id: null,
        details: [{ field: '--output', code: 'WOULD_OVERWRITE', message: `${target} belongs to the SQLite database ${join(dir, 'premia.db')}` }],
      },
    });
    expect(readFileSync(join(dir, 'premia.db')).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['premia.db']);
  });

  it("a database's -shm that exists (no header to tell it by), reached through a link, is refused even with force; a -wal beside a file that is not a database is written", async () => {
    const header = Buffer.from('SQLite format 3\0', 'latin1');
    writeFileSync(join(dir, 'x.db'), Buffer.concat([header, Buffer.alloc(100 - header.length)]));
    const shm = Buffer.alloc(32, 7);
    writeFileSync(join(dir, 'x.db-shm'), shm);
    symlinkSync('x.db-shm', join(dir, 'latest.csv'));
    const e = await rejection(writeDownload(context(), download(), 'latest.csv', undefined, '--output', true));
    expect([e.code, e.exitCode, e.details?.[0]?.code]).toEqual(['VALIDATION_ERROR', 2, 'WOULD_OVERWRITE']);
    expect(readFileSync(join(dir, 'x.db-shm')).equals(shm)).toBe(true);
    writeFileSync(join(dir, 'notes'), 'not a database\n');
    await writeDownload(context(), download(), 'notes-wal');
    expect(readFileSync(join(dir, 'notes-wal'), 'utf8')).toBe(BODY);
  });
});

describe('a symlink is followed: its target is replaced, the link stays', () => {
  it('a relative link to an existing file', async () => {
    mkdirSync(join(dir, 'reports'));
    writeFileSync(join(dir, 'reports', 'r-2026-11.csv'), EARLIER);
    chmodSync(join(dir, 'reports', 'r-2026-11.csv'), 0o600);
    symlinkSync('reports/r-2026-11.csv', join(dir, 'latest.csv'));
    const written = await writeDownload(context(), download(), 'latest.csv');
    expect(written.path).toBe(join(dir, 'latest.csv'));
    expect(lstatSync(join(dir, 'latest.csv')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'latest.csv'))).toBe('reports/r-2026-11.csv');
    expect(readFileSync(join(dir, 'reports', 'r-2026-11.csv'), 'utf8')).toBe(BODY);
    expect(mode(join(dir, 'reports', 'r-2026-11.csv'))).toBe(0o600);
    expect(readdirSync(join(dir, 'reports'))).toEqual(['r-2026-11.csv']);
    expect(readdirSync(dir).sort()).toEqual(['latest.csv', 'reports']);
  });

  it('a chain of links, relative then absolute, through a linked directory', async () => {
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'c.csv'), EARLIER);
    symlinkSync(join(dir, 'real'), join(dir, 'linked-dir'));
    symlinkSync(join(dir, 'linked-dir', 'c.csv'), join(dir, 'b')); // absolute
    symlinkSync('b', join(dir, 'a')); // relative
    await writeDownload(context(), download(), 'a');
    expect([lstatSync(join(dir, 'a')).isSymbolicLink(), lstatSync(join(dir, 'b')).isSymbolicLink(), lstatSync(join(dir, 'linked-dir')).isSymbolicLink()]).toEqual([
      true,
      true,
      true,
    ]);
    expect(readFileSync(join(dir, 'real', 'c.csv'), 'utf8')).toBe(BODY);
    expect(readdirSync(join(dir, 'real'))).toEqual(['c.csv']);
  });

  it('a relative link inside a linked directory is read from the directory the link is in', async () => {
    mkdirSync(join(dir, 'deep', 'inner'), { recursive: true });
    writeFileSync(join(dir, 'deep', 'target.csv'), EARLIER);
    symlinkSync('../target.csv', join(dir, 'deep', 'inner', 'link.csv'));
    symlinkSync(join(dir, 'deep', 'inner'), join(dir, 'shortcut'));
    // Lexically shortcut/../target.csv would be <dir>/target.csv; the kernel reads deep/target.csv.
    await writeDownload(context(), download(), 'shortcut/link.csv');
    expect(readFileSync(join(dir, 'deep', 'target.csv'), 'utf8')).toBe(BODY);
    expect(existsSync(join(dir, 'target.csv'))).toBe(false);
    expect(lstatSync(join(dir, 'deep', 'inner', 'link.csv')).isSymbolicLink()).toBe(true);
  });

  it('a dangling link: the file it names is created, with 0666 less the umask', async () => {
    mkdirSync(join(dir, 'archive'));
    symlinkSync('archive/new.csv', join(dir, 'latest.csv'));
    await writeDownload(context(), download(), 'latest.csv');
    expect(readlinkSync(join(dir, 'latest.csv'))).toBe('archive/new.csv');
    expect(readFileSync(join(dir, 'archive', 'new.csv'), 'utf8')).toBe(BODY);
  });

  it("a dangling link into a directory that does not exist: exit 2, nothing created", async () => {
    symlinkSync('nowhere/new.csv', join(dir, 'latest.csv'));
    const e = await rejection(writeDownload(context(), download(), 'latest.csv'));
    expect([e.exitCode, e.message]).toEqual([2, `Cannot write --output latest.csv: the directory ${join(dir, 'nowhere')} does not exist. Create it first or choose another path.`]);
    expect(readdirSync(dir)).toEqual(['latest.csv']);
  });

  it('a loop of links: exit 2', async () => {
    symlinkSync('b', join(dir, 'a'));
    symlinkSync('a', join(dir, 'b'));
    const e = await rejection(writeDownload(context(), download(), 'a'));
    expect([e.code, e.exitCode]).toEqual(['VALIDATION_ERROR', 2]);
    expect(e.message).toBe(`Cannot write --output a: ${join(dir, 'a')} is a loop of symbolic links (or more than 40 of them).`);
    expect(readdirSync(dir).sort()).toEqual(['a', 'b']);
  });
});

describe('FIFOs, devices and sockets are written through, never replaced', () => {
  it('a FIFO read by a concurrent reader gets every byte and stays a FIFO', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    let received = '';
    reader.stdout.setEncoding('utf8').on('data', (c: string) => (received += c));
    const closed = new Promise((r) => reader.on('close', r));
    try {
      const written = await writeDownload(context(), download(), 'pipe');
      expect(lstatSync(fifo).isFIFO()).toBe(true); // (else the reader would wait for ever)
      await closed;
      expect(written).toEqual({ path: fifo, bytes: Buffer.byteLength(BODY) });
      expect(received).toBe(BODY);
      expect(readdirSync(dir)).toEqual(['pipe']);
    } finally {
      reader.kill();
    }
  });

  it.skipIf(!isRoot)('a character device (a null device made here) stays that device', async () => {
    const device = join(dir, 'null');
    execFileSync('mknod', [device, 'c', '1', '3']);
    const rdev = lstatSync(device).rdev;
    const written = await writeDownload(context(), download(), 'null');
    expect(written.bytes).toBe(Buffer.byteLength(BODY));
    expect([lstatSync(device).isCharacterDevice(), lstatSync(device).rdev]).toEqual([true, rdev]);
    expect(readdirSync(dir)).toEqual(['null']);
  });

  it('a Unix socket: connected to and written through', async () => {
    const path = join(dir, 'sock');
    let received = '';
    let done!: Promise<void>;
    const server = createServer((socket) => {
      done = new Promise((resolve) => socket.on('end', () => server.close(() => resolve())));
      socket.setEncoding('utf8').on('data', (c: string) => (received += c));
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const written = await writeDownload(context(), download(), 'sock');
    await done;
    expect(written.bytes).toBe(Buffer.byteLength(BODY));
    expect(received).toBe(BODY);
  });

  it("/dev/stdout and /dev/fd/N write to the command's own descriptors; /dev/stdout stays a link", async () => {
    // First through a link of our own to /dev/stdout: code that replaces whatever it is given
    // would replace only this link, and the test stops here before touching /dev/stdout itself.
    symlinkSync('/dev/stdout', join(dir, 'out.csv'));
    const wrote = (path: string) => `Wrote the 2026-11 collections report to ${path} (${HEADER.length} bytes).\n`;
    const viaLink = await premia([...REPORT, '--output', 'out.csv']);
    expect(viaLink).toEqual({ code: 0, stdout: HEADER, stderr: wrote(join(dir, 'out.csv')), fd3: '' });
    expect(readlinkSync(join(dir, 'out.csv'))).toBe('/dev/stdout');

    const before = lstatSync('/dev/stdout');
    expect(before.isSymbolicLink()).toBe(true);
    const target = readlinkSync('/dev/stdout');
    const r = await premia([...REPORT, '--output', '/dev/stdout']);
    expect(r).toEqual({ code: 0, stdout: HEADER, stderr: wrote('/dev/stdout'), fd3: '' });
    const after = lstatSync('/dev/stdout');
    expect([after.isSymbolicLink(), after.ino, readlinkSync('/dev/stdout')]).toEqual([true, before.ino, target]);

    const fd3 = await premia([...REPORT, '--output', '/dev/fd/3']);
    expect(fd3).toEqual({ code: 0, stdout: '', stderr: wrote('/dev/fd/3'), fd3: HEADER });
  });
});

describe('a directory', () => {
  it('--output DIR writes the download under its own name in DIR (also through a link to DIR)', async () => {
    mkdirSync(join(dir, 'out'));
    symlinkSync('out', join(dir, 'out-link'));
    await writeDownload(context(), download(BODY, 'collections-2026-11.csv'), 'out-link');
    expect(readFileSync(join(dir, 'out', 'collections-2026-11.csv'), 'utf8')).toBe(BODY);
    expect(lstatSync(join(dir, 'out-link')).isSymbolicLink()).toBe(true);
  });

  it("where the download's own name is a directory too: VALIDATION_ERROR, exit 2, nothing written", async () => {
    mkdirSync(join(dir, 'out', 'collections-2026-11.json'), { recursive: true });
    const r = await runCli([...REPORT, '--format', 'json', '--json', '--output', 'out'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: `Cannot write --output out: ${join(dir, 'out', 'collections-2026-11.json')} is a directory. Give a file name, or remove the directory.`,
        request_id: null,
        details: [{ field: '--output', code: 'IS_A_DIRECTORY', message: `${join(dir, 'out', 'collections-2026-11.json')} is a directory` }],
      },
    });
    expect(readdirSync(join(dir, 'out', 'collections-2026-11.json'))).toEqual([]);
    expect(readdirSync(join(dir, 'out'))).toEqual(['collections-2026-11.json']);
  });

  // `--output newdir/` wrote a file named `newdir` (exit 0), and `--output out.csv/` replaced
  // the file out.csv: the slash, which says "a directory", was dropped.
  it('DIR/ that does not exist: exit 2, DIRECTORY_NOT_FOUND, no file named DIR', async () => {
    const r = await runCli([...REPORT, '--output', 'newdir/'], { cwd: dir });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: Cannot write --output newdir/: the directory ${join(dir, 'newdir')} does not exist. Create it first or choose another path.\n  (code VALIDATION_ERROR)\n`,
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('FILE/ naming a file: exit 2, NOT_A_DIRECTORY, the file untouched', async () => {
    writeFileSync(join(dir, 'out.csv'), EARLIER);
    const r = await runCli(['--json', ...REPORT, '--output', 'out.csv/'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: `Cannot write --output out.csv/: ${join(dir, 'out.csv')} is not a directory.`,
        request_id: null,
        details: [{ field: '--output', code: 'NOT_A_DIRECTORY', message: `${join(dir, 'out.csv')} is not a directory` }],
      },
    });
    expect(readFileSync(join(dir, 'out.csv'), 'utf8')).toBe(EARLIER);
    expect(readdirSync(dir)).toEqual(['out.csv']);
  });

  it('DIR/ that exists: the download under its own name in DIR', async () => {
    mkdirSync(join(dir, 'out'));
    await writeDownload(context(), download(BODY, 'collections-2026-11.csv'), 'out/');
    expect(readFileSync(join(dir, 'out', 'collections-2026-11.csv'), 'utf8')).toBe(BODY);
  });

  it('simulate --out naming a file: exit 2 before anything runs, the file untouched', async () => {
    writeFileSync(join(dir, 'results'), 'mine\n');
    const r = await runCli(['--json', 'simulate', '--out', 'results'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: `Cannot write --out results: ${join(dir, 'results')} is not a directory (or lies under a file). Give a directory, or a path that does not exist yet.`,
    });
    expect(readFileSync(join(dir, 'results'), 'utf8')).toBe('mine\n');
    expect(readdirSync(dir)).toEqual(['results']);
  });

  // /proc answers ENOENT for a new file or directory in it: simulate's --out spun a core for ever
  // (Node's recursive mkdir makes the parent again and again), and --output said "the directory
  // /proc does not exist".
  const proc = existsSync('/proc/self') ? `/proc/premia-${process.pid}` : null;
  it.skipIf(proc === null)('simulate --out and --output under /proc, a directory that takes no new files: exit 2, saying so', async () => {
    const sim = await runCli(['simulate', '--out', `${proc}/sim`], { cwd: dir });
    expect([sim.code, sim.stdout, sim.stderr]).toEqual([
      2,
      '',
      `error: Cannot write --out ${proc}/sim: /proc takes no new files (its file system refused to make one there). Choose another directory.\n  (code VALIDATION_ERROR)\n`,
    ]);
    const report = await runCli(['--json', ...REPORT, '--output', `/proc/premia-${process.pid}.csv`], { cwd: dir });
    expect(report.code).toBe(2);
    expect(JSON.parse(report.stderr).error).toEqual({
      code: 'VALIDATION_ERROR',
      message: `Cannot write --output /proc/premia-${process.pid}.csv: /proc takes no new files (its file system refused to make one there). Choose another directory.`,
      request_id: null,
      details: [{ field: '--output', code: 'PERMISSION_DENIED', message: 'no file can be made in /proc' }],
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  // A name too long was "Writing --output … failed (ENAMETOOLONG …)" (exit 1) with the whole path
  // twice; a path too long whose directories do not exist was "premia failed unexpectedly" (the
  // stat that tells /proc apart threw), as an input file or a --db too long is not.
  it.each([
    ['a name of more than 255 bytes', 'a'.repeat(300)],
    ['a path of more than 4096 bytes', `${'d/'.repeat(2100)}r.csv`],
  ])('%s: exit 2 saying the path is too long, for --output, --out and fixtures copy; nothing made', async (_name, path) => {
    const why = 'the path is too long (a name of more than 255 bytes, or a path of more than 4096)';
    const shown = `${path.slice(0, 200)}…`;
    for (const [args, option] of [
      [[...REPORT, '--output', path], '--output'],
      [['simulate', '--out', path], '--out'],
      [['fixtures', 'copy', path], 'DIR'],
    ] as const) {
      const r = await runCli(['--json', ...args], { cwd: dir });
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(JSON.parse(r.stderr).error).toEqual({
        code: 'VALIDATION_ERROR',
        message: `Cannot write ${option} ${shown}: ${why}.`,
        request_id: null,
        details: [{ field: option, code: 'INVALID_VALUE', message: why }],
      });
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});

// `--output "$DIR"` with DIR unset: an empty path resolved to the working directory (a cron job's
// is its home), and the file was written there, exit 0.
describe('an empty path is a usage error, as an empty --db is: nothing written, nothing read', () => {
  it.each([
    [['reports', 'collections', '--period', '2026-11', '--output'], '--output is empty; give a file or a directory.'],
    [['reports', 'summary', '--period', '2026-11', '--html'], '--html is empty; give a file or a directory.'],
    [['collections', 'attempts', '--period', '2026-11', '--output'], '--output is empty; give a file or a directory.'],
    [['settlements', 'export', 'SETTLE-2026-11-001', '--output'], '--output is empty; give a file or a directory.'],
    [['simulate', '--out'], '--out is empty; give a directory.'],
    [['fixtures', 'copy'], 'DIR is empty; give a directory.'],
    [['policies', 'import'], 'The file name is empty; give a CSV file, or - for stdin.'],
    [['bank', 'import'], 'The file name is empty; give a CSV file, or - for stdin.'],
    [['calendar', 'import'], 'The file name is empty; give a CSV file, or - for stdin.'],
  ])('%j ""', async (args, message) => {
    for (const empty of ['', ' ']) {
      const r = await runCli(['--db', join(dir, 'premia.db'), ...args, empty], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`error: ${message}\n  (code USAGE_ERROR)\n`);
      expect(readdirSync(dir)).toEqual([]);
    }
  });
});

// Ctrl-C's default effect ended the process at once and left the hidden partial copy (tens of
// megabytes for a large report) beside the target until an export ten minutes later.
describe('Ctrl-C while a file is written: stopped at the next piece, nothing kept, exit 130', () => {
  /** The report in pieces, with Ctrl-C pressed on `signals` once the second has been handed over. */
  const pressedMidway = (signals: NodeJS.EventEmitter): Download => ({
    filename: 'r.csv',
    contentType: 'text/csv; charset=utf-8',
    body: (async function* () {
      yield HEADER;
      yield BODY;
      signals.emit('SIGINT');
      yield BODY;
    })(),
  });

  it('a new file is not made, and no temporary file is left', async () => {
    const ctx = context();
    const e = await rejection(writeDownload(ctx, pressedMidway(ctx.signals), 'r.csv'));
    expect(e.code).toBe('CANCELLED');
    expect(e.exitCode).toBe(130);
    expect(e.message).toBe(`Stopped by Ctrl-C: nothing was written; ${join(dir, 'r.csv')} was not made.`);
    expect(readdirSync(dir)).toEqual([]);
    expect(ctx.signals.listenerCount('SIGINT')).toBe(0);
  });

  it('an earlier report is left as it was', async () => {
    writeFileSync(join(dir, 'r.csv'), HEADER + EARLIER);
    const ctx = context();
    const e = await rejection(writeDownload(ctx, pressedMidway(ctx.signals), 'r.csv'));
    expect(e.message).toBe(`Stopped by Ctrl-C: nothing was written; ${join(dir, 'r.csv')} is as it was.`);
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toBe(HEADER + EARLIER);
    expect(readdirSync(dir)).toEqual(['r.csv']);
  });

  it('once the file is in place, a Ctrl-C is let pass once (the command says what it wrote)', async () => {
    const ctx = context();
    await writeDownload(ctx, download(HEADER + BODY), 'r.csv');
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toBe(HEADER + BODY);
    expect(ctx.signals.listenerCount('SIGINT')).toBe(1);
  });
});
