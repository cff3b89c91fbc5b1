/**
 * The server's job thread (see jobs.ts): its own connection to the store, and the jobs the
 * request thread sends, run one at a time in the order they came (the request thread sends one at
 * a time, the clients taking turns: see WorkerJobs). Messages:
 *   in:  {type: 'job', id, spec}
 *   out: {type: 'start', id}, {type: 'progress', id, progress}…, then {type: 'done', id, outcome}
 *        or {type: 'error', id, error}.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openLocalBackend, type LocalBackend } from '../backend/local/index.js';
import { runJob, sendableError, type FromWorker, type ToWorker } from './jobs.js';

const port = parentPort!;
const { storePath } = workerData as { storePath: string };
let store: Promise<LocalBackend> | null = null;
let queue: Promise<void> = Promise.resolve();

const send = (m: FromWorker) => port.postMessage(m);

port.on('message', (m: ToWorker) => {
  if (m.type === 'close') {
    // After the jobs already queued: close the store cleanly, then end this thread.
    queue = queue.then(async () => {
      if (store) await (await store.catch(() => null))?.close();
      process.exit(0);
    });
    return;
  }
  queue = queue.then(async () => {
    send({ type: 'start', id: m.id });
    try {
      // The store the server serves (made by then): opened once, as a backend owning it.
      // Jobs run one at a time: nothing else on this thread uses the store while one advances.
      store ??= openLocalBackend({ path: storePath, create: false, aloneOnThread: true });
      const base = await store.catch((e) => {
        store = null; // try again with the next job
        throw e;
      });
      // The request's wall clock, for the timestamps the operation writes.
      const now = () => new Date(m.spec.now);
      const outcome = await runJob(base, (clientId) => base.forClient(clientId, { now }), m.spec, (progress) =>
        send({ type: 'progress', id: m.id, progress }),
      );
      send({ type: 'done', id: m.id, outcome });
    } catch (e) {
      send({ type: 'error', id: m.id, error: sendableError(e) });
    }
  });
});
