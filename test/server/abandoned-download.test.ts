/**
 * A download's source (a store connection, a PostgreSQL COPY) is given back however the download
 * ends, also when the client goes away while the first chunk is still awaited (a report waiting
 * on a lock): the issue 14 audit found such a connection held for good, the pool drained and
 * the server hung for every client.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Download } from '../../src/backend/types.js';
import { sendDownload } from '../../src/server/http.js';

const apps: Array<{ close: () => Promise<unknown> }> = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A download whose first chunk comes when `release` is called; `returned` settles once its source is given back. */
function heldDownload() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let returned!: () => void;
  const given = new Promise<void>((resolve) => (returned = resolve));
  let chunks = 0;
  const body: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]() {
      return {
        async next() {
          await gate;
          chunks++;
          return chunks > 3 ? { done: true, value: undefined } : { done: false, value: Buffer.from(`row ${chunks}\n`) };
        },
        async return() {
          returned();
          return { done: true, value: undefined };
        },
      };
    },
  };
  const download: Download = { filename: 'r.csv', contentType: 'text/csv; charset=utf-8', body };
  return { download, release, given, chunks: () => chunks };
}

async function serve(download: Download, started: () => void, left: () => void = () => undefined): Promise<number> {
  const app = Fastify();
  apps.push(app);
  app.get('/r', async (_req, reply) => {
    reply.raw.once('close', left); // the server has seen the client go
    started();
    return sendDownload(reply, download);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

describe('sendDownload gives the source back', () => {
  it('when the client leaves before the first chunk came (the source is returned, not held)', async () => {
    const held = heldDownload();
    let onStart!: () => void;
    const started = new Promise<void>((resolve) => (onStart = resolve));
    let onLeft!: () => void;
    const left = new Promise<void>((resolve) => (onLeft = resolve));
    const port = await serve(held.download, onStart, onLeft);
    const req = request({ host: '127.0.0.1', port, path: '/r' });
    req.on('error', () => undefined);
    req.end();
    await started;
    req.destroy(); // the client gives up while the report waits
    await left;
    held.release(); // the lock goes away: the first chunk comes, to nobody
    await held.given; // and the source is given back (the test would time out otherwise)
    expect(held.chunks()).toBe(1);
  });

  it('when read to the end', async () => {
    const held = heldDownload();
    held.release();
    const port = await serve(held.download, () => undefined);
    const text = await new Promise<string>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/r' }, (res) => {
        let out = '';
        res.setEncoding('utf8').on('data', (c: string) => (out += c));
        res.on('end', () => resolve(out));
      })
        .on('error', reject)
        .end();
    });
    expect(text).toBe('row 1\nrow 2\nrow 3\n');
    await held.given;
  });
});
