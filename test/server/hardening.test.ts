/**
 * HTTP hardening (issue 5 audit, gaps G1, G2, G5–G9): client mistakes answered with the spec's
 * error body and an X-Request-Id (never a 500, never fastify's own body), and the HTTP details a
 * spec-only client may rely on (405 with Allow, WWW-Authenticate, ignored cache-busters).
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { maxHeaderSize } from 'node:http';
import { join } from 'node:path';
import { connect, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WWW_AUTHENTICATE } from '../../src/server/auth.js';
import { duplicateKey, inexactNumber } from '../../src/server/json.js';
import { findIdempotencyKey } from '../../src/store/repos/idempotency.js';
import { call, multipart, POLICY, startServer, type Reply, type TestServer } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

const ACME = 2; // the client id of s.keys.acme
const policyCount = async () => (await s.backend.store.db.selectFrom('policies').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;

/** The error's status, code and first detail, and its request id equal to X-Request-Id. */
function refused(res: Reply, status: number, code: string, detail?: { field: string; code: string }): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.json().error.code).toBe(code);
  expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
  expect(res.headers['x-premia-version']).toBeDefined();
  if (detail) expect(res.json().error.details[0]).toMatchObject(detail);
}

/** No stack was logged: client mistakes are not internal errors. */
function noStackLogged(): void {
  expect(s.logs.filter((l) => / error /.test(l))).toEqual([]);
}

describe('G1: a malformed multipart body is a 400, not a 500', () => {
  const upload = (contentType: string, payload: string) =>
    call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, payload, headers: { 'content-type': contentType } });

  it('no boundary in the Content-Type', async () => {
    const res = await upload('multipart/form-data', 'x');
    refused(res, 400, 'VALIDATION_ERROR', { field: 'file', code: 'MALFORMED_MULTIPART' });
    expect(res.json().error.message).toContain('no usable boundary');
  });

  it('an empty or over-long boundary', async () => {
    refused(await upload('multipart/form-data; boundary=""', 'x'), 400, 'VALIDATION_ERROR', { field: 'file', code: 'INCOMPLETE' });
    refused(await upload(`multipart/form-data; boundary=${'b'.repeat(300)}`, 'x'), 400, 'VALIDATION_ERROR', { field: 'file', code: 'MALFORMED_MULTIPART' });
  });

  it('a body ending before the closing boundary', async () => {
    const body = '--ZZ\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\ncustomer_id';
    const res = await upload('multipart/form-data; boundary=ZZ', body);
    refused(res, 400, 'VALIDATION_ERROR', { field: 'file', code: 'INCOMPLETE' });
    expect(res.json().error.message).toContain('ended before its closing boundary');
  });

  it('garbage under a boundary', async () => {
    refused(await upload('multipart/form-data; boundary=ZZ', 'garbage, not a form'), 400, 'VALIDATION_ERROR', { field: 'file', code: 'INCOMPLETE' });
  });

  it('imported nothing, left no temporary file and logged no stack', async () => {
    expect(await policyCount()).toBe(0); // the first describe: nothing was created before
    expect(readdirSync(s.uploads)).toEqual([]);
    noStackLogged();
  });

  it('a form whose lines end with LF alone, or without the boundary its Content-Type names, is told so', async () => {
    const csv = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,LF-1,LIFE,10.00\n';
    const form = (nl: string, boundary = 'ZZ') =>
      `--${boundary}${nl}Content-Disposition: form-data; name="file"; filename="a.csv"${nl}Content-Type: text/csv${nl}${nl}${csv}${nl}--${boundary}--${nl}`;
    // Written by hand with '\n': multipart needs CRLF (RFC 2046), so busboy finds no closing boundary.
    const lf = await upload('multipart/form-data; boundary=ZZ', form('\n'));
    refused(lf, 400, 'VALIDATION_ERROR');
    expect(lf.json().error.details).toEqual([
      {
        field: 'file',
        code: 'MALFORMED_MULTIPART',
        message: 'the lines of the multipart body end with LF alone; multipart/form-data needs CRLF (\\r\\n) after each boundary and part header',
      },
    ]);
    expect(lf.json().error.message).toBe(
      'The upload is not a readable form: the lines of the multipart body end with LF alone; multipart/form-data needs CRLF (\\r\\n) after each boundary and part header (curl -F file=@policies.csv writes them so); nothing was imported.',
    );
    // A form with another boundary than the Content-Type's (a header copied from another request).
    const other = await upload('multipart/form-data; boundary="YY"', form('\r\n'));
    refused(other, 400, 'VALIDATION_ERROR');
    expect(other.json().error.details).toEqual([
      { field: 'file', code: 'INCOMPLETE', message: "the body has no line --YY, the boundary its Content-Type names: the body is not a form, or its boundary is not the Content-Type's" },
    ]);
    // A form that really ends early is still said so (the form is right up to where it stops).
    const cut = await upload('multipart/form-data; boundary=ZZ', form('\r\n').slice(0, -12));
    refused(cut, 400, 'VALIDATION_ERROR', { field: 'file', code: 'INCOMPLETE' });
    expect(cut.json().error.message).toContain('ended before its closing boundary');
    expect(await policyCount()).toBe(0);
    expect(readdirSync(s.uploads)).toEqual([]);
    noStackLogged();
  });
});

describe('G2: answers fastify or Node would write carry the spec body and X-Request-Id', () => {
  it('a malformed percent-escape in the path', async () => {
    const res = await call(s.app, 'GET', '/v1/policies/%E0%A4%A', { key: s.keys.acme });
    refused(res, 400, 'VALIDATION_ERROR', { field: 'path', code: 'INVALID_ENCODING' });
    // It has its access-log line like any other request.
    expect(s.logs.some((l) => l.endsWith(` GET /v1/policies/%E0%A4%A 400 ${l.split(' ')[4]} ${String(res.headers['x-request-id'])} key ${l.split(' ').at(-1)}`) && /^[0-9a-f-]{36}$/.test(l.split(' ').at(-1)!))).toBe(true);
  });

  it('a path parameter over 100 characters', async () => {
    refused(await call(s.app, 'GET', `/v1/policies/${'p'.repeat(101)}`, { key: s.keys.acme }), 400, 'VALIDATION_ERROR', { field: 'path', code: 'TOO_LONG' });
  });

  it.each([
    ['a malformed percent-escape', '/v1/policies/%E0%A4%A'],
    ['a path parameter over 100 characters', `/v1/policies/${'p'.repeat(101)}`],
    ['the same on a path that is no route', `/v1/nothing/${'p'.repeat(101)}`],
  ])('%s without a valid key: 401 first, as on every path under /v1', async (_what, url) => {
    for (const key of [null, 'pmk_0000000000000000000000000000000000000000']) {
      const res = await call(s.app, 'GET', url, { key });
      refused(res, 401, 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
      expect(res.json().error.message).toBe('Invalid or missing API key: send a valid key in the X-API-Key header.');
      expect(s.logs.some((l) => l.endsWith(` 401 ${l.split(' ')[4]} ${String(res.headers['x-request-id'])}`))).toBe(true);
    }
  });

  describe('on a real socket', () => {
    let port: number;
    beforeAll(async () => {
      await s.app.listen({ host: '127.0.0.1', port: 0 });
      port = (s.app.server.address() as AddressInfo).port;
    });

    /** Send raw bytes, read until the server closes the connection. */
    const raw = (bytes: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let data = '';
        socket.on('data', (d) => (data += d.toString()));
        socket.on('end', () => resolve(data));
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
        socket.write(bytes);
      });

    const parse = (response: string) => {
      const [head, body] = response.split('\r\n\r\n', 2) as [string, string];
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      return { status: Number(statusLine!.split(' ')[1]), headers, json: JSON.parse(body) };
    };

    it('an Expect other than 100-continue is ignored (RFC 9110), not answered 417 by Node without the key check or the spec body', async () => {
      // Without a key: the spec's 401, as for every request under /v1.
      const keyless = parse(await raw('GET /v1/whoami HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n'));
      expect(keyless.status).toBe(401);
      expect(keyless.json).toEqual({
        error: { code: 'UNAUTHORIZED', message: 'Invalid or missing API key: send a valid key in the X-API-Key header.', request_id: keyless.headers['x-request-id'] },
      });
      // With one: served, its body read as any other (here refused for what it says, not for the Expect).
      const body = '{"period_month":"2026-13"}';
      const served = parse(
        await raw(
          `POST /v1/collections/execute HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.keys.acme}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${body.length}\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n${body}`,
        ),
      );
      expect(served.status).toBe(400);
      expect(served.json.error.details).toEqual([
        { field: 'period_month', code: 'INVALID_FORMAT', message: 'period_month 2026-13 is not a month: there is no month 13' },
      ]);
      expect(served.json.error.request_id).toBe(served.headers['x-request-id']);
      expect(s.logs.some((l) => l.includes(` POST /v1/collections/execute 400 `) && l.includes(` ${served.headers['x-request-id']!} key `))).toBe(true);
      const whoami = parse(await raw(`GET /v1/whoami HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.keys.acme}\r\nExpect: foo\r\nConnection: close\r\n\r\n`));
      expect(whoami.status).toBe(200);
      expect(whoami.json).toMatchObject({ client: 'Acme Life', role: 'client' });
    });

    it('a malformed header line: 400 with the spec body', async () => {
      const res = parse(await raw(`GET /v1/clock HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.keys.acme}\r\nthis is not a header\r\n\r\n`));
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['connection']).toBe('close');
      expect(res.json.error).toMatchObject({ code: 'VALIDATION_ERROR', request_id: res.headers['x-request-id'] });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('a body cut short by the client closing its side: 400 saying so, one log line, nothing imported', async () => {
      const form = multipart('file', 'cut.csv', 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,POL-CUT1,LIFE,10.00\n');
      const logged = s.logs.length;
      const response = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let data = '';
        socket.on('data', (d) => (data += d.toString()));
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
        socket.write(
          `POST /v1/policies/import HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.keys.acme}\r\nContent-Type: ${form.headers['content-type']}\r\n` +
            `Content-Length: ${form.payload.length + 500}\r\n\r\n`,
        );
        socket.end(form.payload);
      });
      const res = parse(response);
      expect(res.status).toBe(400);
      expect(res.json.error.message).toMatch(/^The (request|upload) ended before (its body|the file) was complete/);
      // One line, the request's own (method, path, key), under the request id the client was given.
      const id = String(res.headers['x-request-id']);
      await until(() => s.logs.slice(logged).some((l) => l.includes(' POST /v1/policies/import 400 ')));
      const lines = s.logs.filter((l) => l.includes(id));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(` POST /v1/policies/import 400 \\S+ ${id} key \\S+ \\(its body was cut short: answered 400 at once\\)$`));
      expect(s.logs.filter((l) => / error /.test(l))).toEqual([]);
      expect(await policyCount()).toBe(0);
    });

    it('headers over the size limit: 431 HEADERS_TOO_LARGE', async () => {
      const res = parse(await raw(`GET /v1/clock HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
      expect(res.status).toBe(431);
      expect(res.json.error).toMatchObject({ code: 'HEADERS_TOO_LARGE', request_id: res.headers['x-request-id'] });
      // Like every answer (see 'no answer may be stored by a cache' below), also one Node's parser refused.
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('Expect: 100-continue is answered 100 only once the request is accepted: a refused upload is never sent', async () => {
      const form = multipart('file', 'c.csv', 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,POL-EXPECT1,LIFE,10.00\n');
      const head = (key: string | null, path: string) =>
        `POST ${path} HTTP/1.1\r\nHost: x\r\n${key === null ? '' : `X-API-Key: ${key}\r\n`}Content-Type: ${form.headers['content-type']}\r\n` +
        `Content-Length: ${form.payload.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
      // Refused on its headers (no key; a client key on an operator upload): the refusal comes
      // first, with no 100 before it, and the client never has to send its file.
      const keyless = await raw(head(null, '/v1/policies/import'));
      expect(keyless.startsWith('HTTP/1.1 401 '), keyless).toBe(true);
      expect(parse(keyless).json.error.code).toBe('UNAUTHORIZED');
      const forbidden = await raw(head(s.keys.acme, '/v1/bank/import'));
      expect(forbidden.startsWith('HTTP/1.1 403 '), forbidden).toBe(true);
      expect(parse(forbidden).json.error.code).toBe('FORBIDDEN');
      // Accepted: 100 Continue, then the file, then the import's answer.
      const accepted = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let data = '';
        let sent = false;
        socket.on('data', (d) => {
          data += d.toString();
          if (!sent && data.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
            sent = true;
            socket.write(form.payload);
          }
        });
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
        socket.write(head(s.keys.acme, '/v1/policies/import'));
      });
      expect(accepted.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 '), accepted).toBe(true);
      expect(parse(accepted.slice('HTTP/1.1 100 Continue\r\n\r\n'.length)).json).toEqual({ imported: 1, failed: 0, errors: [] });
      await call(s.app, 'PATCH', '/v1/policies/POL-EXPECT1', { key: s.keys.acme, body: { status: 'cancelled' } });
    });

    it('a request target in absolute-form (RFC 9112 3.2.2) is served as its path: 401 first, 405, the same idempotent request', async () => {
      const abs = (method: string, path: string, key: string | null, extra = '', body = '') =>
        raw(
          `${method} http://127.0.0.1:${port}${path} HTTP/1.1\r\nHost: x\r\n${key === null ? '' : `X-API-Key: ${key}\r\n`}${extra}` +
            `${body === '' ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`}Connection: close\r\n\r\n${body}`,
        ).then(parse);
      // Without a key, any path under /v1 is 401, as in origin-form.
      const keyless = await abs('GET', '/v1/no-such-endpoint', null);
      expect(keyless.status).toBe(401);
      expect(keyless.json.error.code).toBe('UNAUTHORIZED');
      // A known path with another method is 405 with Allow; a path of its own is not taken for an id.
      const wrongMethod = await abs('DELETE', '/v1/whoami', s.keys.acme);
      expect([wrongMethod.status, wrongMethod.headers['allow'], wrongMethod.json.error.code]).toEqual([405, 'GET, HEAD', 'METHOD_NOT_ALLOWED']);
      const ownPath = await abs('GET', '/v1/collections/execute', s.keys.acme);
      expect([ownPath.status, ownPath.headers['allow'], ownPath.json.error.code]).toEqual([405, 'POST', 'METHOD_NOT_ALLOWED']);
      expect(s.logs.some((l) => l.includes(` DELETE /v1/whoami 405 `) && l.includes(String(wrongMethod.headers['x-request-id'])))).toBe(true);
      // A retry in origin-form with the same Idempotency-Key is the same request: replayed, not 422.
      const body = JSON.stringify({ ...POLICY, policy_number: 'POL-ABSOLUTE1' });
      const created = await abs('POST', '/v1/policies', s.keys.acme, 'Idempotency-Key: absolute-form-1\r\n', body);
      expect(created.status).toBe(201);
      const retry = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: JSON.parse(body), headers: { 'idempotency-key': 'absolute-form-1' } });
      expect([retry.status, retry.headers['idempotent-replayed'], retry.json().id]).toEqual([201, 'true', created.json.id]);
      await call(s.app, 'PATCH', '/v1/policies/POL-ABSOLUTE1', { key: s.keys.acme, body: { status: 'cancelled' } });
    });

    it('a path with unreserved characters percent-encoded (RFC 3986 6.2.2.2) is the same path: 401 first, 405, the same idempotent request', async () => {
      const send = (method: string, path: string, key: string | null, extra = '', body = '') =>
        raw(
          `${method} ${path} HTTP/1.1\r\nHost: x\r\n${key === null ? '' : `X-API-Key: ${key}\r\n`}${extra}` +
            `${body === '' ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`}Connection: close\r\n\r\n${body}`,
        ).then(parse);
      // Without a key, no path under /v1 (%76 is v) tells a route from no route.
      for (const path of ['/%761/whoami', '/%761/no-such-endpoint']) {
        const keyless = await send('GET', path, null);
        expect([path, keyless.status, keyless.json.error.code]).toEqual([path, 401, 'UNAUTHORIZED']);
      }
      const wrongMethod = await send('DELETE', '/v1/who%61mi', s.keys.acme);
      expect([wrongMethod.status, wrongMethod.headers['allow'], wrongMethod.json.error.code]).toEqual([405, 'GET, HEAD', 'METHOD_NOT_ALLOWED']);
      const body = JSON.stringify({ ...POLICY, policy_number: 'POL-ESCAPED1' });
      const created = await send('POST', '/v1/p%6Flicies', s.keys.acme, 'Idempotency-Key: escaped-path-1\r\n', body);
      expect(created.status).toBe(201);
      const retry = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: JSON.parse(body), headers: { 'idempotency-key': 'escaped-path-1' } });
      expect([retry.status, retry.headers['idempotent-replayed'], retry.json().id]).toEqual([201, 'true', created.json.id]);
      // Other escapes stay as they are: an encoded slash is part of an id, not a separator.
      const slash = await send('GET', '/v1/policies/POL%2FNONE', s.keys.acme);
      expect([slash.status, slash.json.error.message]).toEqual([404, "Policy 'POL/NONE' was not found. Check the id or number and try again."]);
      await call(s.app, 'PATCH', '/v1/policies/POL-ESCAPED1', { key: s.keys.acme, body: { status: 'cancelled' } });
    });

    it('Expect: 100-continue with a JSON body its Content-Length says is over the limit: 413 at once, no 100, nothing sent', async () => {
      const over = 1024 * 1024 + 1;
      const answer = await raw(
        `POST /v1/settlements HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.keys.acme}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${over}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.startsWith('HTTP/1.1 413 '), answer).toBe(true);
      expect(parse(answer).json.error.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('CONNECT (a tunnel, as to a proxy) is answered as any other method: 401 without a key, 405 or 404 with one, and logged', async () => {
      const connectTo = (target: string, key: string | null) =>
        raw(`CONNECT ${target} HTTP/1.1\r\nHost: x\r\n${key === null ? '' : `X-API-Key: ${key}\r\n`}\r\n`).then(parse);
      const keyless = await connectTo('/v1/whoami', null);
      expect([keyless.status, keyless.headers['www-authenticate'], keyless.json.error.code]).toEqual([401, WWW_AUTHENTICATE, 'UNAUTHORIZED']);
      expect(keyless.json.error.request_id).toBe(keyless.headers['x-request-id']);
      const known = await connectTo('/v1/whoami', s.keys.acme);
      expect([known.status, known.headers['allow'], known.json.error.code]).toEqual([405, 'GET, HEAD', 'METHOD_NOT_ALLOWED']);
      expect(known.headers['connection']).toBe('close');
      const authority = await connectTo('example.org:443', s.keys.acme);
      expect([authority.status, authority.json.error.code]).toEqual([404, 'NOT_FOUND']);
      expect(s.logs.some((l) => l.includes(' CONNECT /v1/whoami 405 ') && l.includes(String(known.headers['x-request-id'])))).toBe(true);
      // A client that goes away at once leaves the server serving.
      await new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(`CONNECT /v1/whoami HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.keys.acme}\r\n\r\n`, () => socket.destroy()));
        socket.on('close', () => resolve());
        socket.on('error', () => resolve());
      });
      const after = parse(await raw(`GET /v1/whoami HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.keys.acme}\r\nConnection: close\r\n\r\n`));
      expect(after.status).toBe(200);
    });

    it('a URL whose query is over the size limit: 431 saying the URL counts, not "the headers" alone', async () => {
      const res = parse(await raw(`GET /v1/policies?after=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.keys.acme}\r\n\r\n`));
      expect(res.status).toBe(431);
      expect(res.json.error).toEqual({
        code: 'HEADERS_TOO_LARGE',
        message: `The request line and headers together are larger than the server accepts (${maxHeaderSize} bytes): shorten the URL (its query) or the headers.`,
        request_id: res.headers['x-request-id'],
      });
    });

    it('no Host header, two of them, or a fragment in the target: 400 with the spec body and a log line, before the key is read', async () => {
      const logged = (id: string) => s.logs.some((l) => l.includes(` 400 `) && l.endsWith(` ${id}`));
      // Node answered the first with a bare 400 of its own (no body, no X-Request-Id, no log line).
      const cases: Array<[string, string, string, Record<string, string>]> = [
        [
          `GET /v1/whoami HTTP/1.1\r\nX-API-Key: ${s.keys.acme}\r\nConnection: close\r\n\r\n`,
          'The request has no Host header, which HTTP/1.1 requires: send the host (and port) of the service.',
          'Host',
          { code: 'REQUIRED', message: 'an HTTP/1.1 request must have a Host header' },
        ],
        [
          // Which of the two a proxy in front took, and which this server did, could differ (RFC 9112 3.2).
          `GET /v1/whoami HTTP/1.1\r\nHost: a\r\nhost: b\r\nX-API-Key: ${s.keys.acme}\r\nConnection: close\r\n\r\n`,
          'The request has 2 Host headers; HTTP allows one.',
          'Host',
          { code: 'REPEATED', message: 'Host was sent more than once' },
        ],
        [
          // 'frag' was read as a query parameter of whoami.
          `GET /v1/whoami#frag HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.keys.acme}\r\nConnection: close\r\n\r\n`,
          "The request target holds '#': a URL's fragment (from '#' on) is the client's own and is never sent; send the URL without it.",
          'path',
          { code: 'INVALID_FORMAT', message: "the request target holds '#'" },
        ],
      ];
      for (const [request, message, field, detail] of cases) {
        const res = parse(await raw(request));
        expect(res.status, request).toBe(400);
        expect(res.json).toEqual({ error: { code: 'VALIDATION_ERROR', message, request_id: res.headers['x-request-id'], details: [{ field, ...detail }] } });
        expect(logged(res.headers['x-request-id']!), request).toBe(true);
      }
      // HTTP/1.0 needs no Host: served.
      expect(parse(await raw(`GET /v1/whoami HTTP/1.0\r\nX-API-Key: ${s.keys.acme}\r\n\r\n`)).status).toBe(200);
    });

    it('two Content-Type headers: 400, not the first taken', async () => {
      const res = parse(
        await raw(
          `POST /v1/settlements HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.keys.acme}\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\n` +
            `Content-Length: 26\r\nConnection: close\r\n\r\n{"period_month":"2026-10"}`,
        ),
      );
      expect(res.status).toBe(400);
      expect(res.json.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'Send one Content-Type header, not several.',
        request_id: res.headers['x-request-id'],
        details: [{ field: 'Content-Type', code: 'REPEATED', message: 'Content-Type was sent more than once' }],
      });
    });
  });
});

describe('G5: a form with a second file is refused whole', () => {
  const CSV = 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,POL-M1,LIFE,10.00\n';
  const form = (second: string) => {
    const one = multipart('file', 'a.csv', CSV);
    const boundary = one.headers['content-type']!.split('boundary=')[1]!;
    const extra = `--${boundary}\r\nContent-Disposition: form-data; name="${second}"; filename="b.csv"\r\nContent-Type: text/csv\r\n\r\n${CSV.replace('POL-M1', 'POL-M2')}\r\n`;
    // Insert the second file part before the closing boundary.
    const text = one.payload.toString();
    const close = text.lastIndexOf(`--${boundary}--`);
    return { payload: `${text.slice(0, close)}${extra}${text.slice(close)}`, headers: one.headers };
  };

  it.each(['file', 'other'])('two file parts (the second named %s): 400 TOO_MANY_PARTS, nothing imported', async (second) => {
    const before = await policyCount();
    const { payload, headers } = form(second);
    const res = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, payload, headers: { ...headers, 'idempotency-key': `two-${second}` } });
    refused(res, 400, 'VALIDATION_ERROR', { field: 'file', code: 'TOO_MANY_PARTS' });
    expect(await policyCount()).toBe(before);
    expect(readdirSync(s.uploads)).toEqual([]);
    expect(await findIdempotencyKey(s.backend.store.db, ACME, `two-${second}`)).toBeUndefined();
    noStackLogged();
  });

  it('a text field beside the one file is still fine', async () => {
    const one = multipart('file', 'a.csv', CSV);
    const boundary = one.headers['content-type']!.split('boundary=')[1]!;
    const field = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`);
    const res = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, payload: Buffer.concat([field, one.payload]), headers: one.headers });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ imported: 1, failed: 0, errors: [] });
  });
});

describe('G6: a JSON body with a key given twice is refused, naming the key', () => {
  it('POST /v1/policies: 400 DUPLICATE_KEY, nothing created', async () => {
    const payload = '{"policy_number":"J-7","customer_id":"C1","external_customer_ref":"E1","product_code":"LIFE","collection_amount":10,"policy_number":"J-8"}';
    const before = await policyCount();
    const res = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, payload, headers: { 'content-type': 'application/json' } });
    refused(res, 400, 'VALIDATION_ERROR', { field: 'policy_number', code: 'DUPLICATE_KEY' });
    expect(res.json().error.message).toBe('The JSON body gives policy_number more than once; send each field once.');
    expect(await policyCount()).toBe(before);
  });

  it('money too (PATCH collection_amount)', async () => {
    const res = await call(s.app, 'PATCH', '/v1/policies/POL-1', {
      key: s.keys.acme,
      payload: '{"collection_amount": 10.00, "collection_amount": 1000.00}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    refused(res, 400, 'VALIDATION_ERROR', { field: 'collection_amount', code: 'DUPLICATE_KEY' });
  });

  it('finds duplicates at any depth, compares keys after unescaping, and is not fooled by strings', () => {
    expect(duplicateKey('{"a":1,"b":2}')).toBeNull();
    expect(duplicateKey('{"a":"b","b":"a"}')).toBeNull();
    expect(duplicateKey('{"a":"{\\"a\\":1,","b":[{"a":1},{"a":2}]}')).toBeNull();
    expect(duplicateKey('{"a":{"b":1,"b":2}}')).toBe('a.b');
    expect(duplicateKey('[{"x":1},{"x":1,"x":2}]')).toBe('[1].x');
    expect(duplicateKey('{"list":[0,{"k":[{"z":1,"z":1}]}]}')).toBe('list[1].k[0].z');
    expect(duplicateKey('{"ab":1,"a\\u0062":2}')).toBe('ab');
    expect(duplicateKey('{"a":1,"a ":2}')).toBeNull();
    expect(duplicateKey(' "just a string" ')).toBeNull();
  });

  it('keeps the prototype-poisoning guard and the body limit', async () => {
    const proto = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, payload: '{"__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } });
    refused(proto, 400, 'VALIDATION_ERROR', { field: 'body', code: 'FORBIDDEN_KEY' });
    expect(proto.json().error.message).toBe('The JSON body has a key premia never accepts: "__proto__", or "constructor" holding "prototype" (no request has either).');
    const ctor = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, payload: '{"constructor":{"prototype":{"x":1}}}', headers: { 'content-type': 'application/json' } });
    refused(ctor, 400, 'VALIDATION_ERROR', { field: 'body', code: 'FORBIDDEN_KEY' });
    const large = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, body: { period_month: '2026-11', pad: 'x'.repeat(1024 * 1024) } });
    refused(large, 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('a body of many or long unknown keys is answered in kilobytes, every problem counted', () => {
  const many = (base: Record<string, unknown>, n: number) => JSON.stringify({ ...base, ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, 1])) });

  it('POST /v1/settlements with 80,000 unknown keys: the message names 10 and counts the rest, details list the first 100', async () => {
    const payload = many({ period_month: '2026-11' }, 80_000);
    const res = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, payload, headers: { 'content-type': 'application/json' } });
    refused(res, 400, 'VALIDATION_ERROR', { field: 'f0', code: 'UNKNOWN_FIELD' });
    const error = res.json().error;
    expect(error.message).toBe(
      'The settlement request is not valid: 80000 problems (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9 and 79990 more); see details (the first 100; 79900 more left out).',
    );
    expect(error.details).toHaveLength(100);
    expect(error.details[99]).toEqual({ field: 'f99', code: 'UNKNOWN_FIELD', message: 'f99 is not a field of a settlement request; known: period_month' });
    expect(res.text.length).toBeLessThan(20_000);
  });

  it('POST /v1/policies and PATCH: the same bound, nothing created or changed', async () => {
    const before = await policyCount();
    const create = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, payload: many(POLICY, 5_000), headers: { 'content-type': 'application/json' } });
    refused(create, 400, 'VALIDATION_ERROR', { field: 'f0', code: 'UNKNOWN_FIELD' });
    expect(create.json().error.message).toBe('The policy is not valid: 5000 problems (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9 and 4990 more); see details (the first 100; 4900 more left out).');
    expect(create.json().error.details).toHaveLength(100);
    expect(await policyCount()).toBe(before);
    const patch = await call(s.app, 'PATCH', '/v1/policies/POL-1', { key: s.keys.acme, payload: many({ status: 'cancelled' }, 101), headers: { 'content-type': 'application/json' } });
    refused(patch, 400, 'VALIDATION_ERROR', { field: 'f0', code: 'UNKNOWN_FIELD' });
    expect(patch.json().error.message).toBe('The update is not valid: 101 problems (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9 and 91 more); see details (the first 100; 1 more left out).');
  });

  it('a key of 500,000 characters is named by its first 100, not repeated whole', async () => {
    const key = 'k'.repeat(500_000);
    const res = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, payload: JSON.stringify({ period_month: '2026-11', [key]: 1 }), headers: { 'content-type': 'application/json' } });
    const shown = `${'k'.repeat(100)}…`;
    refused(res, 400, 'VALIDATION_ERROR', { field: shown, code: 'UNKNOWN_FIELD' });
    expect(res.json().error.message).toBe(`The collections run is not valid: ${shown} is not a field of a collections run; known: period_month, policy_ids, strategy.`);
    expect(res.text.length).toBeLessThan(2_000);
    const policy = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, payload: JSON.stringify({ ...POLICY, [key]: 1 }), headers: { 'content-type': 'application/json' } });
    expect(policy.json().error.details).toEqual([{ field: shown, code: 'UNKNOWN_FIELD', message: `${shown} is not a field of a policy` }]);
  });

  it('a few problems are listed as before', async () => {
    const res = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, body: { period_month: 'Nov', colour: 'red' } });
    expect(res.json().error.message).toBe('The settlement request is not valid: 2 problems (colour, period_month); see details.');
    expect(res.json().error.details).toHaveLength(2);
  });
});

describe('a JSON number a double cannot hold as written is refused, never rounded', () => {
  const post = (amount: string) =>
    call(s.app, 'POST', '/v1/policies', {
      key: s.keys.acme,
      payload: `{"policy_number":"X-9","customer_id":"C1","external_customer_ref":"E1","product_code":"LIFE","collection_amount":${amount}}`,
      headers: { 'content-type': 'application/json' },
    });

  it('POST /v1/policies with 149.999999999999999 (read as 150): 400 INEXACT_NUMBER, nothing created', async () => {
    const before = await policyCount();
    const res = await post('149.999999999999999');
    refused(res, 400, 'VALIDATION_ERROR', { field: 'collection_amount', code: 'INEXACT_NUMBER' });
    expect(res.json().error.message).toBe(
      "The JSON body's collection_amount: the number 149.999999999999999 cannot be read exactly (a JSON number is read as a double: it would become 150); send it as written to be kept, amounts with at most two decimals.",
    );
    expect(await policyCount()).toBe(before);
    noStackLogged();
  });

  it('PATCH with 10.10000000000000001 keeps the premium as it was', async () => {
    const res = await call(s.app, 'PATCH', '/v1/policies/POL-1', {
      key: s.keys.acme,
      payload: '{"collection_amount": 10.10000000000000001}',
      headers: { 'content-type': 'application/json' },
    });
    refused(res, 400, 'VALIDATION_ERROR', { field: 'collection_amount', code: 'INEXACT_NUMBER' });
  });

  it('an exact number passes on to the field rules as before', async () => {
    // 150.000 is 150 exactly: the amount rules take it (two decimals at most apply to the value read).
    refused(await post('149.995'), 400, 'VALIDATION_ERROR', { field: 'collection_amount', code: 'INVALID_AMOUNT' });
    const res = await post('150.000');
    expect(res.status, res.text).toBe(201);
    expect(res.json().collection_amount).toBe(150);
  });

  it('finds the first inexact number at any depth, with its path, and is not fooled by strings', () => {
    expect(inexactNumber('{"a":149.5,"b":[1,2.25,-3e2,0.1,-0,1E-7]}')).toBeNull();
    expect(inexactNumber('{"a":"149.999999999999999","b":123456789012345}')).toBeNull();
    expect(inexactNumber('{"a":{"b":[0,12345678901234567890]}}')).toEqual({ path: 'a.b[1]', text: '12345678901234567890' });
    expect(inexactNumber('[1e400]')).toEqual({ path: '[0]', text: '1e400' });
    expect(inexactNumber('{"x":-1e-400}')).toEqual({ path: 'x', text: '-1e-400' });
    expect(inexactNumber('{"x":0.30000000000000004}')).toBeNull();
    expect(inexactNumber('{"x":0.300000000000000004}')).toEqual({ path: 'x', text: '0.300000000000000004' });
    expect(inexactNumber('7.0000000000000000001')).toEqual({ path: '', text: '7.0000000000000000001' });
  });
});

describe('an error body never holds a whole API key', () => {
  it('a key sent where a policy id belongs comes back redacted', async () => {
    const res = await call(s.app, 'GET', `/v1/policies/${s.keys.acme}`, { key: s.keys.acme });
    refused(res, 404, 'NOT_FOUND');
    expect(res.text).not.toContain(s.keys.acme);
    expect(res.json().error.message).toContain(`pmk_…${s.keys.acme.slice(-4)}`);
  });
});

describe('G7: a Content-Encoding other than identity is 415', () => {
  it.each([
    ['a gzip body', gzipSync(JSON.stringify(POLICY)), 'gzip'],
    ['a plain body labelled gzip', Buffer.from(JSON.stringify(POLICY)), 'gzip'],
    ['br', Buffer.from(JSON.stringify(POLICY)), 'br'],
    ['identity, then gzip', Buffer.from(JSON.stringify(POLICY)), 'identity, gzip'],
  ])('%s: 415, nothing created', async (_what, payload, encoding) => {
    const before = await policyCount();
    const res = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, payload, headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
    refused(res, 415, 'UNSUPPORTED_MEDIA_TYPE', { field: 'Content-Encoding', code: 'UNSUPPORTED_ENCODING' });
    expect(await policyCount()).toBe(before);
  });

  it('an upload too; identity is accepted', async () => {
    const form = multipart('file', 'a.csv', 'x');
    const upload = await call(s.app, 'POST', '/v1/policies/import', { key: s.keys.acme, payload: form.payload, headers: { ...form.headers, 'content-encoding': 'gzip' } });
    refused(upload, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const plain = await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: { ...POLICY, policy_number: 'POL-ID' }, headers: { 'content-encoding': 'identity' } });
    expect(plain.status).toBe(201);
  });
});

describe('G8: HTTP details a spec-only client may expect', () => {
  it.each([
    ['DELETE', '/v1/policies/POL-1', 'GET, HEAD, PATCH'],
    ['PUT', '/v1/settlements', 'GET, HEAD, POST'],
    ['PATCH', '/v1/executions/x', 'GET, HEAD'],
    ['DELETE', '/v1/policies/import', 'POST'],
    ['GET', '/v1/policies/import', 'POST'],
    ['GET', '/v1/collections/execute', 'POST'],
    ['POST', '/v1/reports/collections', 'GET, HEAD'],
    ['DELETE', '/v1/clock', 'GET, HEAD, PUT'],
  ])('%s %s: 405 METHOD_NOT_ALLOWED with Allow: %s to a caller with a key', async (method, url, allow) => {
    const res = await call(s.app, method, url, { key: s.keys.acme });
    refused(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers['allow']).toBe(allow);
    expect(res.json().error.message).toBe(`${method} is not allowed on ${url}; it takes ${allow}.`);
    // Without a valid key: 401 first, revealing nothing of the route map (no Allow, no 405).
    for (const key of [null, 'pmk_0000000000000000000000000000000000000000']) {
      const anonymous = await call(s.app, method, url, { key });
      refused(anonymous, 401, 'UNAUTHORIZED');
      expect(anonymous.headers['allow']).toBeUndefined();
      expect(anonymous.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
      expect(anonymous.text).not.toContain(allow);
    }
  });

  it('an unknown path is still 404 (to a caller with a key; 401 without one, as for a known path)', async () => {
    refused(await call(s.app, 'DELETE', '/v1/nothing/here', { key: s.keys.acme }), 404, 'NOT_FOUND');
    refused(await call(s.app, 'DELETE', '/v1/nothing/here', { key: null }), 401, 'UNAUTHORIZED');
  });

  it('401 carries WWW-Authenticate', async () => {
    for (const key of [null, 'pmk_wrong']) {
      const res = await call(s.app, 'GET', '/v1/policies', { key });
      refused(res, 401, 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
      expect(WWW_AUTHENTICATE).toBe('ApiKey realm="premia", header="X-API-Key"');
    }
  });

  it("the spec's endpoints ignore query parameters they do not define (a cache-buster)", async () => {
    const report = await call(s.app, 'GET', '/v1/reports/collections?period_month=2026-11&_=1700000000', { key: s.keys.acme });
    expect(report.status).toBe(200);
    const json = await call(s.app, 'GET', '/v1/reports/collections?_=1&format=json&period_month=2026-11', { key: s.keys.acme });
    expect(json.json()).toEqual({ period_month: '2026-11', period_state: { state: 'not_run', as_of: '2026-11-21', closes_on: '2026-11-30', open_collections: 0 }, results: [] });
    // Their own parameters are still checked.
    refused(await call(s.app, 'GET', '/v1/reports/collections?period_month=2026-13&_=1', { key: s.keys.acme }), 400, 'VALIDATION_ERROR', { field: 'period_month', code: 'INVALID_FORMAT' });
    refused(await call(s.app, 'GET', '/v1/settlements/x/export?lines=maybe&_=1', { key: s.keys.acme }), 400, 'VALIDATION_ERROR', { field: 'lines', code: 'INVALID_VALUE' });
    for (const [method, url, body] of [
      ['GET', '/v1/collections/x?_=1', undefined],
      ['GET', '/v1/settlements/x?_=1', undefined],
      ['GET', '/v1/settlements/x/export?_=1', undefined],
      ['PATCH', '/v1/policies/POL-404?_=1', { status: 'lapsed' }],
    ] as const) {
      refused(await call(s.app, method, url, { key: s.keys.acme, body }), 404, 'NOT_FOUND');
    }
    refused(await call(s.app, 'POST', '/v1/settlements?_=1', { key: s.keys.acme, body: { period_month: '2026-10' } }), 409, 'NO_COLLECTIONS');
    refused(await call(s.app, 'POST', '/v1/collections/execute?_=1', { key: s.keys.acme, body: { period_month: '2026-11', policy_ids: ['POL-404'] } }), 400, 'VALIDATION_ERROR', {
      field: 'policy_ids',
      code: 'UNKNOWN_POLICY',
    });
  });

  it("premia's extensions still refuse unknown query parameters", async () => {
    for (const url of ['/v1/policies?bogus=1', '/v1/policies/POL-1?_=1', '/v1/settlements?_=1', '/v1/clock?_=1', '/v1/whoami?_=1']) {
      const res = await call(s.app, 'GET', url, { key: s.keys.acme });
      refused(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.details.map((d: any) => d.code)).toContain('UNKNOWN_FIELD');
    }
  });

  it('a cache-buster does not make an idempotent retry another request', async () => {
    const body = { ...POLICY, policy_number: 'POL-CB' };
    const first = await call(s.app, 'POST', '/v1/policies?_=1', { key: s.keys.acme, body, headers: { 'idempotency-key': 'cb-1' } });
    expect(first.status).toBe(201);
    const again = await call(s.app, 'POST', '/v1/policies?_=2', { key: s.keys.acme, body, headers: { 'idempotency-key': 'cb-1' } });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('an empty body where the body is optional (mark-paid) counts as {}', async () => {
    const notFound = "Settlement 'SETTLE-2026-11-001' was not found. Check the id or number and try again.";
    for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'application/json', 'content-length': '0' }, {}] as Record<string, string>[]) {
      const res = await call(s.app, 'POST', '/v1/settlements/SETTLE-2026-11-001/mark-paid', { key: s.keys.acme, payload: '', headers });
      refused(res, 404, 'NOT_FOUND');
      expect(res.json().error.message).toBe(notFound);
    }
  });

  it('an empty body where a body is needed is 400 REQUIRED', async () => {
    for (const url of ['/v1/settlements', '/v1/settlements/x/dispute', '/v1/clock/advance', '/v1/collections/execute']) {
      const key = url.startsWith('/v1/clock') ? s.keys.operator : s.keys.acme;
      const res = await call(s.app, 'POST', url, { key, payload: '', headers: { 'content-type': 'application/json' } });
      refused(res, 400, 'VALIDATION_ERROR', { field: 'body', code: 'REQUIRED' });
    }
  });

  it('a body of JSON whitespace alone (a newline a template left) is no body either, not malformed JSON', async () => {
    const headers = { 'content-type': 'application/json' };
    for (const payload of ['\n', ' \r\n\t ']) {
      const optional = await call(s.app, 'POST', '/v1/settlements/SETTLE-2026-11-001/mark-paid', { key: s.keys.acme, payload, headers });
      refused(optional, 404, 'NOT_FOUND');
      const needed = await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, payload, headers });
      refused(needed, 400, 'VALIDATION_ERROR');
      expect(needed.json().error.message).toBe('The request needs a JSON object body (Content-Type: application/json).');
      expect(needed.json().error.details).toEqual([{ field: 'body', code: 'REQUIRED', message: 'a JSON object body is required' }]);
    }
    // Whitespace around a value is still JSON's, and anything else is still looked at as JSON.
    refused(await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, payload: '\n x \n', headers }), 400, 'VALIDATION_ERROR', { field: 'body', code: 'INVALID_JSON' });
    // A non-breaking space is not JSON whitespace.
    refused(await call(s.app, 'POST', '/v1/collections/execute', { key: s.keys.acme, payload: '\u00a0', headers }), 400, 'VALIDATION_ERROR', { field: 'body', code: 'INVALID_JSON' });
  });
});

describe('G9: only what the server did is kept for replay', () => {
  it('a refusal (404) is not stored: the rerun with the same key gets a fresh answer', async () => {
    const missing = await call(s.app, 'PATCH', '/v1/policies/POL-G9', { key: s.keys.acme, body: { collection_amount: 159.5 }, headers: { 'idempotency-key': 'g9' } });
    refused(missing, 404, 'NOT_FOUND');
    expect(await findIdempotencyKey(s.backend.store.db, ACME, 'g9')).toBeUndefined();
    // The state changes: the policy now exists.
    expect((await call(s.app, 'POST', '/v1/policies', { key: s.keys.acme, body: { ...POLICY, policy_number: 'POL-G9' } })).status).toBe(201);
    const rerun = await call(s.app, 'PATCH', '/v1/policies/POL-G9', { key: s.keys.acme, body: { collection_amount: 159.5 }, headers: { 'idempotency-key': 'g9' } });
    expect(rerun.status).toBe(200);
    expect(rerun.headers['idempotent-replayed']).toBeUndefined();
    expect(await findIdempotencyKey(s.backend.store.db, ACME, 'g9')).toMatchObject({ status: 200 });
    // From now on the success is what a retry with the key gets.
    const replay = await call(s.app, 'PATCH', '/v1/policies/POL-G9', { key: s.keys.acme, body: { collection_amount: 159.5 }, headers: { 'idempotency-key': 'g9' } });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(rerun.text);
  });
});

/** Resolve once `cond()` holds, checking every few milliseconds (the test's own timeout bounds it). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
}

describe('G2: a request arriving while the server shuts down', () => {
  it('gets 503 SERVICE_UNAVAILABLE with the spec body; the request in flight still finishes', async () => {
    const t = await startServer();
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (t.app.server.address() as AddressInfo).port;
      const open = () => {
        const socket = connect(port, '127.0.0.1');
        let data = '';
        socket.on('data', (d) => (data += d.toString()));
        const done = new Promise<string>((resolve) => socket.on('close', () => resolve(data)));
        socket.on('error', () => {});
        return { socket, done, data: () => data };
      };
      // A: an upload in flight (headers and half the body sent).
      const form = multipart('file', 'a.csv', 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC1,E1,POL-S1,LIFE,10.00\n');
      // Requests whose headers the server has read (Node's 'request' event).
      let requests = 0;
      let connections = 0;
      t.app.server.on('request', () => (requests += 1));
      t.app.server.on('connection', () => (connections += 1));
      const a = open();
      a.socket.write(
        `POST /v1/policies/import HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.keys.acme}\r\nContent-Type: ${form.headers['content-type']}\r\n` +
          `Content-Length: ${form.payload.length}\r\nConnection: close\r\n\r\n`,
      );
      a.socket.write(form.payload.subarray(0, 100));
      // B: a connection opened before the shutdown, its request not yet complete.
      const b = open();
      b.socket.write('GET /v1/clock HTTP/1.1\r\nHost: x\r\n');
      // No fixed sleeps (they fail on a busy machine): wait for the events themselves. A's request
      // has started and B's connection is open before the shutdown begins; the shutdown has
      // stopped listening (after its preClose hook) before B's request completes.
      await until(() => requests === 1 && connections === 2);
      const closed = t.app.close();
      await until(() => !t.app.server.listening);
      b.socket.write(`X-API-Key: ${t.keys.acme}\r\n\r\n`);
      const answerB = await b.done;
      const [headB, bodyB] = answerB.split('\r\n\r\n', 2) as [string, string];
      expect(headB).toMatch(/^HTTP\/1\.1 503 /);
      expect(headB.toLowerCase()).toContain('connection: close');
      expect(headB.toLowerCase()).toContain('content-type: application/json; charset=utf-8');
      const id = /x-request-id: (\S+)/i.exec(headB)![1];
      expect(JSON.parse(bodyB)).toEqual({
        error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is shutting down; retry in a moment (with the same Idempotency-Key).', request_id: id },
      });
      a.socket.write(form.payload.subarray(100));
      const answerA = await a.done;
      expect(answerA).toMatch(/^HTTP\/1\.1 200 /);
      expect(answerA).toContain('{"imported":1,"failed":0,"errors":[]}');
      await closed;
      expect(t.logs.filter((l) => / error /.test(l))).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('the upload directory', () => {
  it('is removed, empty, when the server stops; a file still in it keeps it', async () => {
    const one = await startServer();
    try {
      expect(existsSync(one.uploads)).toBe(true);
      await one.app.close();
      expect(existsSync(one.uploads)).toBe(false);
    } finally {
      await one.close();
    }
    const two = await startServer();
    try {
      const left = join(two.uploads, 'not-premias.txt');
      writeFileSync(left, 'x');
      await two.app.close();
      expect(readdirSync(two.uploads)).toEqual(['not-premias.txt']);
    } finally {
      await two.close();
    }
  });
});

describe('no answer may be stored by a cache (Cache-Control: no-store)', () => {
  // The key is in X-API-Key, which a shared cache does not take for a credential: a cache keyed
  // on the URL would hand one client's report to another client asking the same URL.
  it.each<[string, string, string | null, number]>([
    ['a JSON answer', '/v1/whoami', 'acme', 200],
    ['a CSV download', '/v1/reports/collections?period_month=2026-11', 'acme', 200],
    ['the OpenAPI document', '/v1/openapi.json', 'acme', 200],
    ['an error', '/v1/settlements/SETTLE-2026-11-001', 'acme', 404],
    ['a 401', '/v1/reports/collections?period_month=2026-11', null, 401],
    ['an answer to a URL the router cannot take', `/v1/policies/${'p'.repeat(101)}`, 'acme', 400],
  ])('%s', async (_what, url, who, status) => {
    const res = await call(s.app, 'GET', url, { key: who === null ? null : s.keys.acme });
    expect(res.status, res.text).toBe(status);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});
