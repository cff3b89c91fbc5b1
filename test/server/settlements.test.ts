/**
 * The settlement routes over the real settlement code: create (201), get, export (one-row CSV and
 * ?lines=true), list, mark-paid, dispute, and every conflict they can answer, with the bodies
 * equal to local mode's on the same store; plus client isolation and concurrent creates, in one
 * process (the store's transactions serialise them) and across two `premia serve` processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Download } from '../../src/backend/types.js';
import { stringifyJson } from '../../src/domain/json.js';
import { asCents, centsFromJsonNumber } from '../../src/domain/money.js';
import { findIdempotencyKey } from '../../src/store/repos/idempotency.js';
import { REPO, runCli, tempDir } from '../helpers/cli.js';
import { seedCollections, setClock } from '../helpers/seed-collections.js';
import { ACME_001, PERIOD, seedPeriod } from './fixture-period.js';
import { call, checkResponse, startServer, type TestServer } from './helpers.js';

const EXPORT_HEADER = 'settlement_number,period_month,total_collections,distribution_fee,collections_fee,total_fees,vat,net_amount,payment_date,payment_reference\n';
const LINES_HEADER =
  'settlement_number,policy_number,customer_id,external_customer_ref,product_code,collection_amount_collected,distribution_fee,collections_fee,total_fees,vat,net_amount\n';
const ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The fields of spec 4.7 (the create response) and 4.8 (get). */
const SPEC_47 = ['settlement_number', 'period_month', 'total_collections', 'distribution_fee', 'collections_fee', 'total_fees', 'vat', 'net_amount', 'payment_date', 'status'];
const SPEC_48 = ['id', ...SPEC_47, 'payment_reference', 'created_at'];


let s: TestServer;
let acme: number;
let other: number;

beforeEach(async () => {
  s = await startServer();
  ({ acme, other } = await seedPeriod(s.backend.store));
  // The period has closed (its last day has run); day 2 of the next month.
  await setClock(s.backend.store, '2026-12-02');
});
afterEach(async () => {
  await s.close();
});

async function text(d: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of d.body) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

const create = (period = PERIOD, key = s.keys.acme, headers?: Record<string, string>) =>
  call(s.app, 'POST', '/v1/settlements', { key, body: { period_month: period }, headers });
const get = (ref: string, key = s.keys.acme) => call(s.app, 'GET', `/v1/settlements/${ref}`, { key });
const exportCsv = (ref: string, query = '', key = s.keys.acme) => call(s.app, 'GET', `/v1/settlements/${ref}/export${query}`, { key });
const markPaid = (ref: string, body?: unknown, key = s.keys.acme) => call(s.app, 'POST', `/v1/settlements/${ref}/mark-paid`, { key, body });
const dispute = (ref: string, reason: string, key = s.keys.acme) => call(s.app, 'POST', `/v1/settlements/${ref}/dispute`, { key, body: { reason } });
const clock = (date: string) => setClock(s.backend.store, date);

describe('POST /v1/settlements', () => {
  it('answers 201 with the fields of spec 4.7 plus id, figures that reconcile, equal to local get', async () => {
    const res = await create();
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json();
    expect(body.id).toMatch(ID_RE);
    // The 201 names the statement it made (RFC 9110), and that is where GET finds it.
    expect(res.headers.location).toBe(`/v1/settlements/${body.id}`);
    expect((await call(s.app, 'GET', res.headers.location as string, { key: s.keys.acme })).text).toBe(res.text);
    for (const field of SPEC_47) expect(body, field).toHaveProperty(field);
    const { id: _id, ...rest } = body;
    expect(rest).toEqual(ACME_001);
    // money as numbers with exactly two decimals
    expect(res.text).toContain(
      '"total_collections":199.51,"distribution_fee":49.88,"collections_fee":6.98,"total_fees":56.86,"vat":8.53,"net_amount":134.12,',
    );
    const cents = (k: string) => centsFromJsonNumber(body[k], k);
    expect(cents('net_amount') + cents('total_fees') + cents('vat')).toBe(cents('total_collections'));
    expect(cents('distribution_fee') + cents('collections_fee')).toBe(cents('total_fees'));
    // The response is what local mode reads back for the same client on the same store.
    expect(res.text).toBe(stringifyJson(await s.backend.forClient(acme).getSettlement(body.id)));
  });

  it('answers 409 PERIOD_OPEN while the last day of the period has not run', async () => {
    await clock('2026-11-29');
    const res = await create();
    expect(res.status).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'PERIOD_OPEN',
      message:
        'Period 2026-11 is still open: its last day 2026-11-30 has not run (the clock is at 2026-11-29). Create the settlement once the clock has reached 2026-11-30.',
      details: [{ period_month: '2026-11', closes_on: '2026-11-30', today: '2026-11-29' }],
    });
    expect((await call(s.app, 'GET', '/v1/settlements', { key: s.keys.acme })).json().data).toEqual([]);
    // On the last day itself (it has run) the statement is made.
    await clock('2026-11-30');
    expect((await create()).status).toBe(201);
  });

  it('answers 409 NO_COLLECTIONS for a closed period that was never executed', async () => {
    const res = await create('2026-09');
    expect(res.status).toBe(409);
    expect(res.json().error).toMatchObject({
      code: 'NO_COLLECTIONS',
      message: "Period 2026-09 has no collections: it was never executed, so there is nothing to settle (a period's collections can only be queued before its last day, 2026-09-30, has run).",
      details: [{ period_month: '2026-09' }],
    });
  });

  it('answers 409 SETTLEMENT_EXISTS with the existing id and number while one is live', async () => {
    const first = (await create()).json();
    for (const status of ['pending', 'paid']) {
      if (status === 'paid') expect((await markPaid(first.id)).status).toBe(200);
      const again = await create();
      expect(again.status).toBe(409);
      const error = again.json().error;
      expect(error.code).toBe('SETTLEMENT_EXISTS');
      expect(error.message).toBe(
        `Period 2026-11 already has settlement SETTLE-2026-11-001 (id ${first.id}, ${status}). ` +
          'Only one live statement is allowed per period; dispute it first if it must be regenerated.',
      );
      expect(error.details).toEqual([{ id: first.id, settlement_number: 'SETTLE-2026-11-001', status, period_month: '2026-11' }]);
    }
    expect((await call(s.app, 'GET', '/v1/settlements', { key: s.keys.acme })).json().data).toHaveLength(1);
  });

  it('regenerates a disputed statement with the next number; the old one stays on record', async () => {
    const first = (await create()).json();
    expect((await dispute(first.id, 'Totals differ from our ledger.')).status).toBe(200);
    const second = await create();
    expect(second.status).toBe(201);
    expect(second.json()).toMatchObject({ settlement_number: 'SETTLE-2026-11-002', status: 'pending', total_collections: 199.51 });
    expect(second.json().id).not.toBe(first.id);
    expect(second.json().payment_reference).not.toBe(first.payment_reference);
    const list = (await call(s.app, 'GET', '/v1/settlements', { key: s.keys.acme })).json();
    expect(list.data.map((x: any) => [x.settlement_number, x.status])).toEqual([
      ['SETTLE-2026-11-002', 'pending'],
      ['SETTLE-2026-11-001', 'disputed'],
    ]);
  });

  it("refuses a period's 1000th statement (409 CONFLICT): NNN of SETTLE-YYYY-MM-NNN has three digits", async () => {
    const first = (await create()).json();
    expect((await dispute(first.id, 'Totals differ from our ledger.')).status).toBe(200);
    // As if the period had been disputed and regenerated 998 times more: its newest is -999, disputed.
    await s.backend.store.db
      .updateTable('settlements')
      .set({ seq: 999, settlement_number: 'SETTLE-2026-11-999' })
      .where('client_id', '=', acme)
      .where('period_month', '=', PERIOD)
      .execute();
    const message =
      'Period 2026-11 already has 999 statements (SETTLE-2026-11-001 to SETTLE-2026-11-999), the most a settlement number (SETTLE-YYYY-MM-NNN) ' +
      'can count; no further statement can be made for it. Nothing was stored.';
    for (const res of [await create(), await call(s.app, 'GET', `/v1/settlements/preview?period_month=${PERIOD}`, { key: s.keys.acme })]) {
      expect(res.status, res.text).toBe(409);
      expect(res.json()).toEqual({
        error: { code: 'CONFLICT', message, request_id: res.headers['x-request-id'], details: [{ period_month: '2026-11', statements: 999 }] },
      });
    }
    const list = (await call(s.app, 'GET', '/v1/settlements', { key: s.keys.acme })).json();
    expect(list.data.map((x: any) => [x.settlement_number, x.status])).toEqual([['SETTLE-2026-11-999', 'disputed']]);
    // Another client's period is its own: Other Insure's first statement of the month is -001.
    expect((await create(PERIOD, s.keys.other)).json().settlement_number).toBe('SETTLE-2026-11-001');
  });

  it('a statement paid, disputed and regenerated nets out what was paid: -002 is the difference; -001 cannot be paid (409)', async () => {
    // Acme's November grows to 425,772.01 collected (net 286,225.24), as `premia simulate`'s first statement.
    await seedCollections(
      s.backend.store,
      PERIOD,
      [
        { policy_number: 'POL-A', due: 20_000_000, collected: 20_000_000 },
        { policy_number: 'POL-B', due: 20_000_000, collected: 20_000_000 },
        { policy_number: 'POL-C', due: 5_000_000, collected: 2_557_250 },
      ],
      { clientId: acme },
    );
    const first = (await create()).json();
    expect(first).toMatchObject({ total_collections: 425772.01, net_amount: 286225.24, previously_paid: 0, supersedes: null, superseded_by: null });
    expect((await markPaid(first.id, { reference: 'EFT-2026-12-0001' })).status).toBe(200);
    expect((await dispute(first.id, 'POL-C was collected short')).status).toBe(200);
    // 1,000.00 more turns up for POL-C.
    await s.backend.store.db.updateTable('collections').set({ amount_collected: asCents(2_657_250) }).where('policy_number', '=', 'POL-C').where('client_id', '=', acme).execute();
    const second = await create();
    expect(second.status).toBe(201);
    expect(second.json()).toMatchObject({
      settlement_number: 'SETTLE-2026-11-002',
      total_collections: 426772.01,
      distribution_fee: 106693.0,
      collections_fee: 14937.02,
      total_fees: 121630.02,
      vat: 18244.5,
      previously_paid: 286225.24,
      net_amount: 672.25,
      status: 'pending',
      supersedes: 'SETTLE-2026-11-001',
      superseded_by: null,
    });
    expect(second.text).toContain('"vat":18244.50,"net_amount":672.25,');
    expect(second.text).toContain('"previously_paid":286225.24,');
    const list = (await call(s.app, 'GET', '/v1/settlements', { key: s.keys.acme })).json();
    expect(list.data.map((x: any) => [x.settlement_number, x.status, x.paid_on, x.previously_paid, x.net_amount, x.supersedes, x.superseded_by])).toEqual([
      ['SETTLE-2026-11-002', 'pending', null, 286225.24, 672.25, 'SETTLE-2026-11-001', null],
      ['SETTLE-2026-11-001', 'disputed', '2026-12-02', 0, 286225.24, null, 'SETTLE-2026-11-002'],
    ]);
    const again = await markPaid(first.id);
    expect(again.status).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'INVALID_TRANSITION', details: [{ settlement_number: 'SETTLE-2026-11-001', superseded_by: 'SETTLE-2026-11-002' }] });
    expect((await exportCsv(second.json().id)).text).toBe(
      `${EXPORT_HEADER}SETTLE-2026-11-002,2026-11,426772.01,106693.00,14937.02,121630.02,18244.50,672.25,2026-12-03,${second.json().payment_reference}\n`,
    );
  });

  it('replays the 201 for a retried Idempotency-Key and makes one statement', async () => {
    const headers = { 'idempotency-key': 'settle-2026-11' };
    const first = await create(PERIOD, s.keys.acme, headers);
    expect(first.status).toBe(201);
    const retry = await create(PERIOD, s.keys.acme, headers);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(retry.headers.location).toBe(`/v1/settlements/${first.json().id}`);
    // Without the key the rerun is refused by the store, naming the statement.
    const cron = await create();
    expect(cron.status).toBe(409);
    expect(cron.json().error.details[0].id).toBe(first.json().id);
  });

  it('answers 400 for a bad body', async () => {
    const cases: Array<[unknown, Array<[string, string]>]> = [
      [{}, [['period_month', 'REQUIRED']]],
      [{ period_month: '2026-13' }, [['period_month', 'INVALID_FORMAT']]],
      [{ period_month: 202611 }, [['period_month', 'INVALID_FORMAT']]],
      [{ period: '2026-11' }, [['period', 'UNKNOWN_FIELD'], ['period_month', 'REQUIRED']]],
    ];
    for (const [body, details] of cases) {
      const res = await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json().error.details.map((d: any) => [d.field, d.code])).toEqual(details);
    }
    expect((await call(s.app, 'POST', '/v1/settlements', { key: s.keys.acme, body: [] })).status).toBe(400);
  });
});

describe('GET /v1/settlements/{id}', () => {
  it('answers 200 with every field of spec 4.8, by id and by settlement number', async () => {
    const created = await create();
    const id = created.json().id;
    const byId = await get(id);
    expect(byId.status).toBe(200);
    for (const field of SPEC_48) expect(byId.json(), field).toHaveProperty(field);
    expect(byId.json()).toEqual({ id, ...ACME_001 });
    expect(byId.text).toBe(created.text);
    const byNumber = await get('SETTLE-2026-11-001');
    expect(byNumber.text).toBe(byId.text);
    expect((await get('settle-2026-11-001')).text).toBe(byId.text);
  });

  it('answers 404 for an unknown id or number', async () => {
    const missing = await get('SETTLE-2026-11-009');
    expect(missing.status).toBe(404);
    expect(missing.json().error).toMatchObject({ code: 'NOT_FOUND', message: "Settlement 'SETTLE-2026-11-009' was not found. Check the id or number and try again." });
    const id = '0b5c2c4e-4d1f-8a6b-9c2d-1e2f3a4b5c6d';
    expect((await get(id)).json().error.message).toBe(`Settlement '${id}' was not found. Check the id or number and try again.`);
  });
});

describe('GET /v1/settlements/{id}/export', () => {
  it('sends the one-row CSV of spec 4.9: the 10 columns, with a Content-Disposition filename', async () => {
    const { id, payment_reference } = (await create()).json();
    const res = await exportCsv(id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="SETTLE-2026-11-001.csv"');
    expect(res.text).toBe(EXPORT_HEADER + `SETTLE-2026-11-001,2026-11,199.51,49.88,6.98,56.86,8.53,134.12,2026-12-03,${payment_reference}\n`);
    expect(res.text.split('\n')[1]!.split(',')).toHaveLength(10);
    expect(res.text).toBe(await text(await s.backend.forClient(acme).exportSettlement(id)));
    expect((await exportCsv('SETTLE-2026-11-001', '?lines=false')).text).toBe(res.text);
  });

  it('?lines=true sends one line per collection whose columns sum to the statement', async () => {
    const { id } = (await create()).json();
    const res = await exportCsv(id, '?lines=true');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="SETTLE-2026-11-001-lines.csv"');
    expect(res.text).toBe(await text(await s.backend.forClient(acme).exportSettlement(id, { lines: true })));
    expect(res.text).toBe(
      LINES_HEADER +
        'SETTLE-2026-11-001,POL-0001,C100001,EXT-1,FUNERAL_BASIC,149.50,37.38,5.23,42.61,6.39,100.50\n' +
        'SETTLE-2026-11-001,POL-0002,C100002,"ACME, ""Gold"" ref",LIFE_PLUS,50.00,12.50,1.75,14.25,2.14,33.61\n' +
        'SETTLE-2026-11-001,POL-0003,C100003,EXT-3,FUNERAL_BASIC,0.00,0.00,0.00,0.00,0.00,0.00\n' +
        'SETTLE-2026-11-001,POL-0004,C100004,EXT-4,FUNERAL_BASIC,0.00,0.00,0.00,0.00,0.00,0.00\n' +
        'SETTLE-2026-11-001,POL-0010,C100010,EXT-10,MICRO,0.01,0.00,0.00,0.00,0.00,0.01\n',
    );
    // Sum each money column in cents (the quoted reference holds a comma: drop it first).
    const rows = res.text.trimEnd().split('\n').slice(1).map((l) => l.replace('"ACME, ""Gold"" ref"', 'ref').split(','));
    const sum = (col: number) => rows.reduce((a, r) => a + centsFromJsonNumber(r[col], `column ${col}`), 0);
    expect([sum(5), sum(6), sum(7), sum(8), sum(9), sum(10)]).toEqual([19951, 4988, 698, 5686, 853, 13412]);
  });

  it('answers 404 for an unknown settlement and 400 for a bad lines value', async () => {
    const res = await exportCsv('SETTLE-2026-11-001');
    expect(res.status).toBe(404);
    expect(res.json().error.message).toBe("Settlement 'SETTLE-2026-11-001' was not found. Check the id or number and try again.");
    const bad = await exportCsv('SETTLE-2026-11-001', '?lines=yes');
    expect(bad.status).toBe(400);
    expect(bad.json().error.details.map((d: any) => [d.field, d.code])).toEqual([['lines', 'INVALID_VALUE']]);
  });
});

describe('GET /v1/settlements', () => {
  it('lists the statements of the key, newest first, filtered by status and period', async () => {
    const empty = await call(s.app, 'GET', '/v1/settlements', { key: s.keys.acme });
    expect(empty.status).toBe(200);
    expect(empty.text).toBe('{"data":[],"next_after":null}');
    const first = (await create()).json();
    await dispute(first.id, 'Wrong totals');
    const second = (await create()).json();
    const october = (await create('2026-10')).json();
    const all = await call(s.app, 'GET', '/v1/settlements', { key: s.keys.acme });
    expect(all.json().data.map((x: any) => x.id)).toEqual([october.id, second.id, first.id]);
    expect(all.json().next_after).toBeNull();
    expect(all.text).toBe(stringifyJson(await s.backend.forClient(acme).listSettlements({})));
    const pending = await call(s.app, 'GET', '/v1/settlements?status=pending', { key: s.keys.acme });
    expect(pending.json().data.map((x: any) => x.settlement_number)).toEqual(['SETTLE-2026-10-001', 'SETTLE-2026-11-002']);
    const november = await call(s.app, 'GET', '/v1/settlements?period_month=2026-11&status=disputed', { key: s.keys.acme });
    expect(november.json().data.map((x: any) => [x.settlement_number, x.dispute_reason])).toEqual([['SETTLE-2026-11-001', 'Wrong totals']]);
    const bad = await call(s.app, 'GET', '/v1/settlements?period_month=2026-1', { key: s.keys.acme });
    expect(bad.status).toBe(400);
    expect(bad.json().error.details.map((d: any) => [d.field, d.code])).toEqual([['period_month', 'INVALID_FORMAT']]);
  });
});

describe('POST /v1/settlements/{id}/mark-paid and /dispute', () => {
  it('marks a pending statement paid (with its own reference by default), once', async () => {
    const { id, payment_reference } = (await create()).json();
    await clock('2026-12-03');
    const paid = await markPaid(id);
    expect(paid.status).toBe(200);
    expect(paid.json()).toEqual({ ...ACME_001, id, status: 'paid', paid_on: '2026-12-03', paid_reference: payment_reference });
    expect((await get(id)).text).toBe(paid.text);
    const again = await markPaid(id, { reference: 'EFT-2026/12-0001' });
    expect(again.status).toBe(409);
    expect(again.json().error).toMatchObject({
      code: 'INVALID_TRANSITION',
      message: 'Settlement SETTLE-2026-11-001 is paid and cannot become paid; from paid it can become disputed.',
      details: [{ field: 'status', from: 'paid', to: 'paid', settlement_number: 'SETTLE-2026-11-001' }],
    });
  });

  it('records the EFT reference given', async () => {
    await create();
    const paid = await markPaid('SETTLE-2026-11-001', { reference: 'EFT-2026/12-0001' });
    expect(paid.status).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'paid', paid_on: '2026-12-02', paid_reference: 'EFT-2026/12-0001' });
    const bad = await markPaid('SETTLE-2026-11-001', { reference: 'eft 1' });
    expect(bad.status).toBe(400);
    expect(bad.json().error.details.map((d: any) => [d.field, d.code])).toEqual([['reference', 'INVALID_FORMAT']]);
  });

  it('disputes a pending or paid statement within 30 days of the payment date; a disputed one is final', async () => {
    const { id } = (await create()).json();
    await markPaid(id);
    await clock('2027-01-02'); // 2026-12-03 + 30 days: the last day of the window
    const disputed = await dispute(id, '  Totals differ from our ledger.  ');
    expect(disputed.status).toBe(200);
    expect(disputed.json()).toMatchObject({ id, status: 'disputed', disputed_on: '2027-01-02', dispute_reason: 'Totals differ from our ledger.', paid_on: '2026-12-02' });
    const again = await dispute(id, 'again');
    expect(again.status).toBe(409);
    expect(again.json().error).toMatchObject({
      code: 'INVALID_TRANSITION',
      message:
        'Settlement SETTLE-2026-11-001 is disputed and cannot become disputed; from disputed it can become nothing (a disputed statement is final; create a new one for the period).',
    });
    const pay = await markPaid(id);
    expect(pay.status).toBe(409);
    expect(pay.json().error.details).toEqual([{ field: 'status', from: 'disputed', to: 'paid', settlement_number: 'SETTLE-2026-11-001' }]);
  });

  it('a body that is not UTF-8 is refused (400 INVALID_ENCODING), never stored with U+FFFD; UTF-8 text is kept as sent', async () => {
    const { id } = (await create()).json();
    // 'Café totals' in Latin-1: the é is the one byte 0xE9, which is not UTF-8.
    const latin1 = Buffer.concat([Buffer.from('{"reason":"Caf', 'latin1'), Buffer.from([0xe9]), Buffer.from(' totals"}', 'latin1')]);
    for (const contentType of ['application/json', 'application/json; charset=iso-8859-1']) {
      const res = await call(s.app, 'POST', `/v1/settlements/${id}/dispute`, { key: s.keys.acme, payload: latin1, headers: { 'content-type': contentType } });
      expect(res.status, res.text).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'The JSON body is not UTF-8 text (a legacy encoding such as Latin-1, or binary content); send JSON encoded as UTF-8.',
        details: [{ field: 'body', code: 'INVALID_ENCODING', message: 'the body is not valid UTF-8' }],
      });
    }
    expect((await get(id)).json()).toMatchObject({ status: 'pending', dispute_reason: null });
    // The same text in UTF-8 (with a BOM, as some clients write it) is stored exactly.
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"reason":"Café totals"}', 'utf8')]);
    const res = await call(s.app, 'POST', `/v1/settlements/${id}/dispute`, { key: s.keys.acme, payload: utf8, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ status: 'disputed', dispute_reason: 'Café totals' });
  });

  it('a string holding half a surrogate pair (\\ud800) is refused, not stored as U+FFFD; a whole pair is a character', async () => {
    const { id } = (await create()).json();
    const lone = await call(s.app, 'POST', `/v1/settlements/${id}/dispute`, {
      key: s.keys.acme,
      payload: '{"reason":"Totals \\ud800 differ"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(lone.status, lone.text).toBe(400);
    const message = 'reason holds an escape of half a UTF-16 surrogate pair (such as \\ud800) that is no character; send text as valid Unicode';
    expect(lone.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: `The JSON body's ${message}.`, details: [{ field: 'reason', code: 'INVALID_ENCODING', message }] });
    expect((await get(id)).json()).toMatchObject({ status: 'pending', dispute_reason: null });
    const pair = await call(s.app, 'POST', `/v1/settlements/${id}/dispute`, {
      key: s.keys.acme,
      payload: '{"reason":"Totals \\ud83d\\ude00 differ"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(pair.status, pair.text).toBe(200);
    expect((await get(id)).json()).toMatchObject({ status: 'disputed', dispute_reason: 'Totals \u{1F600} differ' });
  });

  it('answers 409 DISPUTE_WINDOW_CLOSED once the window has passed', async () => {
    const { id } = (await create()).json();
    await clock('2027-01-03');
    const late = await dispute(id, 'Too late?');
    expect(late.status).toBe(409);
    expect(late.json().error).toMatchObject({
      code: 'DISPUTE_WINDOW_CLOSED',
      message:
        'The dispute window of SETTLE-2026-11-001 closed on 2027-01-02 (30 days after its payment date 2026-12-03); the clock is at 2027-01-03. Raise the matter with the operator.',
      details: [{ settlement_number: 'SETTLE-2026-11-001', payment_date: '2026-12-03', last_allowed_date: '2027-01-02', today: '2027-01-03' }],
    });
    expect((await get(id)).json().status).toBe('pending');
  });

  it('a statement made after its payment date may be disputed for 30 days from the day it was made', async () => {
    await clock('2027-02-01');
    const made = (await create()).json();
    expect(made.payment_date).toBe('2026-12-03');
    await clock('2027-03-03');
    expect((await dispute(made.id, 'Received on 1 February.')).status).toBe(200);
  });

  it('answers 400 for a bad dispute reason and 404 for an unknown statement', async () => {
    await create();
    for (const [reason, code] of [
      ['', 'REQUIRED'],
      ['   ', 'REQUIRED'],
      ['r'.repeat(501), 'TOO_LONG'],
      ['two\nlines', 'INVALID_VALUE'],
    ] as const) {
      const res = await dispute('SETTLE-2026-11-001', reason);
      expect(res.status, JSON.stringify(reason)).toBe(400);
      expect(res.json().error.details.map((d: any) => [d.field, d.code])).toEqual([['reason', code]]);
    }
    expect((await get('SETTLE-2026-11-001')).json().status).toBe('pending');
    expect((await dispute('SETTLE-2026-12-001', 'x')).status).toBe(404);
    expect((await markPaid('SETTLE-2026-12-001')).status).toBe(404);
  });

  it('refuses a reason holding an API key: it would be stored and answered in clear (keys are kept only as hashes)', async () => {
    await create();
    const res = await dispute('SETTLE-2026-11-001', `Totals differ; our key is ${s.keys.acme}`);
    expect(res.status).toBe(400);
    const problem = 'holds an API key (pmk_ and 40 letters and digits), a secret never stored as data; write the reason without it';
    expect(res.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: `The dispute reason ${problem}.`,
      details: [{ field: 'reason', code: 'INVALID_VALUE', message: problem }],
    });
    expect(res.text).not.toContain(s.keys.acme.slice(4));
    expect((await get('SETTLE-2026-11-001')).json()).toMatchObject({ status: 'pending', dispute_reason: null });
  });
});

describe("another client's settlements", () => {
  it('answer 404 exactly like missing ones, and numbers count per client', async () => {
    const mine = (await create()).json();
    const missingId = '0b5c2c4e-4d1f-8a6b-9c2d-1e2f3a4b5c6d';
    const notFound = (ref: string) => `Settlement '${ref}' was not found. Check the id or number and try again.`;
    for (const [method, url, body] of [
      ['GET', `/v1/settlements/${mine.id}`, undefined],
      ['GET', `/v1/settlements/${mine.id}/export`, undefined],
      ['GET', `/v1/settlements/${mine.id}/export?lines=true`, undefined],
      ['POST', `/v1/settlements/${mine.id}/mark-paid`, {}],
      ['POST', `/v1/settlements/${mine.id}/dispute`, { reason: 'not theirs' }],
    ] as const) {
      const theirs = await call(s.app, method, url, { key: s.keys.other, body });
      const missing = await call(s.app, method, url.replace(mine.id, missingId), { key: s.keys.other, body });
      expect(theirs.status, url).toBe(404);
      expect(theirs.json().error.message).toBe(notFound(mine.id));
      expect(missing.json().error.message).toBe(notFound(missingId));
    }
    expect((await call(s.app, 'GET', '/v1/settlements', { key: s.keys.other })).json().data).toEqual([]);
    expect((await get(mine.id)).json().status).toBe('pending');

    // Other Insure's own statement of the period is its SETTLE-2026-11-001, over its 7.77.
    const theirs = await create(PERIOD, s.keys.other);
    expect(theirs.status).toBe(201);
    expect(theirs.json()).toMatchObject({ settlement_number: 'SETTLE-2026-11-001', total_collections: 7.77, collections_count: 1 });
    expect(theirs.json().id).not.toBe(mine.id);
    expect(theirs.json().payment_reference).not.toBe(mine.payment_reference);
    expect(theirs.text).toBe(stringifyJson(await s.backend.forClient(other).getSettlement(theirs.json().id)));
    expect((await get('SETTLE-2026-11-001', s.keys.other)).json().id).toBe(theirs.json().id);
    expect((await get('SETTLE-2026-11-001')).json().id).toBe(mine.id);
  });
});

describe('concurrent creates of one period', () => {
  it('in one server: exactly one 201, the others 409 SETTLEMENT_EXISTS naming it', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => create()));
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(1);
    const id = created[0]!.json().id;
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(409);
      expect(a.json().error.code).toBe('SETTLEMENT_EXISTS');
      expect(a.json().error.details[0]).toMatchObject({ id, settlement_number: 'SETTLE-2026-11-001' });
    }
    const rows = await s.backend.store.db.selectFrom('settlements').select(['client_id', 'settlement_number']).execute();
    expect(rows).toEqual([{ client_id: acme, settlement_number: 'SETTLE-2026-11-001' }]);
  });

  it('with distinct Idempotency-Keys: one 201, stored for replay; the 409 refusals are not stored', async () => {
    const answers = await Promise.all([1, 2, 3].map((n) => create(PERIOD, s.keys.acme, { 'idempotency-key': `cron-${n}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    for (const n of [1, 2, 3]) {
      const stored = await findIdempotencyKey(s.backend.store.db, acme, `cron-${n}`);
      if (answers[n - 1]!.status === 201) expect(stored?.status).toBe(201);
      else expect(stored).toBeUndefined();
    }
  });
});

describe('concurrent creates across two premia serve processes on one store', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
  });

  async function spawnServe(db: string, cwd: string): Promise<{ base: string; exited: Promise<number | null>; stderr: () => string }> {
    const child = spawn(process.execPath, [join(REPO, 'bin', 'premia.js'), 'serve', '--port', '0', '--db', db], {
      cwd,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const base = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = stderr.match(/premia: serving (http:\/\/127\.0\.0\.1:\d+\/v1)/);
        if (m) resolve(m[1]!);
      });
      child.on('exit', () => reject(new Error(`premia serve exited: ${stderr}`)));
    });
    return { base, exited, stderr: () => stderr };
  }

  it('exactly one 201; the other process answers 409 SETTLEMENT_EXISTS naming it', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'premia.db');
      const { key } = (await runCli(['--db', db, '--seed', '1', '--json', 'keys', 'create', '--client', 'Acme Life'], { cwd: dir })).json();
      await runCli(['--db', db, '--json', 'keys', 'create', '--client', 'Other Insure'], { cwd: dir });
      // Seed the closed period through a backend on the file, then close it before serving.
      const { openLocalBackend } = await import('../../src/backend/local/index.js');
      const seeded = await openLocalBackend({ path: db });
      await seedPeriod(seeded.store);
      await setClock(seeded.store, '2026-12-02');
      await seeded.close();

      const [a, b] = await Promise.all([spawnServe(db, dir), spawnServe(db, dir)]);
      const post = async (base: string) => {
        const res = await request(`${base}/settlements`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ period_month: PERIOD }),
        });
        const text = await res.body.text();
        const reply = { status: res.statusCode, headers: res.headers as any, text, json: () => JSON.parse(text) };
        checkResponse('POST', '/v1/settlements', reply);
        return reply;
      };
      // Two requests to each process, all at once.
      const answers = await Promise.all([post(a.base), post(b.base), post(a.base), post(b.base)]);
      const created = answers.filter((r) => r.status === 201);
      expect(created).toHaveLength(1);
      for (const r of answers.filter((x) => x.status !== 201)) {
        expect(r.status).toBe(409);
        expect(r.json().error.details[0]).toMatchObject({ id: created[0]!.json().id, settlement_number: 'SETTLE-2026-11-001' });
      }
      for (const child of children) child.kill('SIGTERM');
      expect(await a.exited).toBe(0);
      expect(await b.exited).toBe(0);
      const list = await runCli(['--db', db, '--json', 'settlements', 'list'], { cwd: dir });
      // The local client has none: the statement belongs to the key's client.
      expect(list.json().data).toEqual([]);
      const Database = (await import('better-sqlite3')).default;
      const raw = new Database(db, { readonly: true });
      try {
        expect(raw.prepare('select c.name, s.settlement_number from settlements s join clients c on c.id = s.client_id').all()).toEqual([
          { name: 'Acme Life', settlement_number: 'SETTLE-2026-11-001' },
        ]);
      } finally {
        raw.close();
      }
    } finally {
      cleanup();
    }
  });
});
