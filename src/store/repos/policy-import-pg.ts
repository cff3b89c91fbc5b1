/**
 * The bulk policy import on PostgreSQL: the valid rows stream into a temporary staging table
 * through `COPY … FROM STDIN` (pg-copy-streams), then, in the same transaction, one statement
 * merges them into policies and one cursor reads back the rows refused for a taken policy
 * number. The answer is SQLite's (policies.ts): the first row of a number imports it unless the
 * client had it before; every other row of that number is DUPLICATE_IN_FILE (naming the first)
 * or DUPLICATE_POLICY; new policies take ids in file order from max(id) + 1.
 *
 * The transaction holds the store's writer lock (pg-store.ts), so no other write runs between
 * the merge and the reading of what it did: ids above the largest before the merge are this
 * import's.
 */
import { PremiaError } from '../../domain/errors.js';
import { CopyIn } from '../pg-copy.js';
import type { PgStore } from '../store.js';
import type { DuplicatePolicyRow, PolicyImportRows, PolicyImportSession, PolicyImportSink } from './policy-import-sink.js';

const STAGE = 'policy_import_stage';
/** Duplicates read back per cursor batch. */
const DUPLICATE_BATCH = 2048;

export async function inPgPolicyImport<T>(store: PgStore, clientId: number, work: (session: PolicyImportSession) => Promise<T>): Promise<T> {
  if (!Number.isSafeInteger(clientId)) throw new TypeError('clientId must be an integer');
  return store.writeUnit(async (unit) => {
    const { client } = unit;
    if ((await client.query('select 1 from clients where id = $1', [clientId])).rowCount === 0) {
      throw new PremiaError('INTERNAL', `client ${clientId} does not exist in this store`);
    }
    const clock = await client.query<{ value: string }>("select value from meta where key = 'clock_date'");
    if (clock.rows.length === 0) throw new PremiaError('INTERNAL', 'The store has no clock; it was not initialised.');
    // Temporary: not written to the WAL, gone at commit; collate "C" as the policies' columns.
    await client.query(
      `create temporary table ${STAGE} (line integer not null, customer_id text collate "C" not null, external_customer_ref text collate "C" not null,
         policy_number text collate "C" not null, product_code text collate "C" not null, amount bigint not null) on commit drop`,
    );
    return work({
      today: clock.rows[0]!.value,
      sink: (createdAt, onDuplicate) => pgImportSink(store, unit, clientId, createdAt, onDuplicate),
    });
  });
}

type Unit = Parameters<Parameters<PgStore['writeUnit']>[0]>[0];

function pgImportSink(
  _store: PgStore,
  unit: Unit,
  clientId: number,
  createdAt: number,
  onDuplicate: (row: DuplicatePolicyRow) => void,
): PolicyImportSink {
  if (!Number.isSafeInteger(createdAt)) throw new TypeError('createdAt must be an integer');
  const { client } = unit;
  const copy = new CopyIn(client, `copy ${STAGE} (line, customer_id, external_customer_ref, policy_number, product_code, amount) from stdin with (format csv)`);
  let staged = 0;

  return {
    insert(rows: PolicyImportRows) {
      copy.check();
      if (rows.count > 0) copy.write(csvOf(rows));
      staged += rows.count;
    },
    ready() {
      return copy.ready();
    },
    async finish() {
      if (!(await copy.end())) return 0;
      await client.query('set local work_mem = 65536'); // 64 MiB for the merge's sort
      const base = Number((await client.query<{ id: number }>('select coalesce(max(id), 0) as id from policies')).rows[0]!.id);
      const merged = await client.query(
        `insert into policies (client_id, policy_number, customer_id, external_customer_ref, product_code, collection_amount, status, created_at, updated_at)
         select $1, f.policy_number, f.customer_id, f.external_customer_ref, f.product_code, f.amount, 'active', $2, $2
         from (select distinct on (policy_number) * from ${STAGE} order by policy_number, line) f
         where not exists (select 1 from policies p where p.client_id = $1 and p.policy_number = f.policy_number)
         order by f.line`,
        [clientId, createdAt],
      );
      // Every row merged: no number was taken, so there is nothing to read back (at 100k rows
      // the query below costs a fifth of the import).
      const inserted = merged.rowCount ?? 0;
      if (inserted === staged) return inserted;
      // Every other row of a number: the number was there before (DUPLICATE_POLICY, the first
      // row too) or an earlier row of the file took it (DUPLICATE_IN_FILE).
      for await (const rows of unit.rows<[number, string, number | null]>(
        `select s.line, s.policy_number, case when p.id > ? then f.first_line end
         from ${STAGE} s
         join (select policy_number, min(line) as first_line from ${STAGE} group by policy_number) f on f.policy_number = s.policy_number
         join policies p on p.client_id = ? and p.policy_number = s.policy_number
         where s.line <> f.first_line or p.id <= ?
         order by s.line`,
        [base, clientId, base],
        { raw: true, batch: DUPLICATE_BATCH },
      )) {
        for (const [line, policyNumber, firstLine] of rows) onDuplicate({ line, policyNumber, firstLine });
      }
      return inserted;
    },
  };
}

/**
 * The rows as CSV for COPY: `line,customer_id,external_customer_ref,policy_number,product_code,cents`.
 * A valid row's four text fields are ASCII identifiers and product codes (no comma, quote or
 * line break: domain/identifiers.ts), already joined by commas in `bytes`, so they are copied
 * as they are.
 */
function csvOf(rows: PolicyImportRows): Buffer {
  const { count, bytes, offsets, amounts, lines } = rows;
  let size = 0;
  for (let r = 0; r < count; r++) size += offsets[r * 5 + 4]! - offsets[r * 5]! + 26; // + line, amount, separators
  const out = Buffer.allocUnsafe(size);
  const src = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  for (let r = 0; r < count; r++) {
    at += out.write(`${lines[r]!},`, at, 'latin1');
    at += src.copy(out, at, offsets[r * 5], offsets[r * 5 + 4]);
    at += out.write(`,${amounts[r]!}\n`, at, 'latin1');
  }
  return out.subarray(0, at);
}

