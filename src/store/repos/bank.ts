/**
 * What the simulated bank keeps in the store (bank/ports.ts `BankStore`): imported transactions,
 * balance snapshots, the seed and epoch of generated accounts, and premia's past debits (the
 * attempts, as the bank executed them).
 *
 * The replay inputs are read with prepared statements iterated row by row: opening a working
 * set reads them for up to a million customers (kysely would materialise every row first).
 * Snapshots are written 64 rows a statement (a period close keeps a balance per customer).
 */
import type { BalanceSnapshot, BankStore, ImportedRow, PastAttempt } from '../../bank/ports.js';
import { CALENDAR_KEY, IMPORTED_HOLIDAYS_KEY, storedCalendar } from '../../domain/calendar.js';
import { CustomerMap, type CustomerFilter } from '../../domain/customer.js';
import { findCaseTwins } from '../../domain/customer-case.js';
import { dayNumber, type IsoDate } from '../../domain/period.js';
import type { Selectable } from 'kysely';
import { writeSnapshots, type SnapshotRows } from '../engine-days.js';
import type { AttemptsTable, BankSnapshotsTable, BankTransactionsTable, CollectionsTable } from '../schema.js';
import { ENGINE_INPUTS_BUMP } from '../migrations.js';
import { beginImmediate, type StatementCache } from '../sqlite-dialect.js';
import type { LockWaitStop } from '../../lib/lock-wait.js';
import type { Store } from '../store.js';
import { pgBankStore, pgPolicyCustomerIds, readPgCustomerBankInputs } from './bank-pg.js';
import { snapshotsDiverted } from './engine-pipeline.js';
import type { BankImportUnit, CustomerBankInputs } from './bank-io.js';

export type { BankImportUnit, CustomerBankInputs } from './bank-io.js';

type TransactionRow = Pick<Selectable<BankTransactionsTable>, 'client_id' | 'customer_id' | 'date' | 'amount' | 'description'>;
type SnapshotRow = Selectable<BankSnapshotsTable>;
type PastAttemptRow = Pick<Selectable<CollectionsTable>, 'client_id' | 'customer_id' | 'policy_number'> &
  Pick<Selectable<AttemptsTable>, 'date' | 'amount' | 'failure_reason'>;

/** One customer's rows alone, read through the indexes (a look-up, never a scan of every customer's). */
type OneCustomer = { clientId: number; customerId: string };

/** Imported rows by customer, in file order (only the customers of `keys`, or the one customer `only`, when given). */
export function readImportedRows(statements: StatementCache, keys: CustomerFilter | null, only?: OneCustomer): CustomerMap<ImportedRow[]> {
  const out = new CustomerMap<ImportedRow[]>();
  const rows = only
    ? statements
        .get('select client_id, customer_id, date, amount, description from bank_transactions where client_id = ? and customer_id = ? order by id')
        .iterate(only.clientId, only.customerId)
    : statements.get('select client_id, customer_id, date, amount, description from bank_transactions order by client_id, customer_id, id').iterate();
  for (const r of rows as Iterable<TransactionRow>) {
    if (keys && !keys.has(r.client_id, r.customer_id)) continue;
    let list = out.get(r.client_id, r.customer_id);
    if (!list) out.set(r.client_id, r.customer_id, (list = []));
    list.push({ day: dayNumber(r.date), amount: r.amount, description: r.description });
  }
  return out;
}

/** The latest snapshot on or before `notAfter` by customer. */
export function readSnapshots(statements: StatementCache, keys: CustomerFilter | null, notAfter: IsoDate): CustomerMap<BalanceSnapshot> {
  const out = new CustomerMap<BalanceSnapshot>();
  const stmt = statements.get('select client_id, customer_id, as_of, balance from bank_snapshots where as_of <= ? order by as_of');
  for (const r of stmt.iterate(notAfter) as Iterable<SnapshotRow>) {
    if (keys && !keys.has(r.client_id, r.customer_id)) continue;
    out.set(r.client_id, r.customer_id, { day: dayNumber(r.as_of), balance: r.balance });
  }
  return out;
}

/**
 * One customer's debits dated after `after`. The attempts are keyed by (date, collection_id) and
 * have no index by collection: the dates they fall on are walked through that key (one seek each,
 * a few hundred in a store's year), and each date's attempts of the customer's collections are
 * looked up in it, so a customer's history costs its own rows, not a read of every attempt.
 */
export const ONE_CUSTOMER_ATTEMPTS = `with recursive d(date) as (
       select (select min(date) from attempts where date > ?)
       union all
       select (select min(date) from attempts where date > d.date) from d where d.date is not null)
     select c.client_id, c.customer_id, c.policy_number, a.date, a.amount, a.failure_reason
     from d join attempts a on a.date = d.date join collections c on c.id = a.collection_id
     where a.collection_id in (select id from collections where client_id = ? and customer_id = ?)
     order by a.date, c.client_id, c.policy_number`;

/** premia's debits dated after `after` by customer, in (date, policy_number) order. */
export function readAttempts(statements: StatementCache, keys: CustomerFilter | null, after: IsoDate, only?: OneCustomer): CustomerMap<PastAttempt[]> {
  const out = new CustomerMap<PastAttempt[]>();
  const rows = only
    ? statements.get(ONE_CUSTOMER_ATTEMPTS).iterate(after, only.clientId, only.customerId)
    : statements
        .get(
          `select c.client_id, c.customer_id, c.policy_number, a.date, a.amount, a.failure_reason
           from attempts a join collections c on c.id = a.collection_id
           where a.date > ? order by a.date, c.client_id, c.policy_number`,
        )
        .iterate(after);
  for (const r of rows as Iterable<PastAttemptRow>) {
    if (keys && !keys.has(r.client_id, r.customer_id)) continue;
    let list = out.get(r.client_id, r.customer_id);
    if (!list) out.set(r.client_id, r.customer_id, (list = []));
    list.push({ day: dayNumber(r.date), amount: r.amount, failure: r.failure_reason, policyNumber: r.policy_number });
  }
  return out;
}

/**
 * The simulated bank's store on `store`. Its statements run on the store's one connection: the
 * engine calls it inside a day's transaction, whose reads and writes it then shares.
 */
export function bankStore(store: Store): BankStore {
  if (store.kind === 'postgres') return pgBankStore(store);
  const statements = store.statements;
  return {
    async settings() {
      const meta = new Map(
        (
          statements.get("select key, value from meta where key in ('seed', 'bank_epoch', 'calendar', 'calendar.holidays')").all() as Array<{
            key: string;
            value: string;
          }>
        ).map((r) => [r.key, r.value]),
      );
      return {
        seed: Number(meta.get('seed')),
        epoch: meta.get('bank_epoch') ?? null,
        calendar: storedCalendar(meta.get(CALENDAR_KEY), meta.get(IMPORTED_HOLIDAYS_KEY)),
      };
    },
    async importedRows(keys) {
      return readImportedRows(statements, keys);
    },
    async snapshots(keys, notAfter) {
      return readSnapshots(statements, keys, notAfter);
    },
    async pastAttempts(keys, after) {
      return readAttempts(statements, keys, after);
    },
    async keepBalances(asOf, accounts, columns) {
      const n = accounts.length;
      const rows: SnapshotRows = { asOf, clientId: new Int32Array(n), customerId: new Array<string>(n), balance: new Float64Array(n) };
      accounts.forEach((i, r) => {
        rows.clientId[r] = columns.clientId[i]!;
        rows.customerId[r] = columns.customerIdOf(i);
        rows.balance[r] = columns.balance[i]!;
      });
      // While the engine hands its days over to a writer, the day's snapshots go with it.
      const divert = snapshotsDiverted(store);
      if (divert === undefined) writeSnapshots(statements, rows);
      else divert(rows);
    },
  };
}

export async function readCustomerBankInputs(store: Store, clientId: number, customerId: string): Promise<CustomerBankInputs> {
  if (store.kind === 'postgres') return readPgCustomerBankInputs(store, clientId, customerId);
  return store.withConnection(async (_raw, statements) => {
    const known =
      statements.get('select 1 from bank_transactions where client_id = ? and customer_id = ? limit 1').get(clientId, customerId) !== undefined ||
      statements.get('select 1 from policies where client_id = ? and customer_id = ? limit 1').get(clientId, customerId) !== undefined;
    const metaValue = (key: string) => (statements.get('select value from meta where key = ?').get(key) as { value: string } | undefined)?.value;
    const calendar = storedCalendar(metaValue(CALENDAR_KEY), metaValue(IMPORTED_HOLIDAYS_KEY));
    if (!known) return { known, epoch: null, calendar, imported: new CustomerMap(), attempts: new CustomerMap() };
    // The customer's rows alone, read through the indexes: no filter by keys is left to apply.
    const only = { clientId, customerId };
    return {
      known,
      epoch: metaValue('bank_epoch') ?? null,
      calendar,
      imported: readImportedRows(statements, null, only),
      attempts: readAttempts(statements, null, '0000-00-00', only),
    };
  });
}

/**
 * The customers of the client's bank rows that no policy names but whose ids differ only in
 * letter case from a policy's customer id, each with that policy customer id (after a policy
 * import: C100001's policies where the rows say c100001). Nothing is read of the policies when
 * the client has no bank rows; else the distinct customers of its rows (their index) and the
 * customer id of each policy once: linear in both.
 */
export async function bankCaseMismatches(store: Store, clientId: number): Promise<Map<string, string>> {
  if (store.kind === 'postgres') {
    return store.readUnit(async (unit) => {
      const rows = (await unit.client.query<{ customer_id: string }>('select distinct customer_id from bank_transactions where client_id = $1', [clientId])).rows;
      return findCaseTwins(
        rows.map((r) => r.customer_id),
        () => pgPolicyCustomerIds(unit, clientId),
      );
    });
  }
  return store.withConnection(async (_raw, statements) => {
    const rows = statements.get('select distinct customer_id from bank_transactions where client_id = ?').all(clientId) as Array<{ customer_id: string }>;
    return findCaseTwins(
      rows.map((r) => r.customer_id),
      () => policyCustomerIds(statements, clientId),
    );
  });
}

/** The bank import's tables of the rows stored before (see withBankImport), made once per connection and emptied. */
const STORED_BEFORE_TABLES = `
  create temp table if not exists bank_import_days (customer_id text not null, date text not null, primary key (customer_id, date)) without rowid;
  create temp table if not exists bank_import_stored (
    customer_id text not null, date text not null, amount integer not null, description text not null, n integer not null,
    primary key (customer_id, date, amount, description)
  ) without rowid;
  delete from temp.bank_import_days; delete from temp.bank_import_stored;`;
const CLEAR_STORED_BEFORE = 'delete from temp.bank_import_days; delete from temp.bank_import_stored';

/**
 * Run `fn` with an import unit for the client's bank transactions, in one BEGIN IMMEDIATE
 * transaction (committed when `fn` returns, rolled back when it throws). Rows are inserted one
 * prepared statement at a time as the file streams in.
 */
export async function withBankImport<T>(store: Store, clientId: number, fn: (unit: BankImportUnit) => Promise<T>, stop?: LockWaitStop): Promise<T> {
  if (store.kind === 'postgres') return (await import('./bank-pg.js')).withPgBankImport(store, clientId, fn);
  return store.withConnection(async (raw, statements) => {
    await beginImmediate(raw, stop);
    try {
      const meta = new Map((statements.get('select key, value from meta').all() as Array<{ key: string; value: string }>).map((r) => [r.key, r.value]));
      const locked = meta.get('clock_locked') === '1';
      const customers = (sql: string) => new Set((statements.get(sql).all(clientId) as Array<{ customer_id: string }>).map((r) => r.customer_id));
      const insert = statements.get('insert into bank_transactions (client_id, customer_id, date, amount, description) values (?, ?, ?, ?, ?)');
      // The rows stored before, counted per account, day, amount and description, for the days
      // the file names, read once per day into a table of the connection's own (files, not memory,
      // as SQLite's temporary store is here): each takes one of its count. Looking each row up in
      // bank_transactions would walk all of that account's rows of the day per row (its index ends
      // at the date): quadratic for a statement of many rows a day onto another; and holding the
      // rows in memory would take hundreds of MB for a store of a million rows imported again.
      raw.exec(STORED_BEFORE_TABLES);
      const markDay = statements.get('insert or ignore into temp.bank_import_days (customer_id, date) values (?, ?)');
      const loadDay = statements.get(
        `insert into temp.bank_import_stored (customer_id, date, amount, description, n)
         select customer_id, date, amount, description, count(*) from main.bank_transactions
         where client_id = ? and customer_id = ? and date = ? and id < ? group by customer_id, date, amount, description`,
      );
      const takeStored = statements.get('update temp.bank_import_stored set n = n - 1 where customer_id = ? and date = ? and amount = ? and description = ? and n > 0');
      // Rows of this import get ids from here on: only rows below it were stored before.
      const firstNewId = (statements.get('select coalesce(max(id), 0) + 1 as n from bank_transactions').get() as { n: number }).n;
      const turnover = statements.get('select coalesce(sum(abs(amount)), 0) as n from bank_transactions where client_id = ? and customer_id = ? and id < ?');
      const unit: BankImportUnit = {
        today: meta.get('clock_date')!,
        locked,
        imported: customers('select distinct customer_id from bank_transactions where client_id = ?'),
        collecting: locked ? customers('select distinct customer_id from collections where client_id = ?') : new Set<string>(),
        turnoverBefore: (customerId) => (turnover.get(clientId, customerId, firstNewId) as { n: number }).n,
        storedBefore: (customerId, date, amount, description) => {
          if (markDay.run(customerId, date).changes === 1) loadDay.run(clientId, customerId, date, firstNewId);
          return takeStored.run(customerId, date, amount, description).changes === 1;
        },
        insert: (customerId, date, amount, description) => {
          insert.run(clientId, customerId, date, amount, description);
        },
        policyCustomerIds: () => policyCustomerIds(statements, clientId),
      };
      const out = await fn(unit);
      // Imported rows change their accounts' history: the engine's image goes, and the engine's
      // inputs version moves (what a working set kept in memory was lived from has changed).
      raw.exec('delete from engine_image; delete from engine_image_head');
      raw.exec(ENGINE_INPUTS_BUMP.sqlite);
      raw.exec(CLEAR_STORED_BEFORE);
      raw.exec('commit');
      return out;
    } catch (e) {
      if (raw.inTransaction) raw.exec('rollback');
      throw e;
    }
  });
}

/** Batches a SQLite iteration hands over at a time. */
const ID_BATCH = 4096;

/**
 * The customer ids of the client's policies, one per policy, row by row (no DISTINCT: policies
 * have no index on customer_id, and sorting a million ids would cost more than repeats do).
 */
async function* policyCustomerIds(statements: StatementCache, clientId: number): AsyncIterable<readonly string[]> {
  let batch: string[] = [];
  // Plucked: the ids themselves, no row object each (this statement is read no other way).
  for (const id of statements.get('select customer_id from policies where client_id = ?').pluck(true).iterate(clientId) as Iterable<string>) {
    batch.push(id);
    if (batch.length === ID_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
