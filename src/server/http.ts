/** Response writing and error mapping of the HTTP service. */
import { Readable } from 'node:stream';
import { setImmediate as nextTurnOfLoop } from 'node:timers/promises';
import type { FastifyError, FastifyReply } from 'fastify';
import type { BodyKind } from '../backend/operations.js';
import type { Download } from '../backend/types.js';
import { isDiskFull } from '../domain/disk-full.js';
import { PremiaError, validationError } from '../domain/errors.js';
import { stringifyJson } from '../domain/json.js';
import { redactKeysIn } from '../lib/key-text.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

export function sendJson(reply: FastifyReply, status: number, value: unknown): FastifyReply {
  return reply.code(status).type(JSON_TYPE).send(stringifyJson(value));
}

/**
 * The spec's error body (section 7), with request_id equal to the X-Request-Id header, and any
 * API key in it redacted (a key sent where an id belongs comes back in "was not found"): a body a
 * proxy or a client logs never holds a whole key, as the service's own log never does.
 */
export function errorBody(e: PremiaError, requestId: string): string {
  return redactKeysIn(stringifyJson(e.toBody(requestId)));
}

/**
 * Send a Download streamed from its body. The first chunk is read before anything is sent, so a
 * failure to start the export is still answered with a proper error status and body.
 */
export async function sendDownload(reply: FastifyReply, download: Download): Promise<FastifyReply> {
  const iterator = download.body[Symbol.asyncIterator]();
  // The body's source (a store connection, a PostgreSQL COPY) is given back however the download
  // ends: read to the end, failed, or abandoned by the client (also before the first chunk came).
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
  };
  let gone = false;
  const left = () => (gone = true);
  reply.raw.once('close', left);
  const first = await iterator.next().catch((e: unknown) => {
    close();
    throw e;
  });
  reply.raw.removeListener('close', left);
  if (gone || reply.raw.destroyed) {
    close(); // the client went away while the first chunk was awaited: nothing to send it to
    return reply;
  }
  async function* rest(): AsyncGenerator<Buffer> {
    try {
      if (first.done) return;
      yield toBuffer(first.value);
      for (;;) {
        // Every chunk gives the event loop a turn: a report's pages come from SQLite synchronously
        // and a fast reader never makes the socket wait, so without it a 100k-row download held
        // every other client's request until its last byte (half a second; seconds for 1M rows).
        await nextTurnOfLoop();
        const next = await iterator.next();
        if (next.done) return;
        yield toBuffer(next.value);
      }
    } finally {
      close();
    }
  }
  reply.code(200).type(download.contentType);
  if (download.contentType.startsWith('text/csv')) {
    reply.header('content-disposition', `attachment; filename="${download.filename.replace(/["\\\r\n]/g, '_')}"`);
  }
  if (reply.request.method === 'HEAD') {
    // The status and headers a GET gets (its first chunk read, so a refusal is the same), not the
    // rest of the rows, which fastify would read to the end only to drop them. An empty stream,
    // not no body: fastify writes `Content-Length: 0` for a HEAD without one, telling the caller
    // the report is empty, where the GET streams it chunked, its length unknown until its end.
    close();
    return reply.send(Readable.from([]));
  }
  const stream = Readable.from(rest(), { objectMode: false });
  // Destroyed before rest() ran (a generator that never started skips its finally).
  stream.once('close', close);
  return reply.send(stream);
}

function toBuffer(chunk: Uint8Array | string): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

export interface ErrorContext {
  jsonLimit: number;
  uploadLimit: number;
  /** What the request's endpoint takes as its body, when known: a 415 then says what to send. */
  body?: BodyKind;
}

/**
 * 415 for a body of a type the endpoint does not take, saying what it does take: an upload
 * endpoint a file in multipart/form-data, any other a JSON body. A CSV sent as text/csv to the
 * import is told how to send it, not to "send JSON as application/json".
 */
export function unsupportedMediaType(body: BodyKind | undefined): PremiaError {
  const message =
    body === 'upload'
      ? 'Send the file as multipart/form-data, in a part named file (curl -F file=@policies.csv).'
      : body === 'json' || body === 'json-optional'
        ? 'This endpoint takes a JSON body: send Content-Type: application/json.'
        : 'This Content-Type is not accepted here: send JSON as application/json, and files as multipart/form-data.';
  return new PremiaError('UNSUPPORTED_MEDIA_TYPE', message);
}

/** STORE_UNAVAILABLE for a fault of the service's set-up: what happened, what it means for the request, when to retry. */
function setUpProblem(situation: string, consequence: string, retry: string): { error: PremiaError; internal: true } {
  const message = `${situation} (a problem of the service's set-up, not of this request)${consequence} ${retry} (the operator's log has the details under this request id).`;
  return { error: new PremiaError('STORE_UNAVAILABLE', message), internal: true };
}

/**
 * Any error as a PremiaError for the response. Errors of fastify and its plugins (body parsing,
 * content types, multipart limits) get premia's codes; anything else is an INTERNAL error whose
 * message says nothing of the internals (the caller logs the stack).
 */
export function toPremiaError(e: unknown, ctx: ErrorContext): { error: PremiaError; internal: boolean } {
  // A fault of the service's set-up, not of the request: its details (the store's path, where the
  // disk is) are the operator's to see, in the log, not the caller's.
  // The store is read-only for the server's user (the CLI's exit 2).
  if (e instanceof PremiaError && e.details?.some((d) => d.code === 'STORE_READ_ONLY')) {
    return setUpProblem('The service cannot write to its store just now', '; nothing was changed.', 'Try again later');
  }
  // The store file is gone from its path while the service runs (deleted, or moved with mv): the
  // job thread cannot open it. Not the caller's mistake (the CLI's 400).
  if (e instanceof PremiaError && e.details?.some((d) => d.code === 'STORE_NOT_FOUND')) {
    return setUpProblem('The service cannot find its store just now', '; nothing was changed.', 'Try again later');
  }
  // A disk of the store (or of its temporary files) is full (domain/disk-full.ts): nothing of
  // this request was kept, and only the operator can make room.
  if (isDiskFull(e)) {
    return setUpProblem(
      "The service's store has no room left on its disk",
      ': what this request was writing was rolled back, and the store is as its last commit left it (an advance keeps the days it lived: GET /clock shows the date reached).',
      'Try again once the operator has freed some space',
    );
  }
  if (e instanceof PremiaError) {
    if (e.status >= 500 && e.code !== 'NOT_SUPPORTED' && e.code !== SERVICE_UNAVAILABLE) {
      // What the caller can act on, and nothing of the internals (a store's address, a driver's words).
      const message =
        e.code === 'STORE_BUSY'
          ? 'The store is busy (another process holds it); try again shortly.'
          : e.code === 'STORE_UNAVAILABLE'
            ? "The service cannot reach its database just now. What this request had committed before stays (an advance keeps the days it lived: GET /clock shows the date reached; resume it with a date, not a number of days); nothing more was done. Try again shortly (the operator's log has the details under this request id)."
            : 'The service failed unexpectedly; the error was logged with this request id.';
      return { error: new PremiaError(e.code, message, { status: e.status }), internal: true };
    }
    return { error: e, internal: false };
  }
  const fe = e as Partial<FastifyError> & { message?: string };
  const code = typeof fe.code === 'string' ? fe.code : '';
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return known(
        new PremiaError('PAYLOAD_TOO_LARGE', `The JSON body is larger than the limit of ${ctx.jsonLimit} bytes.`, {
          details: [{ field: 'body', code: 'TOO_LARGE', message: `at most ${ctx.jsonLimit} bytes`, limit: ctx.jsonLimit }],
        }),
      );
    case 'FST_REQ_FILE_TOO_LARGE':
      return known(uploadTooLarge(ctx.uploadLimit));
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return known(unsupportedMediaType(ctx.body));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return known(
        validationError('The body is empty; send a JSON object.', [{ field: 'body', code: 'REQUIRED', message: 'the JSON body is empty' }]),
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return known(
        validationError('The Content-Length does not match the body.', [{ field: 'body', code: 'INVALID_LENGTH', message: 'Content-Length and body differ' }]),
      );
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return known(
        validationError('Send exactly one file, in a part named file; nothing was imported.', [
          { field: 'file', code: 'TOO_MANY_PARTS', message: 'the form has more than one file or too many parts' },
        ]),
      );
    // The client went away while its body was being read (Node's 'aborted'): nobody gets the
    // answer, but it is a client's doing, logged as one line, not a server failure's stack.
    case 'ECONNRESET':
    case 'FST_MP_PREMATURE_CLOSE':
      return known(
        validationError('The upload ended before the file was complete.', [{ field: 'file', code: 'INCOMPLETE', message: 'the multipart body ended early' }]),
      );
    case 'FST_ERR_BAD_URL':
      return known(
        validationError('The URL has a malformed percent-escape (%XX); encode the path as UTF-8.', [
          { field: 'path', code: 'INVALID_ENCODING', message: 'the path is not valid percent-encoded UTF-8' },
        ]),
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return known(
        validationError('A path segment is longer than 100 characters; no id or number is that long.', [
          { field: 'path', code: 'TOO_LONG', message: 'a path segment is longer than 100 characters' },
        ]),
      );
    case 'FST_PROTO_VIOLATION':
      return known(validationError('A form field name is not allowed.', [{ field: 'file', code: 'INVALID_FIELD', message: 'forbidden field name' }]));
    default:
      break;
  }
  const malformed = malformedMultipart(e);
  if (malformed) return known(malformed);
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status === 400 || (e instanceof SyntaxError && status < 500)) {
    // Malformed JSON (and the prototype-poisoning guard) arrive here.
    const what = (fe.message ?? 'bad request').slice(0, 200);
    return known(
      validationError(`The body is not valid JSON: ${what}.`, [{ field: 'body', code: 'INVALID_JSON', message: what }]),
    );
  }
  if (status === 404) return known(new PremiaError('NOT_FOUND', 'Not found.'));
  if (status === 413) return known(new PremiaError('PAYLOAD_TOO_LARGE', 'The request is too large.'));
  if (status === 415) return known(new PremiaError('UNSUPPORTED_MEDIA_TYPE', 'This Content-Type is not accepted here.'));
  if (status > 400 && status < 500) return known(new PremiaError('VALIDATION_ERROR', (fe.message ?? 'Bad request.').slice(0, 200), { status }));
  return {
    error: new PremiaError('INTERNAL', 'The service failed unexpectedly; the error was logged with this request id.'),
    internal: true,
  };
}

/**
 * busboy's errors for a multipart body that is not one: no boundary (or an empty or over-long one)
 * in the Content-Type, or a body that ends before its closing boundary. They carry no code, only
 * a message; errors of the file system (which carry a code) are never taken for them.
 */
export function malformedMultipart(e: unknown): PremiaError | null {
  if (!(e instanceof Error) || (e as NodeJS.ErrnoException).code !== undefined || e instanceof PremiaError) return null;
  const m = e.message;
  if (/^Multipart: Boundary not found$|^Boundary required$|^The needle (cannot be an empty|cannot have a length bigger)/.test(m)) {
    return validationError(
      'The multipart body has no usable boundary: send Content-Type: multipart/form-data; boundary=... with a body in that form (curl -F file=@policies.csv does both); nothing was imported.',
      [{ field: 'file', code: 'MALFORMED_MULTIPART', message: 'the Content-Type has no usable multipart boundary' }],
    );
  }
  if (/^Unexpected end of multipart data$|terminated early due to unexpected end of multipart data$/.test(m)) {
    return validationError('The multipart body ended before its closing boundary: the upload is incomplete or not multipart/form-data; nothing was imported.', [
      { field: 'file', code: 'INCOMPLETE', message: 'the multipart body ended before its closing boundary' },
    ]);
  }
  return null;
}

/** The code of a 503 answered while the server shuts down (STORE_BUSY is the store held by another process). */
export const SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE';

function known(error: PremiaError): { error: PremiaError; internal: boolean } {
  return { error, internal: false };
}

export function uploadTooLarge(limit: number): PremiaError {
  return new PremiaError('PAYLOAD_TOO_LARGE', `The file is larger than the upload limit of ${limit} bytes; nothing was imported.`, {
    details: [{ field: 'file', code: 'TOO_LARGE', message: `at most ${limit} bytes`, limit }],
  });
}
