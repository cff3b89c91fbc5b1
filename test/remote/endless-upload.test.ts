/**
 * Remote mode: binary content from a stream of no known end (/dev/zero, a pipe of /dev/urandom)
 * was sent on without end while the service waited for its end to answer (local mode refuses it
 * at once). The client stops at the chunk that shows it, before the upload is complete: the local
 * message, exit 2, and nothing imported.
 */
import { Readable } from 'node:stream';
import { afterAll, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { NOW, remoteEnv, runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';

const { dir, cleanup } = tempDir('premia-endless-');
let server: LiveServer | undefined;
afterAll(async () => {
  await server?.close();
  cleanup();
});

/** stdin that never ends: zeros, a MiB at a time. */
function endless(): Readable {
  const zeros = Buffer.alloc(1 << 20);
  return new Readable({
    read() {
      this.push(zeros);
    },
  });
}

it('policies import - of an endless binary stream: refused at once, nothing imported', async () => {
  server = await startLiveServer();
  const env = remoteEnv(server.url, server.keys.acme);
  const r = await runCli(['--json', 'policies', 'import', '-'], { cwd: dir, env, now: NOW, prepare: (ctx) => void (ctx.stdin = endless()) });
  const reason = 'line 1: the file contains NUL bytes; it is binary, not CSV text';
  expect([r.code, r.stdout, JSON.parse(r.stderr)]).toEqual([
    2,
    '',
    { error: { code: 'INVALID_FILE', message: `stdin is not a policy CSV file: ${reason}. Nothing was imported.`, request_id: null, details: [{ field: 'file', code: 'INVALID_FILE', message: reason }] } },
  ]);
  const list = await runPremia(['--json', 'policies', 'list'], { cwd: dir, env });
  expect(list.json()).toEqual({ data: [], next_after: null });
});
