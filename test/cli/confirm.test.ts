/**
 * Confirmations before what cannot be undone (docs/cli.md, "Confirmations"; docs/bank-and-clock.md, "The virtual clock"):
 * on a terminal the CLI says what will happen, with the store's own figures, and asks (default
 * no; no is exit 130 with nothing changed); --yes skips the question; without a terminal nothing
 * is asked, except that an advance closing more than one period is refused (exit 2) without
 * --yes. `clock advance --dry-run` prints the same figures and changes nothing.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupedUnits } from '../helpers/grouped.js';
import type { Prompter } from '../../src/cli/context.js';
import { answering, FIXTURES, runCli, tempDir, type CliOptions } from '../helpers/cli.js';
import { remoteEnv, runPremia, startLiveServer, type LiveServer } from '../helpers/remote.js';
import { startSpecStub, type SpecStub } from '../helpers/remote-spec-stub.js';

const tmp = tempDir('premia-confirm-');
afterAll(() => tmp.cleanup());

const cli = (db: string, args: string[], options: Partial<CliOptions> = {}) =>
  runCli(['--db', db, ...args], { cwd: tmp.dir, ...options, env: { NO_COLOR: '1', ...options.env } });

/** A prompter that answers yes, once another advance (`args`) has moved the clock of `db` while the question waited. */
function meanwhile(db: string, args: string[], asked: string[]): Prompter {
  const yes = answering([true], asked);
  return {
    ...yes,
    confirm: async (message, options) => {
      expect((await cli(db, ['clock', 'advance', ...args])).code).toBe(0);
      return yes.confirm(message, options);
    },
  };
}

/** On a terminal: stdin and stderr are TTYs. */
const terminal = (answers: boolean[], asked: string[] = []): Partial<CliOptions> => ({ tty: true, prompter: answering(answers, asked) });

/** The store's bytes (and its WAL's, when one is left). */
function bytesOf(db: string): string {
  const hash = createHash('sha256').update(readFileSync(db));
  if (existsSync(`${db}-wal`)) hash.update(readFileSync(`${db}-wal`));
  return hash.digest('hex');
}

// The README's month and the next one queued, the clock 12 days into November.
let base: string;
beforeAll(async () => {
  base = join(tmp.dir, 'base.db');
  for (const args of [
    ['--seed', '1', 'clock', 'set', '2026-10-31'],
    ['policies', 'import', join(FIXTURES, 'policies.csv')],
    ['bank', 'import', join(FIXTURES, 'bank-transactions.csv')],
    ['collections', 'execute', '--period', '2026-11'],
    ['collections', 'execute', '--period', '2026-12'],
    ['clock', 'advance', '--days', '12'],
  ]) {
    const r = await cli(base, args);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  }
});

let copies = 0;
function copyOfBase(): string {
  const db = join(tmp.dir, `store-${++copies}.db`);
  copyFileSync(base, db);
  return db;
}

const clockOf = async (db: string) => (await cli(db, ['--json', 'clock'])).json().date as string;

const ADVANCE_DETAILS = [
  'Advancing the clock 54 days, from 2026-11-12 to 2027-01-05, closes 2 periods for good: 2026-11 and 2026-12.',
  '  2026-11: 63 of its 520 collections are not fully paid yet (45 with nothing collected; 97,554.97 still owed); what is not collected by 2026-11-30 stays unpaid for good (UNPAID or PAID_PARTIAL).',
  '  2026-12: none of its 520 collections is fully paid yet (520 with nothing collected; 518,983.09 still owed); what is not collected by 2026-12-31 stays unpaid for good (UNPAID or PAID_PARTIAL).',
  '  Already planned in these days: 7 debits for 1,679.89 (2026-11-13).',
];
const ADVANCE_QUESTION = 'Advance the clock 54 days, to 2027-01-05, and close 2 periods (2026-11 and 2026-12)?';

describe('clock advance on a terminal', () => {
  it('says what closes, with the figures of the store, and asks; no changes nothing and exits 130', async () => {
    const db = copyOfBase();
    const before = bytesOf(db);
    const asked: string[] = [];
    const r = await cli(db, ['clock', 'advance', '--to', '2027-01-05'], terminal([false], asked));
    expect(r.code).toBe(130);
    expect(asked).toEqual([ADVANCE_QUESTION]);
    expect(r.stderr).toBe([`Local mode: store ${db}`, ...ADVANCE_DETAILS, 'Nothing changed.', ''].join('\n'));
    expect(r.stdout).toBe('');
    expect(bytesOf(db)).toBe(before);
  });

  it('yes lives through the days; the debits it said were planned are the ones made', async () => {
    const db = copyOfBase();
    const r = await cli(db, ['--json', 'clock', 'advance', '--to', '2027-01-05'], terminal([true]));
    expect(r.code).toBe(0);
    const result = r.json();
    expect([result.from, result.to, result.days.length]).toEqual(['2026-11-12', '2027-01-05', 54]);
    // --json on a terminal asks on stderr; stdout holds the JSON alone.
    expect(r.stderr).toContain(`\n${ADVANCE_DETAILS[3]}\n`);
    const attempts = (await cli(db, ['collections', 'attempts', '--period', '2026-11'])).stdout.split('\n').slice(1, -1);
    // Submitted the evening before: at the clock's date (2026-11-12) the debits of 2026-11-13 are planned, no later ones.
    const early = attempts.filter((l) => l.split(',')[3]! === '2026-11-13');
    const cents = early.reduce((s, l) => s + Math.round(Number(l.split(',')[4]) * 100), 0);
    expect([early.length, cents]).toEqual([7, 167989]);
  });

  it('--json: the question and "Nothing changed." go to stderr (the error body), stdout stays empty', async () => {
    const db = copyOfBase();
    const r = await cli(db, ['--json', 'clock', 'advance', '--to', '2027-01-05'], terminal([false]));
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').slice(-2)).toEqual(['{"error":{"code":"CANCELLED","message":"Nothing changed.","request_id":null}}', '']);
  });

  it('--yes asks nothing', async () => {
    const db = copyOfBase();
    const r = await cli(db, ['--yes', 'clock', 'advance', '--to', '2027-01-05'], terminal([]));
    expect(r.code).toBe(0);
    expect(await clockOf(db)).toBe('2027-01-05');
  });

  it('an advance that closes no period asks nothing', async () => {
    const db = copyOfBase();
    const r = await cli(db, ['clock', 'advance', '--days', '3'], terminal([]));
    expect(r.code).toBe(0);
    expect(await clockOf(db)).toBe('2026-11-15');
  });

  it('periods with no collections are named together', async () => {
    const db = copyOfBase();
    expect((await cli(db, ['--yes', 'clock', 'advance', '--to', '2027-01-31'])).code).toBe(0);
    const asked: string[] = [];
    const r = await cli(db, ['clock', 'advance', '--to', '2027-05-02'], terminal([false], asked));
    expect(r.code).toBe(130);
    expect(asked).toEqual(['Advance the clock 91 days, to 2027-05-02, and close 3 periods (2027-02, 2027-03 and 2027-04)?']);
    expect(r.stderr.split('\n').slice(1, -2)).toEqual([
      'Advancing the clock 91 days, from 2027-01-31 to 2027-05-02, closes 3 periods for good: 2027-02, 2027-03 and 2027-04.',
      '  2027-02, 2027-03 and 2027-04: no collections queued; once closed, they can no longer be run.',
    ]);
  });

  // Another advance while the question waited (a cron job's) moved the clock on: the answer ran
  // --days 20 from there, to 2026-12-12, past the 2026-12-02 the question named.
  it('yes runs to the date the question named, even when another advance moved the clock meanwhile', async () => {
    const db = copyOfBase();
    const asked: string[] = [];
    const r = await cli(db, ['--json', 'clock', 'advance', '--days', '20'], { tty: true, prompter: meanwhile(db, ['--days', '10'], asked) });
    expect(r.code).toBe(0);
    expect(asked).toEqual(['Advance the clock 20 days, to 2026-12-02, and close 2026-11?']);
    expect([r.json().from, r.json().to]).toEqual(['2026-11-22', '2026-12-02']);
    expect(await clockOf(db)).toBe('2026-12-02');
  });

  // Past the end of the month asked about, --to-month-end from there closed December, never asked.
  it('yes to --to-month-end closes nothing it did not ask about when another advance has passed that date', async () => {
    const db = copyOfBase();
    const asked: string[] = [];
    const r = await cli(db, ['clock', 'advance', '--to-month-end'], { tty: true, prompter: meanwhile(db, ['--days', '20'], asked) });
    expect(asked).toEqual(['Advance the clock 18 days, to 2026-11-30, and close 2026-11?']);
    expect([r.code, r.stderr.split('\n').slice(-3)]).toEqual([
      6,
      ['error: The clock is at 2026-12-02; it only moves forward, so it cannot go back to 2026-11-30.', '  (code CLOCK_BACKWARDS)', ''],
    ]);
    expect(await clockOf(db)).toBe('2026-12-02');
  });

  it('before the first collections run nothing is final: no question (clock set can move the clock back)', async () => {
    const db = join(tmp.dir, 'fresh.db');
    expect((await cli(db, ['--seed', '1', 'clock', 'set', '2026-10-31'])).code).toBe(0);
    const r = await cli(db, ['clock', 'advance', '--days', '400'], terminal([]));
    expect(r.code).toBe(0);
  });
});

describe('clock advance without a terminal', () => {
  it('closing more than one period is refused without --yes (exit 2), before anything changes', async () => {
    const db = copyOfBase();
    const before = bytesOf(db);
    const r = await cli(db, ['clock', 'advance', '--to', '2027-01-05']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: This advance would close 2 periods for good (2026-11 and 2026-12). Without a terminal to ask on, premia closes more than one period ' +
        'at a time only when told to: add --yes. Nothing changed.\n  (code USAGE_ERROR)\n',
    );
    expect(bytesOf(db)).toBe(before);
    const json = await cli(db, ['--json', 'clock', 'advance', '--days', '300']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr).error.message).toMatch(/^This advance would close 10 periods for good \(2026-11, 2026-12, …, 2027-08\)\. /);
    expect((await cli(db, ['--yes', 'clock', 'advance', '--to', '2027-01-05'])).code).toBe(0);
    expect(await clockOf(db)).toBe('2027-01-05');
  });

  it('closing one period goes ahead without a question (cron at a month end)', async () => {
    const db = copyOfBase();
    const r = await cli(db, ['clock', 'advance', '--to-month-end'], { prompter: answering([]) });
    expect(r.code).toBe(0);
    expect(await clockOf(db)).toBe('2026-11-30');
  });

  it('closing a period nobody queued collections for is refused without --yes (a cron rerun, a forgotten execute)', async () => {
    const db = copyOfBase();
    expect((await cli(db, ['--yes', 'clock', 'advance', '--to', '2026-12-31'])).code).toBe(0); // November and December were queued
    const before = bytesOf(db);
    const r = await cli(db, ['clock', 'advance', '--to-month-end'], { prompter: answering([]) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: This advance would close 2027-01 with no collections queued: once closed, its premiums can never be collected. Queue them first ('premia collections execute --period 2027-01'), or add --yes to close it anyway. Nothing changed.\n  (code USAGE_ERROR)\n",
    );
    expect(bytesOf(db)).toBe(before);
    expect(await clockOf(db)).toBe('2026-12-31');
    // A new Idempotency-Key is no way round it: the store judges the close as it runs the advance
    // (safe_close), and refuses it the same way, nothing done.
    const keyed = await cli(db, ['clock', 'advance', '--to-month-end', '--idempotency-key', 'nightly-2026-12-31'], { prompter: answering([]) });
    expect(keyed.code).toBe(2);
    expect(keyed.stderr).toBe(r.stderr);
    expect(await clockOf(db)).toBe('2026-12-31');
    // Queued, the same advance goes ahead.
    expect((await cli(db, ['collections', 'execute', '--period', '2027-01'])).code).toBe(0);
    expect((await cli(db, ['clock', 'advance', '--to-month-end'])).code).toBe(0);
    expect(await clockOf(db)).toBe('2027-01-31');
  });

  it('a client with no active policy (an operator acting for its own, the books under others) is not refused for them', async () => {
    const db = join(tmp.dir, 'clients.db');
    for (const args of [
      ['clock', 'set', '2026-10-31'],
      ['keys', 'create', '--client', 'Acme Life'],
      ['--as-client', 'Acme Life', 'policies', 'import', join(FIXTURES, 'policies.csv')],
      ['--as-client', 'Acme Life', 'collections', 'execute', '--period', '2026-11'],
    ]) {
      expect((await cli(db, args)).code).toBe(0);
    }
    // Acme Life has not queued December: refused for it, as above.
    const acme = await cli(db, ['--as-client', 'Acme Life', 'clock', 'advance', '--to', '2026-12-31']);
    expect(acme.code).toBe(2);
    // November queued by Acme Life; the store's own client (Local) has no policy: nothing of its own to lose.
    const local = await cli(db, ['clock', 'advance', '--to', '2026-11-30']);
    expect(local.code).toBe(0);
    expect(await clockOf(db)).toBe('2026-11-30');
  });

  it("closing a period another client of the store never queued is refused without --yes, and named in the question", async () => {
    const db = join(tmp.dir, 'others.db');
    for (const args of [
      ['clock', 'set', '2026-10-31'],
      ['policies', 'import', join(FIXTURES, 'policies.csv')],
      ['collections', 'execute', '--period', '2026-11'],
      ['keys', 'create', '--client', 'Acme Life'],
      ['--as-client', 'Acme Life', 'policies', 'import', join(FIXTURES, 'policies.csv')],
    ]) {
      expect((await cli(db, args)).code).toBe(0);
    }
    // The store's own client queued November; Acme Life, with 520 active policies, queued nothing.
    // The store judges it as the advance starts (safe_close): refused before the first day.
    const r = await cli(db, ['clock', 'advance', '--to', '2026-11-30']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: This advance would close 2026-11 for the whole store, and Acme Life has active policies and no collections queued for it: ' +
        "once closed, its premiums for it can never be collected. Have it queued first ('premia collections execute --period 2026-11' with its key), " +
        'or add --yes to close it anyway. Nothing changed.\n  (code USAGE_ERROR)\n',
    );
    expect(await clockOf(db)).toBe('2026-10-31');
    expect((await cli(db, ['collections', 'attempts', '--period', '2026-11'])).stdout.split('\n').length).toBe(2); // the header alone
    const dry = await cli(db, ['--json', 'clock', 'advance', '--to', '2026-11-30', '--dry-run']);
    expect(dry.json().periods_closed[0].other_clients_not_run).toEqual(['Acme Life']);
    const human = await cli(db, ['clock', 'advance', '--to', '2026-11-30', '--dry-run']);
    expect(human.stdout).toContain("\n2026-11, the store's other clients with active policies and no collections queued: Acme Life\n");
    // Acme Life's own view names the store's client.
    const asAcme = await cli(db, ['--json', '--as-client', 'Acme Life', 'clock', 'advance', '--to', '2026-11-30', '--dry-run']);
    expect(asAcme.json().periods_closed[0]).toMatchObject({ collections: 0, other_clients_not_run: [] });
    expect((await cli(db, ['--as-client', 'Acme Life', 'collections', 'execute', '--period', '2026-11'])).code).toBe(0);
    expect((await cli(db, ['clock', 'advance', '--to', '2026-11-30'])).code).toBe(0);
    expect(await clockOf(db)).toBe('2026-11-30');
  });
});

describe('clock advance --dry-run', () => {
  it('prints the days, the periods it closes, their open collections and the debits planned; the store is untouched', async () => {
    const db = copyOfBase();
    const before = bytesOf(db);
    const r = await cli(db, ['clock', 'advance', '--to', '2027-01-05', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'from            2026-11-12',
        'to              2027-01-05',
        'days            54',
        'periods closed  2 (2026-11 and 2026-12)',
        'planned debits  7 for 1679.89 (2026-11-13)',
        'locked          yes (a collections run exists: closed periods are final)',
        '',
        'period   last day    collections  not fully paid  nothing collected  still owed',
        '2026-11  2026-11-30          520              63                 45    97554.97',
        '2026-12  2026-12-31          520             520                520   518983.09',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('Dry run: nothing changed. Without --dry-run this lives 54 days and closes 2026-11 and 2026-12.\n');
    expect(bytesOf(db)).toBe(before);
    expect(await clockOf(db)).toBe('2026-11-12');
  });

  it('--json prints the preview object', async () => {
    const db = copyOfBase();
    const r = await cli(db, ['--json', 'clock', 'advance', '--days', '3', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '{"from":"2026-11-12","to":"2026-11-15","days":3,"locked":true,"periods_closed":[],' +
        '"planned_debits":{"count":7,"amount":1679.89,"first_date":"2026-11-13","last_date":"2026-11-13"}}\n',
    );
    expect(r.stderr).toBe('');
  });

  it('refuses what the advance refuses: a date before the clock is CLOCK_BACKWARDS (exit 6)', async () => {
    const r = await cli(copyOfBase(), ['--json', 'clock', 'advance', '--to', '2026-11-01', '--dry-run']);
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stderr).error.code).toBe('CLOCK_BACKWARDS');
  });
});

/** A copy of the base store with November closed (the clock on 2026-12-02). */
async function novemberClosed(): Promise<string> {
  const db = copyOfBase();
  expect((await cli(db, ['clock', 'advance', '--to', '2026-12-02'])).code).toBe(0);
  return db;
}

describe('settlements', () => {
  it('create asks with the statement it would make: period, total, fees, net; no creates nothing', async () => {
    const db = await novemberClosed();
    const asked: string[] = [];
    const no = await cli(db, ['settlements', 'create', '--period', '2026-11'], terminal([false], asked));
    expect(no.code).toBe(130);
    const made = await cli(db, ['--json', 'settlements', 'list']);
    expect(made.json().data).toEqual([]);
    const yes = await cli(db, ['--json', 'settlements', 'create', '--period', '2026-11'], terminal([true], asked));
    expect(yes.code).toBe(0);
    const s = yes.json();
    expect(asked).toEqual([`Create SETTLE-2026-11-001 (net ${groupedUnits(s.net_amount)})?`, `Create SETTLE-2026-11-001 (net ${groupedUnits(s.net_amount)})?`]);
    expect(no.stderr).toBe(
      [
        `Local mode: store ${db}`,
        `Settlement statement SETTLE-2026-11-001 for 2026-11: 520 collections, ${groupedUnits(s.total_collections)} collected; ` +
          `fees ${groupedUnits(s.total_fees)} and VAT ${groupedUnits(s.vat)}; net ${groupedUnits(s.net_amount)}, to be paid by 2026-12-03 (reference ${s.payment_reference}).`,
        'A statement stays on record: it can be marked paid or disputed, never deleted.',
        'Nothing changed.',
        '',
      ].join('\n'),
    );
  });

  // A rerun of the run that made the statement, by hand on a terminal: the question's preview
  // found the statement that run made and refused with SETTLEMENT_EXISTS (exit 6), never reaching
  // the store's stored answer.
  it('create under --idempotency-key: a rerun asks nothing and answers with what the first run made', async () => {
    const db = await novemberClosed();
    const key = ['--idempotency-key', 'settle-2026-11'];
    const first = await cli(db, ['--json', ...key, 'settlements', 'create', '--period', '2026-11'], terminal([true]));
    expect(first.code).toBe(0);
    const rerun = await cli(db, ['--json', ...key, 'settlements', 'create', '--period', '2026-11'], terminal([]));
    expect([rerun.code, rerun.stdout]).toEqual([0, first.stdout]);
    const human = await cli(db, [...key, 'settlements', 'create', '--period', '2026-11'], terminal([]));
    expect(human.code).toBe(0);
    // (Said to be the earlier run's statement, never "Created" again.)
    expect(human.stderr).toContain(
      "warning: SETTLE-2026-11-001 was made by an earlier run with idempotency key 'settle-2026-11' (that run's answer is repeated); it is still pending, to pay by 2026-12-03: no statement was made now.\n",
    );
    expect(human.stderr).not.toContain('Created');
    expect(human.stdout).toContain(`net_amount         ${groupedUnits(first.json().net_amount)}`);
    // Another key is a new request: refused as without a key, and still nothing asked.
    const other = await cli(db, ['--idempotency-key', 'settle-2026-11-b', 'settlements', 'create', '--period', '2026-11'], terminal([]));
    expect(other.code).toBe(6);
    expect(other.stderr).toContain('(code SETTLEMENT_EXISTS)');
    expect((await cli(db, ['--json', 'settlements', 'list'])).json().data).toHaveLength(1);
  });

  it('create reports a refusal before asking anything (the period is open)', async () => {
    const r = await cli(copyOfBase(), ['settlements', 'create', '--period', '2026-11'], terminal([]));
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('Period 2026-11 is still open');
  });

  it('mark-paid asks, naming the statement, the day and the reference it records; no leaves it pending', async () => {
    const db = await novemberClosed();
    const s = (await cli(db, ['--json', 'settlements', 'create', '--period', '2026-11'])).json();
    const asked: string[] = [];
    const no = await cli(db, ['settlements', 'mark-paid', 'SETTLE-2026-11-001'], terminal([false], asked));
    expect(no.code).toBe(130);
    expect(asked).toEqual(['Mark SETTLE-2026-11-001 as paid?']);
    expect(no.stderr).toBe(
      [
        `Local mode: store ${db}`,
        `Marking SETTLE-2026-11-001 (2026-11, net ${groupedUnits(s.net_amount)}, to be paid by 2026-12-03) as paid today with reference ${s.payment_reference} is final: ` +
          'a paid statement can only be disputed, and a statement made for 2026-11 after that counts this payment as made (previously_paid).',
        'Nothing changed.',
        '',
      ].join('\n'),
    );
    expect((await cli(db, ['--json', 'settlements', 'get', 'SETTLE-2026-11-001'])).json().status).toBe('pending');
    const yes = await cli(db, ['--json', 'settlements', 'mark-paid', 'SETTLE-2026-11-001', '--reference', 'EFT-778/2'], terminal([true], asked));
    expect(yes.code).toBe(0);
    expect(asked[1]).toBe('Mark SETTLE-2026-11-001 as paid?');
    expect(yes.json()).toMatchObject({ status: 'paid', paid_on: '2026-12-02', paid_reference: 'EFT-778/2' });
    // Paid already: refused by the move itself, nothing asked.
    const again = await cli(db, ['settlements', 'mark-paid', 'SETTLE-2026-11-001'], terminal([]));
    expect(again.code).toBe(6);
  });

  it('dispute asks, naming the statement, its state and the reason; no leaves it as it was', async () => {
    const db = await novemberClosed();
    const s = (await cli(db, ['--json', 'settlements', 'create', '--period', '2026-11'])).json();
    expect((await cli(db, ['settlements', 'mark-paid', 'SETTLE-2026-11-001'])).code).toBe(0);
    const asked: string[] = [];
    const no = await cli(db, ['settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'Totals differ from our books'], terminal([false], asked));
    expect(no.code).toBe(130);
    expect(asked).toEqual(['Dispute SETTLE-2026-11-001?']);
    expect(no.stderr).toBe(
      [
        `Local mode: store ${db}`,
        `Disputing SETTLE-2026-11-001 (2026-11, net ${groupedUnits(s.net_amount)}, paid on 2026-12-02 with reference ${s.payment_reference}) is final: ` +
          "it can no longer be paid or changed; 'premia settlements create --period 2026-11' then makes a new statement for the period.",
        '  Reason: Totals differ from our books',
        'Nothing changed.',
        '',
      ].join('\n'),
    );
    expect((await cli(db, ['--json', 'settlements', 'get', 'SETTLE-2026-11-001'])).json().status).toBe('paid');
    const yes = await cli(db, ['--json', 'settlements', 'dispute', 'SETTLE-2026-11-001', '--reason', 'Totals differ from our books'], terminal([true]));
    expect(yes.code).toBe(0);
    expect(yes.json().status).toBe('disputed');
  });
});

// `--amount 94134` meant as 941.34: a hundredfold premium, debited from next month on, went through unasked.
describe('a premium change of tenfold or more', () => {
  it('asks, showing the premium it has; no changes nothing (exit 130), yes sets it', async () => {
    const db = copyOfBase();
    const asked: string[] = [];
    const no = await cli(db, ['policies', 'update', 'POL-2026315', '--amount', '37200'], terminal([false], asked));
    expect([no.code, asked]).toEqual([130, ['Set the premium of policy POL-2026315 to 37,200.00?']]);
    expect(no.stderr).toBe(
      `Local mode: store ${db}\nPolicy POL-2026315's premium would go from 372.00 to 37,200.00 a month, 100 times the premium it has: from next month on, its collections debit the new amount.\nNothing changed.\n`,
    );
    expect((await cli(db, ['--json', 'policies', 'get', 'POL-2026315'])).json().collection_amount).toBe(372);
    const down = await cli(db, ['policies', 'update', 'POL-2026315', '--amount', '3.72'], terminal([true], asked));
    expect([down.code, asked.at(-1)]).toEqual([0, 'Set the premium of policy POL-2026315 to 3.72?']);
    expect(down.stderr).toContain("Policy POL-2026315's premium would go from 372.00 to 3.72 a month, 1/100 of the premium it has");
    expect((await cli(db, ['--json', 'policies', 'get', 'POL-2026315'])).json().collection_amount).toBe(3.72);
  });

  it('a change within tenfold, --yes, or no terminal: nothing asked (control)', async () => {
    const db = copyOfBase();
    expect((await cli(db, ['policies', 'update', 'POL-2026315', '--amount', '400'], terminal([]))).code).toBe(0);
    expect((await cli(db, ['policies', 'update', 'POL-2026315', '--amount', '40000', '--yes'], terminal([]))).code).toBe(0);
    expect((await cli(db, ['policies', 'update', 'POL-2026315', '--amount', '5000'])).code).toBe(0);
  });

  it('without a terminal, tenfold or more is refused unless --yes is given: nothing changes (issue 12)', async () => {
    // Before, a script's --amount 37200 for 372.00 went through unasked: from next month, a hundred times the premium debited.
    const db = copyOfBase();
    const r = await cli(db, ['policies', 'update', 'POL-2026315', '--amount', '37200']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      "error: Policy POL-2026315's premium would go from 372.00 to 37,200.00 a month, 100 times the premium it has: from next month on, its collections debit the new amount. " +
        'Without a terminal to ask on, premia moves a premium tenfold or more only when told to: add --yes. Nothing changed.\n  (code USAGE_ERROR)\n',
    ]);
    expect((await cli(db, ['--json', 'policies', 'get', 'POL-2026315'])).json()).toMatchObject({ collection_amount: 372, amount_history: [] });
    expect((await cli(db, ['--json', 'policies', 'update', 'POL-2026315', '--amount', '3.72'])).code).toBe(2);
    expect((await cli(db, ['--json', '--yes', 'policies', 'update', 'POL-2026315', '--amount', '37200'])).json().collection_amount).toBe(37200);
  });
});

describe('a policy cancellation', () => {
  it('asks, naming the collections it cancels and the planned debit it withdraws; yes withdraws it', async () => {
    const db = copyOfBase();
    const asked: string[] = [];
    const no = await cli(db, ['policies', 'update', 'POL-2026315', '--status', 'cancelled'], terminal([false], asked));
    expect(no.code).toBe(130);
    expect(asked).toEqual(['Cancel policy POL-2026315?']);
    expect(no.stderr).toBe(
      [
        `Local mode: store ${db}`,
        'Cancelling policy POL-2026315 (customer C100195, 372.00 a month, active) is final: it cannot be made active again.',
        '  2026-11: its collection (372.00 due, 0.00 collected, UNPAID) becomes CANCELLED; what was collected stays collected.',
        '  2026-12: its collection (372.00 due, 0.00 collected, UNPAID) becomes CANCELLED; what was collected stays collected.',
        '  Planned debits withdrawn: 1 debit for 372.00 (2026-11-13).',
        'Nothing changed.',
        '',
      ].join('\n'),
    );
    expect((await cli(db, ['--json', 'policies', 'get', 'POL-2026315'])).json().status).toBe('active');

    // Left alone, that debit is made on the 13th; cancelled, it is not.
    const kept = copyOfBase();
    expect((await cli(kept, ['clock', 'advance', '--days', '1'])).code).toBe(0);
    expect((await cli(kept, ['collections', 'attempts', '--period', '2026-11'])).stdout).toContain(',POL-2026315,C100195,2026-11-13,372.00,SUCCESS,\n');
    expect((await cli(db, ['policies', 'update', 'POL-2026315', '--status', 'cancelled'], terminal([true]))).code).toBe(0);
    expect((await cli(db, ['clock', 'advance', '--days', '1'])).code).toBe(0);
    expect((await cli(db, ['collections', 'attempts', '--period', '2026-11'])).stdout).not.toContain(',POL-2026315,');
  });

  it('other changes, and cancelling a cancelled policy, ask nothing; without a terminal nothing is asked', async () => {
    const db = copyOfBase();
    expect((await cli(db, ['policies', 'update', 'POL-2026315', '--amount', '300.00'], terminal([]))).code).toBe(0);
    expect((await cli(db, ['policies', 'update', 'POL-2026315', '--status', 'cancelled'], { prompter: answering([]) })).code).toBe(0);
    expect((await cli(db, ['policies', 'update', 'POL-2026315', '--status', 'cancelled'], terminal([]))).code).toBe(0);
  });

  it('a cancellation with another premium is refused whole without asking first; with the same premium it asks', async () => {
    const db = copyOfBase();
    const asked: string[] = [];
    const r = await cli(db, ['policies', 'update', 'POL-2026315', '--status', 'cancelled', '--amount', '5.00'], terminal([], asked));
    expect([r.code, r.stdout, asked]).toEqual([6, '', []]);
    expect(r.stderr).toBe(
      `Local mode: store ${db}\n` +
        'error: Policy POL-2026315: a cancellation is final and leaves no premium to change; cancel it, or change its premium, not both in one update.\n' +
        '  (code INVALID_TRANSITION)\n',
    );
    expect((await cli(db, ['--json', 'policies', 'get', 'POL-2026315'])).json()).toMatchObject({ status: 'active', collection_amount: 372 });
    const same = await cli(db, ['policies', 'update', 'POL-2026315', '--status', 'cancelled', '--amount', '372.00'], terminal([false], asked));
    expect([same.code, asked]).toEqual([130, ['Cancel policy POL-2026315?']]);
  });
});

describe('keys revoke', () => {
  it('asks, naming the key and its client, and says when it is the client’s last active key', async () => {
    const db = join(tmp.dir, 'keys.db');
    const first = (await cli(db, ['--seed', '1', '--json', 'keys', 'create', '--client', 'acme'])).json();
    const second = (await cli(db, ['--json', 'keys', 'create', '--client', 'acme'])).json();
    const asked: string[] = [];
    const no = await cli(db, ['keys', 'revoke', first.id], terminal([false], asked));
    expect(no.code).toBe(130);
    expect(no.stderr).toBe(
      [
        `Local mode: store ${db}`,
        `Revoking key ${first.id} (pmk_…${first.key.slice(-4)}) of acme, created 2026-11-21T09:30:00.000Z: every request with it is refused from then on, and a revoked key cannot be restored.`,
        'Nothing changed.',
        '',
      ].join('\n'),
    );
    expect((await cli(db, ['keys', 'revoke', first.id], terminal([true], asked))).code).toBe(0);
    const last = await cli(db, ['keys', 'revoke', second.id], terminal([false], asked));
    expect(last.stderr).toContain("\n  acme has no other active key: its requests all stop until premia keys create --client acme makes one.\nNothing changed.\n");
    expect(asked).toEqual([`Revoke key ${first.id} of acme?`, `Revoke key ${first.id} of acme?`, `Revoke key ${second.id} of acme?`]);
    const keys = (await cli(db, ['--json', 'keys', 'list'])).json();
    expect(keys.map((k: { revoked_at: string | null }) => k.revoked_at !== null)).toEqual([true, false]);
  });
});

describe('remote mode', () => {
  let server: LiveServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startLiveServer();
    env = { ...remoteEnv(server.url, server.keys.operator), NO_COLOR: '1' };
    for (const args of [
      ['clock', 'set', '2026-10-31'],
      ['policies', 'import', join(FIXTURES, 'policies.csv')],
      ['collections', 'execute', '--period', '2026-11'],
      ['collections', 'execute', '--period', '2026-12'],
      ['clock', 'advance', '--days', '12'],
    ]) {
      expect((await runPremia(args, { cwd: tmp.dir, env })).code, args.join(' ')).toBe(0);
    }
  });
  afterAll(async () => server.close());
  /** The same store in local mode, acting for the same client. */
  const local = (args: string[], options: Partial<CliOptions> = {}) =>
    cli(server.dbPath, ['--as-client', 'Acme Life', ...args], options);

  it('--dry-run gives the figures local mode gives on the service’s store (GET /clock/preview)', async () => {
    for (const args of [['clock', 'advance', '--to', '2027-01-05', '--dry-run'], ['--json', 'clock', 'advance', '--days', '30', '--dry-run']]) {
      const remote = await runPremia(args, { cwd: tmp.dir, env });
      expect(remote.code).toBe(0);
      const here = await local(args);
      expect(remote.stdout).toBe(here.stdout);
      expect(remote.stderr).toBe(here.stderr);
    }
    expect(server.logs.filter((l) => l.includes(' GET /v1/clock/preview 200 '))).toHaveLength(2);
  });

  it('the question on a terminal carries the service’s figures; no changes nothing', async () => {
    const remoteAsked: string[] = [];
    const remote = await runPremia(['clock', 'advance', '--to', '2027-01-05'], { cwd: tmp.dir, env, ...terminal([false], remoteAsked) });
    const localAsked: string[] = [];
    const here = await local(['clock', 'advance', '--to', '2027-01-05'], terminal([false], localAsked));
    expect([remote.code, here.code]).toEqual([130, 130]);
    expect(remoteAsked).toEqual(localAsked);
    expect(remote.stderr.split('\n').slice(1)).toEqual(here.stderr.split('\n').slice(1));
    expect(remote.stderr).toContain('  2026-11: ');
    expect((await runPremia(['--json', 'clock'], { cwd: tmp.dir, env })).json().date).toBe('2026-11-12');
  });

  it('unattended, more than one period is refused there too, before any request that changes anything', async () => {
    const advances = () => server.logs.filter((l) => l.includes('POST /v1/clock/advance')).length;
    const before = advances();
    const r = await runPremia(['clock', 'advance', '--days', '60'], { cwd: tmp.dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: This advance would close 2 periods for good \(2026-11 and 2026-12\)\./);
    expect(advances()).toBe(before);
    expect((await runPremia(['--json', 'clock'], { cwd: tmp.dir, env })).json().date).toBe('2026-11-12');
  });

  it('settlement and cancellation questions come from the service’s previews', async () => {
    const asked: string[] = [];
    const cancel = await runPremia(['policies', 'update', 'POL-2026315', '--status', 'cancelled'], { cwd: tmp.dir, env, ...terminal([false], asked) });
    const here = await local(['policies', 'update', 'POL-2026315', '--status', 'cancelled'], terminal([false], asked));
    expect([cancel.code, here.code]).toEqual([130, 130]);
    expect(cancel.stderr.split('\n').slice(1)).toEqual(here.stderr.split('\n').slice(1));
    expect(asked).toEqual(['Cancel policy POL-2026315?', 'Cancel policy POL-2026315?']);
  });

  it('settlements create under --idempotency-key: a rerun asks nothing and answers with what the first run made', async () => {
    const keyed = ['--idempotency-key', 'remote-settle-2026-11', 'settlements', 'create', '--period', '2026-11'];
    expect((await runPremia(['--yes', 'clock', 'advance', '--to', '2026-12-02'], { cwd: tmp.dir, env })).code).toBe(0);
    const first = await runPremia(['--json', ...keyed], { cwd: tmp.dir, env, ...terminal([true]) });
    expect(first.code).toBe(0);
    const rerun = await runPremia(['--json', ...keyed], { cwd: tmp.dir, env, ...terminal([]) });
    expect([rerun.code, rerun.stdout]).toEqual([0, first.stdout]);
    expect((await runPremia(['--json', 'settlements', 'list'], { cwd: tmp.dir, env })).json().data).toHaveLength(1);
  });
});

describe('a server that implements only the spec', () => {
  let stub: SpecStub;
  beforeAll(async () => {
    stub = await startSpecStub();
  });
  afterAll(async () => stub.close());

  it('settlements create asks with what can be known: the period, without figures', async () => {
    const asked: string[] = [];
    const r = await runPremia(['settlements', 'create', '--period', '2026-11'], {
      cwd: tmp.dir,
      env: { ...remoteEnv(stub.url, stub.key), NO_COLOR: '1' },
      ...terminal([false], asked),
    });
    expect(r.code).toBe(130);
    expect(asked).toEqual(['Create the settlement statement for 2026-11?']);
    expect(r.stderr.split('\n').slice(1)).toEqual([
      "A statement stays on record: it can be marked paid or disputed, never deleted. (This server does not show a statement's figures before it is made.)",
      'Nothing changed.',
      '',
    ]);
    expect(stub.requests.filter((q) => q.method === 'POST')).toEqual([]);
  });
});

describe('policies added after their month was queued', () => {
  it('are named when added (also under --quiet), in the dry run and in the question; a rerun of the month queues them', async () => {
    const db = copyOfBase(); // 2026-11 queued; the clock at 2026-11-12
    const csv = join(tmp.dir, 'late.csv');
    writeFileSync(csv, 'customer_id,external_customer_ref,policy_number,product_code,collection_amount\nC9,E9,LATE1,FUNERAL,100.00\nC10,E10,LATE2,FUNERAL,50.00\n');
    const WARNING =
      "warning: 2026-11 was queued before these policies were added, so they are not in it. To collect them this month, run 'premia collections execute --period 2026-11' " +
      'before 2026-11-30 closes it (it queues only the policies not yet queued).\n';
    const imported = await cli(db, ['-q', 'policies', 'import', csv]);
    expect([imported.code, imported.stdout, imported.stderr]).toEqual([0, 'Imported 2 policies; 0 rows failed.\n', WARNING]);
    const created = await cli(db, ['-q', 'policies', 'create', '--policy-number', 'LATE3', '--customer-id', 'C11', '--external-ref', 'E11', '--product-code', 'FUNERAL', '--amount', '75.00']);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe(WARNING.replace('these policies were', 'this policy was').replace('they are', 'it is').replace('collect them', 'collect it'));

    const dry = await cli(db, ['--json', 'clock', 'advance', '--to-month-end', '--dry-run']);
    expect(dry.json().periods_closed[0]).toMatchObject({ period_month: '2026-11', collections: 520, policies_not_queued: 3 });
    const human = await cli(db, ['clock', 'advance', '--to-month-end', '--dry-run']);
    expect(human.stdout).toContain(
      "\n2026-11: 3 active policies have no collection queued (added after its run, or left out of it): 'premia collections execute --period 2026-11' queues them\n",
    );
    const asked: string[] = [];
    const declined = await cli(db, ['clock', 'advance', '--to-month-end'], terminal([false], asked));
    expect(declined.code).toBe(130);
    expect(declined.stderr).toContain(
      "\n  2026-11: 3 active policies have no collection queued (added after its run, or left out of it); once closed, their premiums for it can no longer be collected ('premia collections execute --period 2026-11' queues them).\n",
    );

    const rerun = await cli(db, ['--json', 'collections', 'execute', '--period', '2026-11']);
    expect(rerun.json().policies_queued).toBe(3);
    expect((await cli(db, ['--json', 'clock', 'advance', '--to-month-end', '--dry-run'])).json().periods_closed[0]).toMatchObject({ collections: 523, policies_not_queued: 0 });
    // Added before their month is queued: nothing to say.
    const fresh = join(tmp.dir, 'late-fresh.db');
    expect((await cli(fresh, ['-q', 'clock', 'set', '2026-10-31'])).code).toBe(0);
    const early = await cli(fresh, ['-q', 'policies', 'import', csv]);
    expect([early.code, early.stderr]).toEqual([0, '']);
  });
});

describe("local --idempotency-key on an advance, a key of the store's", () => {
  it("replays for another client of the store with that client's own figures", async () => {
    const db = copyOfBase(); // the store's client: 520 policies, 2026-11 queued; the clock at 2026-11-12
    const firstHundred = readFileSync(join(FIXTURES, 'policies.csv'), 'utf8').split('\n').slice(0, 101).join('\n') + '\n';
    const csv = join(tmp.dir, 'acme-100.csv');
    writeFileSync(csv, firstHundred);
    for (const args of [
      ['keys', 'create', '--client', 'Acme Life'],
      ['-q', '--as-client', 'Acme Life', 'policies', 'import', csv],
      ['--as-client', 'Acme Life', 'collections', 'execute', '--period', '2026-11'],
    ]) {
      expect((await cli(db, args)).code, args.join(' ')).toBe(0);
    }
    const advance = (asAcme: boolean) =>
      cli(db, ['--json', ...(asAcme ? ['--as-client', 'Acme Life'] : []), '--idempotency-key', 'mid-month', 'clock', 'advance', '--to', '2026-11-20']);
    const acme = await advance(true);
    expect(acme.code).toBe(0);
    const mine = await advance(false);
    expect(mine.code).toBe(0);
    const attempts = (await cli(db, ['--json', 'collections', 'attempts', '--period', '2026-11'])).json().attempts as Array<{ date: string; amount: number; outcome: string }>;
    const expected = acme.json().days.map((d: { date: string; closed_period: string | null }) => {
      const day = attempts.filter((a) => a.date === d.date);
      const ok = day.filter((a) => a.outcome === 'SUCCESS');
      const collected = Math.round(ok.reduce((sum, a) => sum + a.amount * 100, 0)) / 100;
      return { date: d.date, attempts: day.length, succeeded: ok.length, failed: day.length - ok.length, collected, closed_period: d.closed_period, lapsed_policies: 0 };
    });
    expect(mine.json()).toEqual({ from: '2026-11-12', to: '2026-11-20', days: expected });
    expect(mine.json().days).not.toEqual(acme.json().days);
    expect((await advance(true)).stdout).toBe(acme.stdout);
    expect(await clockOf(db)).toBe('2026-11-20');
  });
});

describe('the question drawn plain', () => {
  it('under --no-color (as under NO_COLOR) the prompter is told to draw without colour', async () => {
    const told: Array<boolean | undefined> = [];
    const prompter: Prompter = {
      password: async () => '',
      input: async () => '',
      confirm: async (_message, options) => {
        told.push(options?.colour);
        return false;
      },
    };
    for (const args of [['clock', 'advance', '--to-month-end'], ['--no-color', 'clock', 'advance', '--to-month-end']]) {
      const r = await cli(copyOfBase(), args, { tty: true, prompter, env: { NO_COLOR: '' } });
      expect(r.code).toBe(130);
    }
    expect((await cli(copyOfBase(), ['clock', 'advance', '--to-month-end'], { tty: true, prompter })).code).toBe(130); // NO_COLOR=1
    expect(told).toEqual([true, false, false]);
  });
});

describe('keys create for a name one typo from a client', () => {
  it('asks on a terminal: no makes nothing (exit 130), yes makes the new client', async () => {
    const db = join(tmp.dir, 'keys-typo.db');
    expect((await cli(db, ['keys', 'create', '--client', 'Acme Life'])).code).toBe(0);
    const asked: string[] = [];
    const no = await cli(db, ['keys', 'create', '--client', 'Acme Lfe'], terminal([false], asked));
    expect(no.code).toBe(130);
    expect(no.stderr).toContain("There is no client 'Acme Lfe', but there is a client 'Acme Life': a key for a new client sees none of its data.\n");
    expect(asked).toEqual(["Make a new client 'Acme Lfe'?"]);
    expect((await cli(db, ['--json', 'keys', 'list'])).json().map((k: { client: string }) => k.client)).toEqual(['Acme Life']);
    const yes = await cli(db, ['--json', 'keys', 'create', '--client', 'Acme Lfe'], terminal([true]));
    expect(yes.code).toBe(0);
    expect(yes.json()).toMatchObject({ client: 'Acme Lfe', new_client: true, role: 'client' });
  });

  it('two neighbouring letters swapped in a short name are one typo too (Beat for Beta); off a terminal, refused', async () => {
    const db = join(tmp.dir, 'keys-swap.db');
    expect((await cli(db, ['keys', 'create', '--client', 'Beta'])).code).toBe(0);
    const asked: string[] = [];
    const no = await cli(db, ['keys', 'create', '--client', 'Beat'], terminal([false], asked));
    expect([no.code, asked]).toEqual([130, ["Make a new client 'Beat'?"]]);
    expect(no.stderr).toContain("There is no client 'Beat', but there is a client 'Beta': a key for a new client sees none of its data.\n");
    const unattended = await cli(db, ['keys', 'create', '--client', 'Beat']);
    expect(unattended.code).toBe(6);
    expect((await cli(db, ['--json', 'keys', 'list'])).json().map((k: { client: string }) => k.client)).toEqual(['Beta']);
  });

  it('under --idempotency-key: the refusal before the question keeps nothing, yes makes the key once, a rerun asks nothing', async () => {
    const db = join(tmp.dir, 'keys-typo-idem.db');
    expect((await cli(db, ['keys', 'create', '--client', 'Acme Life'])).code).toBe(0);
    const args = ['--idempotency-key', 'typo-1', 'keys', 'create', '--client', 'Acme Lfe'];
    const asked: string[] = [];
    const yes = await cli(db, args, terminal([true], asked));
    expect(yes.code).toBe(0);
    expect(asked).toEqual(["Make a new client 'Acme Lfe'?"]);
    expect(yes.stdout).toMatch(/^pmk_[0-9A-Za-z]{40}\n$/);
    const rerun = await cli(db, args, terminal([]));
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toBe('');
    expect(rerun.stderr).toContain("for client Acme Lfe was created on 2026-11-21T09:30:00.000Z by an earlier run with idempotency key 'typo-1'; no new key was created.");
    expect((await cli(db, ['--json', 'keys', 'list'])).json().map((k: { client: string }) => k.client)).toEqual(['Acme Life', 'Acme Lfe']);
  });
});
