/**
 * The simulated bank's store (bank/ports.ts `BankStore`) and the bank's import and show on a
 * PostgreSQL store: the same reads as bank.ts, through cursors (a working set reads them for up
 * to a million customers), inside the engine's day when one is running (pg-day.ts), else in one
 * read-only snapshot. Snapshots are written with one statement per 5,000 accounts (unnest).
 */
import { CALENDAR_KEY, IMPORTED_HOLIDAYS_KEY, storedCalendar } from '../../domain/calendar.js';
import type { BalanceSnapshot, BankStore, ImportedRow, PastAttempt } from '../../bank/ports.js';
import { CustomerMap, CustomerSet, type CustomerFilter } from '../../domain/customer.js';
import { dayNumber, type IsoDate } from '../../domain/period.js';
import { ENGINE_INPUTS_BUMP } from '../migrations.js';
import { refuseInPartLivedDay } from '../part-lived-day.js';
import { CopyIn } from '../pg-copy.js';
import type { PgStore, PgUnit } from '../store.js';
import type { BankImportUnit, CustomerBankInputs } from './bank-io.js';
import { dayUnitOf } from './pg-day.js';

const BATCH = 4096;
const SNAPSHOT_ROWS = 5000;

/** Run `fn` on the running day's connection, else in a read-only snapshot of its own. */
function onUnit<T>(store: PgStore, fn: (unit: PgUnit) => Promise<T>): Promise<T> {
  const day = dayUnitOf(store);
  return day ? fn(day) : store.readUnit(fn);
}

async function importedRows(unit: PgUnit, keys: CustomerFilter | null, only?: { clientId: number; customerId: string }): Promise<CustomerMap<ImportedRow[]>> {
  const out = new CustomerMap<ImportedRow[]>();
  const where = only ? 'where client_id = ? and customer_id = ?' : '';
  for await (const rows of unit.rows<[number, string, string, number, string]>(
    `select client_id, customer_id, date, amount, description from bank_transactions ${where} order by client_id, customer_id, id`,
    only ? [only.clientId, only.customerId] : [],
    { raw: true, batch: BATCH },
  )) {
    for (const [clientId, customerId, date, amount, description] of rows) {
      if (keys && !keys.has(clientId, customerId)) continue;
      let list = out.get(clientId, customerId);
      if (!list) out.set(clientId, customerId, (list = []));
      list.push({ day: dayNumber(date), amount, description });
    }
  }
  return out;
}

async function snapshots(unit: PgUnit, keys: CustomerFilter | null, notAfter: IsoDate): Promise<CustomerMap<BalanceSnapshot>> {
  const out = new CustomerMap<BalanceSnapshot>();
  for await (const rows of unit.rows<[number, string, string, number]>(
    'select client_id, customer_id, as_of, balance from bank_snapshots where as_of <= ? order by as_of',
    [notAfter],
    { raw: true, batch: BATCH },
  )) {
    for (const [clientId, customerId, asOf, balance] of rows) {
      if (keys && !keys.has(clientId, customerId)) continue;
      out.set(clientId, customerId, { day: dayNumber(asOf), balance });
    }
  }
  return out;
}

async function attempts(
  unit: PgUnit,
  keys: CustomerFilter | null,
  after: IsoDate,
  only?: { clientId: number; customerId: string },
): Promise<CustomerMap<PastAttempt[]>> {
  const out = new CustomerMap<PastAttempt[]>();
  const where = only ? 'and c.client_id = ? and c.customer_id = ?' : '';
  for await (const rows of unit.rows<[number, string, string, string, number, string | null]>(
    `select c.client_id, c.customer_id, c.policy_number, a.date, a.amount, a.failure_reason
     from attempts a join collections c on c.id = a.collection_id
     where a.date > ? ${where} order by a.date, c.client_id, c.policy_number`,
    only ? [after, only.clientId, only.customerId] : [after],
    { raw: true, batch: BATCH },
  )) {
    for (const [clientId, customerId, policyNumber, date, amount, failure] of rows) {
      if (keys && !keys.has(clientId, customerId)) continue;
      let list = out.get(clientId, customerId);
      if (!list) out.set(clientId, customerId, (list = []));
      list.push({ day: dayNumber(date), amount, failure, policyNumber });
    }
  }
  return out;
}

export function pgBankStore(store: PgStore): BankStore {
  return {
    settings: () =>
      onUnit(store, async (unit) => {
        const rows = (
          await unit.client.query<{ key: string; value: string }>("select key, value from meta where key in ('seed', 'bank_epoch', 'calendar', 'calendar.holidays')")
        ).rows;
        const meta = new Map(rows.map((r) => [r.key, r.value]));
        return {
          seed: Number(meta.get('seed')),
          epoch: meta.get('bank_epoch') ?? null,
          calendar: storedCalendar(meta.get(CALENDAR_KEY), meta.get(IMPORTED_HOLIDAYS_KEY)),
        };
      }),
    importedRows: (keys) => onUnit(store, (unit) => importedRows(unit, keys)),
    snapshots: (keys, notAfter) => onUnit(store, (unit) => snapshots(unit, keys, notAfter)),
    pastAttempts: (keys, after) => onUnit(store, (unit) => attempts(unit, keys, after)),
    async keepBalances(asOf, accounts, columns) {
      const write = async (unit: PgUnit) => {
        for (let at = 0; at < accounts.length; at += SNAPSHOT_ROWS) {
          const part = accounts.slice(at, at + SNAPSHOT_ROWS);
          await unit.client.query(
            `insert into bank_snapshots (client_id, customer_id, as_of, balance)
             select c, k, $3, b from unnest($1::bigint[], $2::text[], $4::bigint[]) as v(c, k, b)
             on conflict (client_id, customer_id, as_of) do update set balance = excluded.balance`,
            [part.map((i) => columns.clientId[i]!), part.map((i) => columns.customerIdOf(i)), asOf, part.map((i) => columns.balance[i]!)],
          );
        }
      };
      const day = dayUnitOf(store);
      await (day ? write(day) : store.writeUnit(write));
    },
  };
}

export async function readPgCustomerBankInputs(store: PgStore, clientId: number, customerId: string): Promise<CustomerBankInputs> {
  return store.readUnit(async (unit) => {
    const known =
      (await unit.client.query('select 1 from bank_transactions where client_id = $1 and customer_id = $2 limit 1', [clientId, customerId])).rowCount! > 0 ||
      (await unit.client.query('select 1 from policies where client_id = $1 and customer_id = $2 limit 1', [clientId, customerId])).rowCount! > 0;
    const meta = new Map(
      (await unit.client.query<{ key: string; value: string }>("select key, value from meta where key in ('bank_epoch', 'calendar', 'calendar.holidays')")).rows.map(
        (r) => [r.key, r.value],
      ),
    );
    const calendar = storedCalendar(meta.get(CALENDAR_KEY), meta.get(IMPORTED_HOLIDAYS_KEY));
    if (!known) return { known, epoch: null, calendar, imported: new CustomerMap(), attempts: new CustomerMap() };
    const keys = new CustomerSet().add(clientId, customerId);
    const epoch = meta.get('bank_epoch') ?? null;
    const only = { clientId, customerId };
    return { known, epoch, calendar, imported: await importedRows(unit, keys, only), attempts: await attempts(unit, keys, '0000-00-00', only) };
  });
}

/**
 * A CSV field for COPY: quoted when it holds a comma, a quote or a line break, and when it is
 * empty: COPY's CSV reads an unquoted empty field as NULL, and an empty description (which the
 * import accepts, and SQLite stores as '') then failed the whole import on its NOT NULL.
 */
function csvField(value: string): string {
  return value === '' || /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * The bank import in one write transaction: the rows stream into bank_transactions through COPY
 * (in file order, so ids keep it), and a row stored by an earlier import is recognised from the
 * client's earlier rows, read once before the file (only when the client imported before).
 */
export async function withPgBankImport<T>(store: PgStore, clientId: number, fn: (unit: BankImportUnit) => Promise<T>): Promise<T> {
  return store.writeUnit(async (unit) => {
    const { client } = unit;
    await refuseInPartLivedDay(store, unit.db, "the bank's history");
    const meta = new Map((await client.query<{ key: string; value: string }>('select key, value from meta')).rows.map((r) => [r.key, r.value]));
    const locked = meta.get('clock_locked') === '1';
    const customers = async (query: string) => new Set((await client.query<{ customer_id: string }>(query, [clientId])).rows.map((r) => r.customer_id));
    const imported = await customers('select distinct customer_id from bank_transactions where client_id = $1');
    const collecting = locked ? await customers('select distinct customer_id from collections where client_id = $1') : new Set<string>();
    const before = new Map<string, number>();
    const turnover = new Map<string, number>();
    if (imported.size > 0) {
      for await (const rows of unit.rows<[string, string, number, string]>(
        'select customer_id, date, amount, description from bank_transactions where client_id = ?',
        [clientId],
        { raw: true, batch: BATCH },
      )) {
        for (const [customerId, date, amount, description] of rows) {
          count(before, `${customerId}\u0000${date}\u0000${amount}\u0000${description}`);
          turnover.set(customerId, (turnover.get(customerId) ?? 0) + Math.abs(Number(amount)));
        }
      }
    }
    const copy = new CopyIn(client, 'copy bank_transactions (client_id, customer_id, date, amount, description) from stdin with (format csv)');
    // Once: the policies are read on the connection after the file's rows (no query runs during a COPY).
    let ended: Promise<boolean> | null = null;
    const endCopy = () => (ended ??= copy.end());
    const out = await fn({
      today: meta.get('clock_date')!,
      locked,
      imported,
      collecting,
      turnoverBefore: (customerId) => turnover.get(customerId) ?? 0,
      storedBefore: (customerId, date, amount, description) => take(before, `${customerId}\u0000${date}\u0000${amount}\u0000${description}`),
      insert: (customerId, date, amount, description) => {
        copy.write(`${clientId},${csvField(customerId)},${date},${amount},${csvField(description)}\n`);
      },
      ready: () => copy.ready(),
      async *policyCustomerIds() {
        await endCopy();
        yield* pgPolicyCustomerIds(unit, clientId);
      },
    });
    await endCopy();
    // Imported rows change their accounts' history: the engine's image goes, and the working sets
    // a shard worker keeps between advances (engine/shards.ts) are no longer the store's.
    await client.query('delete from engine_image');
    await client.query('delete from engine_image_head');
    await client.query(ENGINE_INPUTS_BUMP.postgres);
    return out;
  });
}

/** One more of key (a row stored before, as customer, date, amount and description). */
function count(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** Takes one of key, if any is left: whether there was. */
function take(counts: Map<string, number>, key: string): boolean {
  const n = counts.get(key);
  if (n === undefined) return false;
  if (n === 1) counts.delete(key);
  else counts.set(key, n - 1);
  return true;
}

/** The customer ids of the client's policies, one per policy, in batches (as the SQLite store's). */
export async function* pgPolicyCustomerIds(unit: PgUnit, clientId: number): AsyncIterable<readonly string[]> {
  for await (const rows of unit.rows<[string]>('select customer_id from policies where client_id = ?', [clientId], { raw: true, batch: BATCH })) {
    yield rows.map((r) => r[0]);
  }
}
