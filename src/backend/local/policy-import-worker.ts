/**
 * The policy import's reading thread: takes the file in pieces from the importing thread,
 * parses and validates them (PolicyRowParser), and sends back batches of valid rows while the
 * importing thread inserts the previous ones. Messages:
 *   in:  {type: 'chunk', data: Uint8Array} … {type: 'end'}
 *   out: {type: 'batch', batch}, {type: 'ack', spare?} after each chunk (spare: its array, given
 *        back to be used again), {type: 'done'},
 *        or {type: 'error', error: {premia, code, message, details}} after which it stops.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PremiaError } from '../../domain/errors.js';
import { PolicyRowParser, type PolicyBatch } from './policy-rows.js';

const port = parentPort!;
const { fileName, idSalt } = workerData as { fileName: string; idSalt: number | null };
let stopped = false;

const parser = new PolicyRowParser(
  fileName,
  (batch: PolicyBatch) => {
    port.postMessage({ type: 'batch', batch }, [batch.bytes.buffer as ArrayBuffer, batch.offsets.buffer as ArrayBuffer, batch.amounts.buffer as ArrayBuffer, batch.lines.buffer as ArrayBuffer]);
  },
  idSalt,
);

port.on('message', (message: { type: 'chunk'; data: Uint8Array } | { type: 'end' }) => {
  if (stopped) return;
  try {
    if (message.type === 'chunk') {
      parser.push(message.data);
      // The piece's array goes back to be filled again: once the header is read the parser keeps
      // nothing of a piece it was given (it copies the rows' bytes; only the file's first few
      // bytes may be held, while it judges what the file is).
      const spare = message.data.buffer as ArrayBuffer;
      if (parser.headerRead) port.postMessage({ type: 'ack', spare }, [spare]);
      else port.postMessage({ type: 'ack' });
    } else {
      parser.end();
      port.postMessage({ type: 'done' });
    }
  } catch (e) {
    stopped = true;
    const error =
      e instanceof PremiaError
        ? { premia: true, code: e.code, message: e.message, details: e.details }
        : { premia: false, code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
    port.postMessage({ type: 'error', error });
  }
});
