/**
 * GET /v1/reports/collections over the real report code: the bytes equal what
 * LocalBackend.collectionsReport gives on the same store for the key's client, CSV by default,
 * JSON on request, an empty period is the header only, and bad queries are 400s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Download } from '../../src/backend/types.js';
import { encodeId, IdKind } from '../../src/domain/ids.js';
import { readWorld } from '../../src/backend/local/world.js';
import { ACME_REPORT_CSV, OTHER_REPORT_CSV, PERIOD, REPORT_HEADER, seedPeriod } from './fixture-period.js';
import { call, startServer, type TestServer } from './helpers.js';

let s: TestServer;
let acme: number;
let other: number;
let acmeCollections: number[];
let idSalt: number;

beforeAll(async () => {
  s = await startServer();
  ({ acme, other, acmeCollections } = await seedPeriod(s.backend.store));
  idSalt = (await readWorld(s.backend.store.db)).idSalt;
});
afterAll(async () => {
  await s.close();
});

async function text(d: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of d.body) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

const report = (query: string, key = s.keys.acme) => call(s.app, 'GET', `/v1/reports/collections?${query}`, { key });

describe('GET /v1/reports/collections', () => {
  it('sends the CSV by default: 13 columns, policy_number order, RFC 4180, as local mode writes it', async () => {
    const res = await report(`period_month=${PERIOD}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="collections-2026-11.csv"');
    expect(res.text).toBe(ACME_REPORT_CSV);
    expect(res.text).toBe(await text(await s.backend.forClient(acme).collectionsReport(PERIOD, 'csv')));
    for (const line of res.text.trimEnd().split('\n')) {
      // 13 cells once the one quoted comma is set aside
      expect(line.replace('"ACME, ""Gold"" ref"', 'x').split(',')).toHaveLength(13);
    }
    const explicit = await report(`period_month=${PERIOD}&format=csv`);
    expect(explicit.text).toBe(res.text);
    // Whether it is final travels in a header, not in the CSV.
    expect(res.headers['premia-period-state']).toBe('open; as_of=2026-11-21; closes_on=2026-11-30; open_collections=2');
    // The other client's November: its one collection is paid, so none of its is left unpaid.
    expect((await report(`period_month=${PERIOD}`, s.keys.other)).headers['premia-period-state']).toBe('open; as_of=2026-11-21; closes_on=2026-11-30; open_collections=0');
    expect((await report('period_month=2026-10')).headers['premia-period-state']).toBe('closed; as_of=2026-10-31; closes_on=2026-10-31; open_collections=0');
  });

  it('is byte-identical on every export of a closed period', async () => {
    const first = await report(`period_month=${PERIOD}`);
    const second = await report(`format=csv&period_month=${PERIOD}`);
    expect(second.text).toBe(first.text);
  });

  it('sends JSON {period_month, results} with the 13 fields and the collection id, money with two decimals', async () => {
    const res = await report(`period_month=${PERIOD}&format=json`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.text).toBe(await text(await s.backend.forClient(acme).collectionsReport(PERIOD, 'json')));
    const body = res.json();
    expect(Object.keys(body)).toEqual(['period_month', 'period_state', 'results']);
    expect(body.period_month).toBe(PERIOD);
    // The clock is at 2026-11-21: November is open, two of Acme's five collections not paid in full yet.
    expect(body.period_state).toEqual({ state: 'open', as_of: '2026-11-21', closes_on: '2026-11-30', open_collections: 2 });
    expect(res.headers['premia-period-state']).toBe('open; as_of=2026-11-21; closes_on=2026-11-30; open_collections=2');
    expect(body.results.map((r: any) => r.policy_number)).toEqual(['POL-0001', 'POL-0002', 'POL-0003', 'POL-0004', 'POL-0010']);
    // POL-0001 was the third row inserted
    expect(body.results[0]).toEqual({
      id: encodeId(IdKind.collection, idSalt, acmeCollections[2]!),
      period_month: '2026-11',
      customer_id: 'C100001',
      external_customer_ref: 'EXT-1',
      policy_number: 'POL-0001',
      product_code: 'FUNERAL_BASIC',
      collection_amount_due: 149.5,
      collection_amount_collected: 149.5,
      shortfall: 0,
      collection_status: 'PAID_FULL',
      first_attempt_date: '2026-11-03',
      last_attempt_date: '2026-11-05',
      number_of_attempts: 2,
      last_failure_reason: null,
    });
    expect(body.results[3]).toMatchObject({ policy_number: 'POL-0004', collection_status: 'CANCELLED', first_attempt_date: null, last_attempt_date: null, number_of_attempts: 0 });
    expect(body.results[1].external_customer_ref).toBe('ACME, "Gold" ref');
    expect(res.text).toContain('"collection_amount_due":149.50,"collection_amount_collected":149.50,"shortfall":0.00,');
    expect(res.text).toContain('"collection_amount_due":0.01,"collection_amount_collected":0.01,"shortfall":0.00,');
    // The same rows as the CSV, field for field.
    const csvRows = ACME_REPORT_CSV.trimEnd().split('\n').slice(1);
    expect(body.results.map((r: any) => r.number_of_attempts)).toEqual(csvRows.map((l) => Number(l.split(',').at(-2))));
  });

  it('gives a period without collections as the header row only, and empty results', async () => {
    const csv = await report('period_month=2026-09');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-disposition']).toBe('attachment; filename="collections-2026-09.csv"');
    expect(csv.text).toBe(REPORT_HEADER);
    const json = await report('period_month=2026-09&format=json');
    expect(json.status).toBe(200);
    expect(json.text).toBe('{"period_month":"2026-09","period_state":{"state":"not_run","as_of":"2026-09-30","closes_on":"2026-09-30","open_collections":0},"results":[]}\n');
    expect(json.headers['premia-period-state']).toBe('not_run; as_of=2026-09-30; closes_on=2026-09-30; open_collections=0');
  });

  it("reports only the key's client: each sees its own rows of the period", async () => {
    const theirs = await report(`period_month=${PERIOD}`, s.keys.other);
    expect(theirs.text).toBe(OTHER_REPORT_CSV);
    expect(theirs.text).toBe(await text(await s.backend.forClient(other).collectionsReport(PERIOD, 'csv')));
    const october = await report('period_month=2026-10&format=json');
    expect(october.json().results.map((r: any) => [r.policy_number, r.collection_amount_collected])).toEqual([['POL-0001', 149.5]]);
    expect((await report('period_month=2026-10&format=json', s.keys.other)).json().results).toEqual([]);
  });

  it.each([
    ['period_month=2026-13', [['period_month', 'INVALID_FORMAT']]],
    ['period_month=11-2026', [['period_month', 'INVALID_FORMAT']]],
    ['period_month=2026-1', [['period_month', 'INVALID_FORMAT']]],
    ['period_month=Nov', [['period_month', 'INVALID_FORMAT']]],
    ['', [['period_month', 'REQUIRED']]],
    ['format=json', [['period_month', 'REQUIRED']]],
    ['period_month=2026-11&format=xml', [['format', 'INVALID_VALUE']]],
    ['period_month=2026-11&period_month=2026-10', [['period_month', 'REPEATED']]],
  ])('answers 400 VALIDATION_ERROR for ?%s', async (query, details) => {
    const res = await report(query);
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: any) => [d.field, d.code])).toEqual(details);
  });

  it('ignores a query parameter the spec does not define (premia 400s them only on its extensions)', async () => {
    const res = await report('period_month=2026-11&limit=5&_=1');
    expect(res.status).toBe(200);
  });

  it('says what is wrong with a malformed period', async () => {
    const res = await report('period_month=2026-1');
    expect(res.json().error.message).toBe('The report request is not valid: period_month must be a month written YYYY-MM, like 2026-11; got "2026-1" (write it 2026-01).');
  });

  it('names the month of a period written YYYY-MM with no such month, not the format it already has', async () => {
    for (const [period, month] of [['2026-13', '13'], ['2026-00', '00']]) {
      const res = await report(`period_month=${period}`);
      expect(res.status).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: `The report request is not valid: period_month ${period} is not a month: there is no month ${month}.`,
        details: [{ field: 'period_month', code: 'INVALID_FORMAT', message: `period_month ${period} is not a month: there is no month ${month}` }],
      });
    }
  });

  it('answers 401 without a key, and with a revoked or unknown key', async () => {
    const res = await report(`period_month=${PERIOD}`, 'pmk_' + 'x'.repeat(40));
    expect(res.status).toBe(401);
    expect(res.json().error.code).toBe('UNAUTHORIZED');
    expect((await call(s.app, 'GET', `/v1/reports/collections?period_month=${PERIOD}`)).status).toBe(401);
  });
});
