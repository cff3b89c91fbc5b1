/**
 * The monthly cycle over HTTP, step by step beside a LocalBackend on a separate store: every step
 * is done both ways, and the HTTP response body must equal, byte for byte, what local mode gives
 * (JSON written by the same stringifyJson, CSV streamed by the same exporter). Both stores start
 * alike (same clock, same seed set by the first step), so ids, plans and outcomes match too.
 *
 * The report and settlement steps come with the `settle` merge: each is one more entry in STEPS
 * (see the note at its end).
 */
import { createReadStream, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalBackend, type LocalBackend } from '../../src/backend/local/index.js';
import type { Download, Upload } from '../../src/backend/types.js';
import { stringifyJson } from '../../src/domain/json.js';
import { FIXTURES, tempDir } from '../helpers/cli.js';
import { call, multipart, NOW, startServer, type TestServer } from './helpers.js';

const PERIOD = '2026-11';
const SEED = 42;

/** What one side of a step gave: the HTTP status (expected, for local mode) and the exact body. */
interface Output {
  status: number;
  body: string;
}

/** Values a later step needs from an earlier one, read by each side from its own outputs. */
type Memory = Record<string, string>;

interface Step {
  name: string;
  http: (api: Api, memory: Memory) => Promise<Output>;
  local: (backend: LocalBackend, memory: Memory) => Promise<Output>;
  /** Remember values of this step's output (the same names on both sides). */
  remember?: (output: Output, memory: Memory) => void;
  /** Checks that the step did something (so that equal outputs are not just two empty ones). */
  check?: (output: Output) => void;
}

interface Api {
  send: (method: string, url: string, body?: unknown) => Promise<Output>;
  upload: (url: string, file: string) => Promise<Output>;
}

const json = (status: number, value: unknown): Output => ({ status, body: stringifyJson(value) });

async function download(d: Download): Promise<Output> {
  const chunks: Buffer[] = [];
  for await (const chunk of d.body) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  return { status: 200, body: Buffer.concat(chunks).toString('utf8') };
}

function fileUpload(path: string): Upload {
  return { name: basename(path), stream: createReadStream(path) };
}

const POLICIES_CSV = join(FIXTURES, 'policies.csv');
const BANK_CSV = join(FIXTURES, 'bank-transactions.csv');

const STEPS: Step[] = [
  {
    name: `seed the simulated bank with ${SEED}`,
    http: (api) => api.send('POST', '/v1/bank/seed', { seed: SEED }),
    local: async (b) => json(200, await b.seedBank(SEED)),
  },
  {
    name: 'set the clock to the day before the month',
    http: (api) => api.send('PUT', '/v1/clock', { date: '2026-10-31' }),
    local: async (b) => json(200, await b.setClock('2026-10-31')),
  },
  {
    name: 'day 1: import the policies',
    http: (api) => api.upload('/v1/policies/import', POLICIES_CSV),
    local: async (b) => json(200, await b.importPolicies(fileUpload(POLICIES_CSV))),
    check: (o) => expect(JSON.parse(o.body)).toEqual({ imported: 520, failed: 0, errors: [] }),
  },
  {
    name: "import the customers' bank transactions",
    http: (api) => api.upload('/v1/bank/import', BANK_CSV),
    local: async (b) => json(200, await b.importBankTransactions(fileUpload(BANK_CSV))),
    check: (o) => expect(JSON.parse(o.body)).toEqual({ imported: 473, failed: 0, errors: [] }),
  },
  {
    name: 'trigger the collections run',
    http: (api) => api.send('POST', '/v1/collections/execute', { period_month: PERIOD }),
    local: async (b) => json(202, await b.executeCollections({ period_month: PERIOD })),
    remember: (o, m) => {
      m.execution = JSON.parse(o.body).execution_id;
    },
    check: (o) => expect(JSON.parse(o.body)).toMatchObject({ status: 'processing', policies_queued: 520 }),
  },
  {
    name: 'live through the first ten days',
    http: (api) => api.send('POST', '/v1/clock/advance', { days: 10 }),
    local: async (b) => json(200, await b.advanceClock({ days: 10 })),
    check: (o) => expect(JSON.parse(o.body)).toMatchObject({ from: '2026-10-31', to: '2026-11-10' }),
  },
  {
    name: 'live through the rest of November (the period closes)',
    http: (api) => api.send('POST', '/v1/clock/advance', { to_month_end: true }),
    local: async (b) => json(200, await b.advanceClock({ to_month_end: true })),
    check: (o) => {
      const result = JSON.parse(o.body);
      expect([result.from, result.to, result.days.length]).toEqual(['2026-11-10', '2026-11-30', 20]);
      expect(result.days.at(-1).closed_period).toBe(PERIOD);
    },
  },
  {
    name: 'the run has completed',
    http: (api, m) => api.send('GET', `/v1/executions/${m.execution}`),
    local: async (b, m) => json(200, await b.getExecution(m.execution!)),
    check: (o) => expect(JSON.parse(o.body)).toMatchObject({ status: 'completed', completed_at: '2026-11-30T09:30:00.000Z' }),
  },
  {
    name: "the period's collections (JSON)",
    http: (api) => api.send('GET', `/v1/collections?period_month=${PERIOD}&limit=10000`),
    local: async (b) => json(200, await b.listCollections({ period_month: PERIOD, limit: 10_000 })),
    check: (o) => {
      const page = JSON.parse(o.body);
      expect(page.data).toHaveLength(520);
      expect(page.next_after).toBeNull();
      const statuses = new Set(page.data.map((c: any) => c.collection_status));
      expect(statuses.has('PAID_FULL') && statuses.size > 1).toBe(true);
      expect(page.data.some((c: any) => c.number_of_attempts > 1)).toBe(true);
    },
  },
  {
    name: 'every debit attempt (CSV)',
    http: (api) => api.send('GET', `/v1/reports/attempts?period_month=${PERIOD}`),
    local: async (b) => download(await b.exportAttempts(PERIOD, 'csv')),
    check: (o) => {
      const lines = o.body.split('\n');
      expect(lines[0]).toBe('collection_id,policy_number,customer_id,date,amount,outcome,failure_reason');
      expect(lines.length).toBeGreaterThan(520);
      expect(o.body).toContain(',FAILED,INSUFFICIENT_FUNDS\n');
    },
  },
  {
    name: 'every debit attempt (JSON)',
    http: (api) => api.send('GET', `/v1/reports/attempts?period_month=${PERIOD}&format=json`),
    local: async (b) => download(await b.exportAttempts(PERIOD, 'json')),
  },
  // After the settle merge, the rest of the cycle is one entry each, e.g.:
  //   day 1 of the next month: GET /v1/reports/collections?period_month=2026-11 (CSV and JSON)
  //     ↔ b.collectionsReport(PERIOD, 'csv'|'json') through download();
  //   day 2: POST /v1/settlements {period_month} (201; remember the id) ↔ json(201, b.createSettlement(PERIOD));
  //   day 3: GET /v1/settlements/{id}/export ↔ download(b.exportSettlement(m.settlement)).
];

describe('the monthly cycle over HTTP equals local mode, byte for byte', () => {
  let s: TestServer;
  let local: LocalBackend;
  let cleanup: () => void;
  let api: Api;
  const httpMemory: Memory = {};
  const localMemory: Memory = {};

  beforeAll(async () => {
    s = await startServer();
    const tmp = tempDir('premia-cycle-');
    cleanup = tmp.cleanup;
    local = await openLocalBackend({ path: join(tmp.dir, 'local.db'), now: NOW });
    const key = s.keys.acme;
    api = {
      send: async (method, url, body) => {
        const res = await call(s.app, method, url, { key, body });
        return { status: res.status, body: res.text };
      },
      upload: async (url, file) => {
        const res = await call(s.app, 'POST', url, { key, ...multipart('file', basename(file), readFileSync(file)) });
        return { status: res.status, body: res.text };
      },
    };
  });
  afterAll(async () => {
    await s?.close();
    await local?.close();
    cleanup?.();
  });

  for (const step of STEPS) {
    it(step.name, async () => {
      const viaHttp = await step.http(api, httpMemory);
      const viaLocal = await step.local(local, localMemory);
      expect(viaHttp.status).toBe(viaLocal.status);
      expect(viaHttp.body).toBe(viaLocal.body);
      step.remember?.(viaHttp, httpMemory);
      step.remember?.(viaLocal, localMemory);
      step.check?.(viaHttp);
    });
  }
});
