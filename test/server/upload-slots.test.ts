/**
 * Uploads one client may hold at once (server/upload.ts MAX_UPLOADS_PER_CLIENT): each is spooled
 * to the temporary directory every client shares, so one client's many imports at once must not
 * fill the disk the others need. A fifth upload of a client holding four is 429 RATE_LIMITED with
 * Retry-After, before any of it is read; another client is not affected; a slot comes back once
 * an upload's file is gone (imported, or its sender gone).
 */
import { readdirSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MAX_UPLOADS_PER_CLIENT, UploadSlots } from '../../src/server/upload.js';
import { call, multipart, startServer } from './helpers.js';

const HEADER = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount';
const book = (n: number) => multipart('file', `book-${n}.csv`, `${HEADER}\nC${n},E${n},POL-U${n},LIFE,10.00\n`);

/** Resolve once `cond()` holds, checking every few milliseconds (the test's own timeout bounds it). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
}

describe('uploads a client holds at once', () => {
  it('UploadSlots: the fifth is refused, each slot released once, clients counted apart', () => {
    const slots = new UploadSlots(4);
    const held = [1, 2, 3, 4].map(() => slots.take(7));
    expect(() => slots.take(7)).toThrow(
      "This API key's client has 4 uploads being received or waiting for their import, the most it may have at once; nothing was read of this one; retry after 5 seconds.",
    );
    expect(() => slots.take(8)).not.toThrow();
    expect(slots.total).toBe(5);
    held[0]!();
    held[0]!(); // a second release gives nothing back
    expect(slots.total).toBe(4);
    const again = slots.take(7);
    expect(() => slots.take(7)).toThrow(/has 4 uploads/);
    again();
  });

  it(`premia serve: a client's ${MAX_UPLOADS_PER_CLIENT + 1}th upload is 429 while ${MAX_UPLOADS_PER_CLIENT} are being received; another client's goes on; a slot comes back`, async () => {
    const slots = new UploadSlots();
    const t = await startServer({ uploadSlots: slots });
    const sockets: Socket[] = [];
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (t.app.server.address() as AddressInfo).port;
      // Four uploads of Acme's, each with its headers and the start of its file sent, the rest held back.
      const held = [1, 2, 3, 4].map((n) => {
        const form = book(n);
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {});
        let data = '';
        socket.on('data', (d) => (data += d.toString()));
        const done = new Promise<string>((resolve) => socket.on('close', () => resolve(data)));
        socket.write(
          `POST /v1/policies/import HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.keys.acme}\r\nContent-Type: ${form.headers['content-type']}\r\n` +
            `Content-Length: ${form.payload.length}\r\nConnection: close\r\n\r\n`,
        );
        socket.write(form.payload.subarray(0, form.payload.length - 20));
        sockets.push(socket);
        return { socket, form, done };
      });
      // Each is being spooled: its file is in the upload directory.
      await until(() => readdirSync(t.uploads).length === MAX_UPLOADS_PER_CLIENT);

      const fifth = book(5);
      const refused = await call(t.app, 'POST', '/v1/policies/import', { key: t.keys.acme, payload: fifth.payload, headers: fifth.headers });
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.json().error).toMatchObject({
        code: 'RATE_LIMITED',
        message: "This API key's client has 4 uploads being received or waiting for their import, the most it may have at once; nothing was read of this one; retry after 5 seconds.",
      });

      // Another client's upload is not held up by Acme's.
      const other = book(6);
      const theirs = await call(t.app, 'POST', '/v1/policies/import', { key: t.keys.other, payload: other.payload, headers: other.headers });
      expect([theirs.status, theirs.json()]).toEqual([200, { imported: 1, failed: 0, errors: [] }]);

      // The first held upload finishes: imported, its file removed, its slot back.
      held[0]!.socket.write(held[0]!.form.payload.subarray(held[0]!.form.payload.length - 20));
      expect(await held[0]!.done).toContain('{"imported":1,"failed":0,"errors":[]}');
      const retried = await call(t.app, 'POST', '/v1/policies/import', { key: t.keys.acme, payload: fifth.payload, headers: fifth.headers });
      expect([retried.status, retried.json()]).toEqual([200, { imported: 1, failed: 0, errors: [] }]);

      // Senders that go away give their slots back too, once their partial files are removed. (The
      // files can be seen gone a moment before the server hears its removals have finished, so the
      // wait is for the slots; the directory is checked after them.)
      for (const h of held.slice(1)) h.socket.destroy();
      await until(() => slots.total === 0);
      expect(readdirSync(t.uploads)).toEqual([]);
      const forms = [7, 8, 9, 10].map(book);
      const answers = await Promise.all(forms.map((f) => call(t.app, 'POST', '/v1/policies/import', { key: t.keys.acme, payload: f.payload, headers: f.headers })));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    } finally {
      for (const s of sockets) s.destroy();
      await t.close();
    }
  });
});
