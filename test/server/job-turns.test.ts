/**
 * The server's writes run one at a time on the job thread (src/server/jobs.ts), the clients taking
 * turns: one client's many queued jobs (twenty 100 MB imports) hold up another client's write by
 * the one running and the next in line, not by all of them. A stand-in job thread, which runs its jobs one at a time in the
 * order it gets them as the real one does, records the order; no store is needed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerJobs, type JobSpec } from '../../src/server/jobs.js';
import { tempDir } from '../helpers/cli.js';

/** Each job takes 20 ms and answers the client it ran for and its tag. */
const STAND_IN = `
import { parentPort } from 'node:worker_threads';
let queue = Promise.resolve();
parentPort.on('message', (m) => {
  if (m.type === 'close') { queue = queue.then(() => process.exit(0)); return; }
  queue = queue.then(async () => {
    parentPort.postMessage({ type: 'start', id: m.id });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const body = JSON.stringify({ client: m.spec.clientId, tag: m.spec.args[0] });
    parentPort.postMessage({ type: 'done', id: m.id, outcome: { status: 200, body, replayed: false, kept: true } });
  });
});
`;

let cleanup: () => void;
let jobs: WorkerJobs;

beforeAll(() => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  const module = join(temp.dir, 'stand-in-worker.mjs');
  writeFileSync(module, STAND_IN);
  jobs = new WorkerJobs(pathToFileURL(module), join(temp.dir, 'unused.db'), () => {});
});

afterAll(async () => {
  await jobs.close();
  cleanup();
});

const spec = (clientId: number, tag: string): JobSpec => ({ clientId, action: 'importPolicies', args: [tag], now: 0, status: 200 });

/** Run the jobs, all queued at once; the tags in the order they ended. */
async function ended(specs: JobSpec[]): Promise<string[]> {
  const order: string[] = [];
  await Promise.all(specs.map((s) => jobs.run(s).then((outcome) => order.push((JSON.parse(outcome.body) as { tag: string }).tag))));
  return order;
}

describe('jobs of several clients', () => {
  it("run a client's write after two of another client's queued jobs, not after all of them", async () => {
    // a1 runs; a2 waits, its client's turn next; b1 comes next, before a3 and a4.
    const order = await ended([spec(2, 'a1'), spec(2, 'a2'), spec(2, 'a3'), spec(2, 'a4'), spec(2, 'a5'), spec(3, 'b1')]);
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3', 'a4', 'a5']);
  });

  it("keep each client's own jobs in the order they came, the clients taking turns", async () => {
    const order = await ended([spec(2, 'a1'), spec(2, 'a2'), spec(3, 'b1'), spec(3, 'b2'), spec(3, 'b3'), spec(4, 'c1'), spec(2, 'a3')]);
    expect(order).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'b3']);
  });

  it('run in arrival order when no client has more than one job waiting', async () => {
    const order = await ended([spec(4, 'c1'), spec(2, 'a1'), spec(3, 'b1')]);
    expect(order).toEqual(['c1', 'a1', 'b1']);
  });
});
