/**
 * Downloads (reports and exports) are streamed from the backend's Download body. These tests stand
 * in a backend whose downloads are known (a thousand chunks, a body that fails before its first
 * byte) and check what the server makes of them: status, media type, Content-Disposition, the
 * bytes, and a proper error when the export fails before its first byte. The real report and
 * settlement exports over HTTP are in reports.test.ts, settlements.test.ts and cycle.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBackend } from '../../src/backend/local/index.js';
import type { Download, ReportFormat } from '../../src/backend/types.js';
import { validationError } from '../../src/domain/errors.js';
import { createServer } from '../../src/server/app.js';
import { call, startServer, type TestServer } from './helpers.js';

const CSV_HEADER = 'period_month,customer_id,external_customer_ref,policy_number,product_code,collection_amount_due,collection_amount_collected,shortfall,collection_status,first_attempt_date,last_attempt_date,number_of_attempts,last_failure_reason\n';
const ROW = '2026-11,C100001,ACME-1,POL-1,LIFE,149.50,149.50,0.00,PAID_FULL,2026-11-03,2026-11-03,1,\n';

class StubDownloads extends LocalBackend {
  pulled = 0;
  /** Resolved when the last report body started has ended (read to the end, or given back). */
  ended: Promise<void> = Promise.resolve();
  override forClient(clientId: number): LocalBackend {
    const b = super.forClient(clientId);
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- read inside the generator below
    const self = this;
    b.collectionsReport = async (period: string, format: ReportFormat): Promise<Download> => {
      if (period === '2026-01') throw validationError('no such period');
      let end = () => {};
      self.ended = new Promise((resolve) => (end = resolve));
      async function* body() {
        try {
          if (period === '2026-02') throw validationError('the report cannot start'); // fails before the first byte
          if (format === 'json') {
            yield `{"period_month":"${period}","results":[]}`;
            return;
          }
          yield CSV_HEADER;
          for (let i = 0; i < 1000; i++) {
            self.pulled++;
            yield Buffer.from(ROW);
          }
        } finally {
          end();
        }
      }
      return format === 'json'
        ? { filename: `collections-${period}.json`, contentType: 'application/json; charset=utf-8', body: body() }
        : { filename: `collections-${period}.csv`, contentType: 'text/csv; charset=utf-8', body: body() };
    };
    return b;
  }
}

let s: TestServer;
let app: Awaited<ReturnType<typeof createServer>>;
let stub: StubDownloads;
beforeAll(async () => {
  s = await startServer();
  stub = new StubDownloads(s.backend.ctx, false);
  app = await createServer({ backend: stub });
});
afterAll(async () => {
  await app.close();
  await s.close();
});

describe('streamed downloads', () => {
  it('sends CSV (the default format) as text/csv with a Content-Disposition filename', async () => {
    const res = await call(app, 'GET', '/v1/reports/collections?period_month=2026-11', { key: s.keys.acme });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="collections-2026-11.csv"');
    expect(res.text).toBe(CSV_HEADER + ROW.repeat(1000));
    expect(stub.pulled).toBe(1000);
  });

  it('sends JSON when asked, without an attachment header', async () => {
    const res = await call(app, 'GET', '/v1/reports/collections?period_month=2026-11&format=json', { key: s.keys.acme });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.json()).toEqual({ period_month: '2026-11', results: [] });
  });

  // A HEAD's body was read to the end only to be dropped: a 1M-row report cost a HEAD what a GET costs.
  it('answers HEAD with the headers a GET gets, reading no row past the first chunk', async () => {
    stub.pulled = 0;
    const res = await call(app, 'HEAD', '/v1/reports/collections?period_month=2026-11', { key: s.keys.acme });
    expect([res.status, res.headers['content-type'], res.headers['content-disposition'], res.text]).toEqual([
      200,
      'text/csv; charset=utf-8',
      'attachment; filename="collections-2026-11.csv"',
      '',
    ]);
    // No Content-Length: a GET streams the rows chunked, of a length not known before the last
    // one; a HEAD's `0` said the report was empty (RFC 9110 9.3.2: a HEAD's fields are the GET's).
    expect(res.headers['content-length']).toBeUndefined();
    // fastify answers a HEAD at once but, left a stream, reads it to the end behind the answer.
    await stub.ended;
    expect(stub.pulled).toBe(0);
    // A report that cannot start is refused as for a GET.
    expect((await call(app, 'HEAD', '/v1/reports/collections?period_month=2026-02', { key: s.keys.acme })).status).toBe(400);
  });

  it('answers with the error status and body when the export fails before its first byte', async () => {
    const early = await call(app, 'GET', '/v1/reports/collections?period_month=2026-01', { key: s.keys.acme });
    expect(early.status).toBe(400);
    const lazy = await call(app, 'GET', '/v1/reports/collections?period_month=2026-02', { key: s.keys.acme });
    expect(lazy.status).toBe(400);
    expect(lazy.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'the report cannot start', request_id: lazy.headers['x-request-id'] });
  });
});
