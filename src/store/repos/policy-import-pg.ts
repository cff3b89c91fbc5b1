/**
 * The bulk policy import on PostgreSQL. The answer is SQLite's (policies.ts): the first row of a
 * number imports it unless the client had it before; every other row of that number is
 * DUPLICATE_IN_FILE (naming the first) or DUPLICATE_POLICY; new policies take ids in file order
 * from max(id) + 1 (the identity, set there when the unit starts: pg-store.ts).
 *
 * Two ways in, one transaction either way:
 *  - a client without policies (every first import): the valid rows stream straight into
 *    policies through `COPY … FROM STDIN` (pg-copy-streams), as `psql \copy` would write them.
 *    No number can be taken before the import, and a number this file repeats is caught here,
 *    before its row is sent (a map of the numbers sent and their lines), so the COPY meets no
 *    conflict and no row needs reading back. The server does the table's own work (the
 *    identity, the unique index, the foreign key to clients, the CHECKs) once per row.
 *  - a client with policies: the valid rows stream into a temporary staging table, then one
 *    statement merges them into policies and one cursor reads back the rows refused for a taken
 *    policy number (skipped when every row merged).
 *
 * The transaction holds the store's writer lock (pg-store.ts), so no other write runs between
 * the check for the client's policies, the merge and the reading of what it did: ids above the
 * largest before the merge are this import's.
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
    const today = clock.rows[0]!.value;
    if ((await client.query('select 1 from policies where client_id = $1 limit 1', [clientId])).rowCount === 0) {
      return work({ today, sink: (createdAt, onDuplicate) => pgDirectSink(unit, clientId, createdAt, onDuplicate) });
    }
    // Temporary: not written to the WAL, gone at commit; collate "C" as the policies' columns.
    await client.query(
      `create temporary table ${STAGE} (line integer not null, customer_id text collate "C" not null, external_customer_ref text collate "C" not null,
         policy_number text collate "C" not null, product_code text collate "C" not null, amount bigint not null) on commit drop`,
    );
    return work({
      today,
      sink: (createdAt, onDuplicate) => pgImportSink(store, unit, clientId, createdAt, onDuplicate),
    });
  });
}

type Unit = Parameters<Parameters<PgStore['writeUnit']>[0]>[0];

/**
 * The sink of an import into a client without policies: each valid row whose number this file
 * has not had yet goes straight into policies through COPY; a repeated number is
 * DUPLICATE_IN_FILE of the row that took it, answered at once and not sent.
 */
function pgDirectSink(unit: Unit, clientId: number, createdAt: number, onDuplicate: (row: DuplicatePolicyRow) => void): PolicyImportSink {
  if (!Number.isSafeInteger(createdAt)) throw new TypeError('createdAt must be an integer');
  const copy = new CopyIn(
    unit.client,
    'copy policies (client_id, status, created_at, updated_at, customer_id, external_customer_ref, policy_number, product_code, collection_amount) from stdin with (format csv)',
  );
  // The columns every row shares, ahead of its own.
  const prefix = Buffer.from(`${clientId},active,${createdAt},${createdAt},`, 'latin1');
  const taken = new PolicyNumbers();
  let sent = 0;

  return {
    insert(rows: PolicyImportRows) {
      copy.check();
      if (rows.count === 0) return;
      const { count, bytes, offsets, amounts, lines } = rows;
      let size = 0;
      for (let r = 0; r < count; r++) size += offsets[r * 5 + 4]! - offsets[r * 5]! + prefix.length + 13; // + ',' amount '\n'
      const out = Buffer.allocUnsafe(size);
      const pre = prefix.length;
      let at = 0;
      for (let r = 0; r < count; r++) {
        const o = r * 5;
        const first = taken.firstLine(bytes, offsets[o + 2]! + 1, offsets[o + 3]!, lines[r]!);
        if (first >= 0) {
          const policyNumber = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1', offsets[o + 2]! + 1, offsets[o + 3]);
          onDuplicate({ line: lines[r]!, policyNumber, firstLine: first });
          continue;
        }
        // Byte by byte: a row is short, and a native copy per field costs more than the loop.
        for (let i = 0; i < pre; i++) out[at++] = prefix[i]!;
        for (let i = offsets[o]!, end = offsets[o + 4]!; i < end; i++) out[at++] = bytes[i]!;
        out[at++] = 0x2c; // ,
        at = writeDigits(out, at, amounts[r]!);
        out[at++] = 0x0a; // \n
        sent++;
      }
      if (at > 0) copy.write(out.subarray(0, at));
    },
    ready() {
      return copy.ready();
    },
    async finish() {
      await copy.end();
      return sent;
    },
  };
}

/** A positive integer's decimal digits written at `at`; where they end. */
function writeDigits(out: Buffer, at: number, value: number): number {
  let digits = 1;
  for (let v = value; v >= 10; v = Math.floor(v / 10)) digits++;
  let v = value;
  for (let i = at + digits - 1; i >= at; i--) {
    out[i] = 0x30 + (v % 10);
    v = Math.floor(v / 10);
  }
  return at + digits;
}

/**
 * The policy numbers an import has sent, each with the file line of its row: an open-addressing
 * hash table over the numbers' bytes kept end to end. A million numbers take about 48 MiB, as a
 * Map of strings does, but in much less time: no string is made for a row.
 */
export class PolicyNumbers {
  private keys = new Uint8Array(1 << 16);
  private used = 0;
  /** Per entry: where its bytes start in keys (they end where the next entry's start) and its line. */
  private starts = new Int32Array(1 << 12);
  private lines = new Int32Array(1 << 12);
  private count = 0;
  /** Two numbers per slot, side by side (one cache line for both): entry index + 1 (0: empty) and the hash. */
  private slots = new Int32Array(2 << 13);

  /**
   * The line of the row that took bytes[from, to) before; -1 when none did, and then `line`
   * takes it.
   */
  firstLine(bytes: Uint8Array, from: number, to: number, line: number): number {
    let h = 0x811c9dc5;
    for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    h ^= h >>> 15; // the low bits pick the slot: mix the high ones in
    const { slots, starts, keys } = this;
    const mask = (slots.length >> 1) - 1;
    const len = to - from;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = slots[2 * s]! - 1;
      if (e < 0) break;
      if (slots[2 * s + 1] !== h) continue;
      const start = starts[e]!;
      const end = e + 1 < this.count ? starts[e + 1]! : this.used;
      if (end - start !== len) continue;
      let i = 0;
      while (i < len && keys[start + i] === bytes[from + i]) i++;
      if (i === len) return this.lines[e]!;
    }
    this.add(bytes, from, to, line, h);
    return -1;
  }

  private add(bytes: Uint8Array, from: number, to: number, line: number, h: number): void {
    const len = to - from;
    if (this.used + len > this.keys.length) this.keys = grow(this.keys, Math.max(this.keys.length * 2, this.used + len));
    const keys = this.keys;
    for (let i = 0, at = this.used; i < len; i++) keys[at + i] = bytes[from + i]!;
    if (this.count === this.starts.length) {
      this.starts = grow(this.starts, this.count * 2);
      this.lines = grow(this.lines, this.count * 2);
    }
    const e = this.count++;
    this.starts[e] = this.used;
    this.lines[e] = line;
    this.used += len;
    if (this.count * 2 > this.slots.length >> 1) {
      // Twice the slots: every entry placed again (its hash is in its old slot).
      const old = this.slots;
      this.slots = new Int32Array(old.length * 2);
      for (let s = 0; s < old.length; s += 2) if (old[s] !== 0) this.place(old[s]! - 1, old[s + 1]!);
    }
    this.place(e, h);
  }

  private place(e: number, h: number): void {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    let s = h & mask;
    while (slots[2 * s] !== 0) s = (s + 1) & mask;
    slots[2 * s] = e + 1;
    slots[2 * s + 1] = h;
  }
}

function grow<A extends Uint8Array | Int32Array>(a: A, size: number): A {
  const b = new (a.constructor as new (n: number) => A)(size);
  b.set(a);
  return b;
}

/** The sink of an import into a client with policies: a staging table, merged at `finish`. */
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

