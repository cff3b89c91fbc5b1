import {
  CopyIn
} from "./chunk-KIJGBPVL.js";
import {
  PremiaError
} from "./chunk-U6UK7MPY.js";

// dist/store/repos/policy-import-pg.js
var STAGE = "policy_import_stage";
var DUPLICATE_BATCH = 2048;
async function inPgPolicyImport(store, clientId, work) {
  if (!Number.isSafeInteger(clientId))
    throw new TypeError("clientId must be an integer");
  return store.writeUnit(async (unit) => {
    const { client } = unit;
    if ((await client.query("select 1 from clients where id = $1", [clientId])).rowCount === 0) {
      throw new PremiaError("INTERNAL", `client ${clientId} does not exist in this store`);
    }
    const clock = await client.query("select value from meta where key = 'clock_date'");
    if (clock.rows.length === 0)
      throw new PremiaError("INTERNAL", "The store has no clock; it was not initialised.");
    const today = clock.rows[0].value;
    if ((await client.query("select 1 from policies where client_id = $1 limit 1", [clientId])).rowCount === 0) {
      return work({ today, sink: (createdAt, onDuplicate) => pgDirectSink(unit, clientId, createdAt, onDuplicate) });
    }
    await client.query(`create temporary table ${STAGE} (line integer not null, customer_id text collate "C" not null, external_customer_ref text collate "C" not null,
         policy_number text collate "C" not null, product_code text collate "C" not null, amount bigint not null) on commit drop`);
    return work({
      today,
      sink: (createdAt, onDuplicate) => pgImportSink(store, unit, clientId, createdAt, onDuplicate)
    });
  });
}
function pgDirectSink(unit, clientId, createdAt, onDuplicate) {
  if (!Number.isSafeInteger(createdAt))
    throw new TypeError("createdAt must be an integer");
  const copy = new CopyIn(unit.client, "copy policies (client_id, status, created_at, updated_at, customer_id, external_customer_ref, policy_number, product_code, collection_amount) from stdin with (format csv)");
  const prefix = Buffer.from(`${clientId},active,${createdAt},${createdAt},`, "latin1");
  const taken = new PolicyNumbers();
  let sent = 0;
  return {
    insert(rows) {
      copy.check();
      if (rows.count === 0)
        return;
      const { count, bytes, offsets, amounts, lines } = rows;
      let size = 0;
      for (let r = 0; r < count; r++)
        size += offsets[r * 5 + 4] - offsets[r * 5] + prefix.length + 13;
      const out = Buffer.allocUnsafe(size);
      const pre = prefix.length;
      let at = 0;
      for (let r = 0; r < count; r++) {
        const o = r * 5;
        const first = taken.firstLine(bytes, offsets[o + 2] + 1, offsets[o + 3], lines[r]);
        if (first >= 0) {
          const policyNumber = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1", offsets[o + 2] + 1, offsets[o + 3]);
          onDuplicate({ line: lines[r], policyNumber, firstLine: first });
          continue;
        }
        for (let i = 0; i < pre; i++)
          out[at++] = prefix[i];
        for (let i = offsets[o], end = offsets[o + 4]; i < end; i++)
          out[at++] = bytes[i];
        out[at++] = 44;
        at = writeDigits(out, at, amounts[r]);
        out[at++] = 10;
        sent++;
      }
      if (at > 0)
        copy.write(out.subarray(0, at));
    },
    ready() {
      return copy.ready();
    },
    async finish() {
      await copy.end();
      return sent;
    }
  };
}
function writeDigits(out, at, value) {
  let digits = 1;
  for (let v2 = value; v2 >= 10; v2 = Math.floor(v2 / 10))
    digits++;
  let v = value;
  for (let i = at + digits - 1; i >= at; i--) {
    out[i] = 48 + v % 10;
    v = Math.floor(v / 10);
  }
  return at + digits;
}
var PolicyNumbers = class {
  keys = new Uint8Array(1 << 16);
  used = 0;
  /** Per entry: where its bytes start in keys (they end where the next entry's start) and its line. */
  starts = new Int32Array(1 << 12);
  lines = new Int32Array(1 << 12);
  count = 0;
  /** Two numbers per slot, side by side (one cache line for both): entry index + 1 (0: empty) and the hash. */
  slots = new Int32Array(2 << 13);
  /**
   * The line of the row that took bytes[from, to) before; -1 when none did, and then `line`
   * takes it.
   */
  firstLine(bytes, from, to, line) {
    let h = 2166136261;
    for (let i = from; i < to; i++)
      h = Math.imul(h ^ bytes[i], 16777619);
    h ^= h >>> 15;
    const { slots, starts, keys } = this;
    const mask = (slots.length >> 1) - 1;
    const len = to - from;
    for (let s = h & mask; ; s = s + 1 & mask) {
      const e = slots[2 * s] - 1;
      if (e < 0)
        break;
      if (slots[2 * s + 1] !== h)
        continue;
      const start = starts[e];
      const end = e + 1 < this.count ? starts[e + 1] : this.used;
      if (end - start !== len)
        continue;
      let i = 0;
      while (i < len && keys[start + i] === bytes[from + i])
        i++;
      if (i === len)
        return this.lines[e];
    }
    this.add(bytes, from, to, line, h);
    return -1;
  }
  add(bytes, from, to, line, h) {
    const len = to - from;
    if (this.used + len > this.keys.length)
      this.keys = grow(this.keys, Math.max(this.keys.length * 2, this.used + len));
    const keys = this.keys;
    for (let i = 0, at = this.used; i < len; i++)
      keys[at + i] = bytes[from + i];
    if (this.count === this.starts.length) {
      this.starts = grow(this.starts, this.count * 2);
      this.lines = grow(this.lines, this.count * 2);
    }
    const e = this.count++;
    this.starts[e] = this.used;
    this.lines[e] = line;
    this.used += len;
    if (this.count * 2 > this.slots.length >> 1) {
      const old = this.slots;
      this.slots = new Int32Array(old.length * 2);
      for (let s = 0; s < old.length; s += 2)
        if (old[s] !== 0)
          this.place(old[s] - 1, old[s + 1]);
    }
    this.place(e, h);
  }
  place(e, h) {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    let s = h & mask;
    while (slots[2 * s] !== 0)
      s = s + 1 & mask;
    slots[2 * s] = e + 1;
    slots[2 * s + 1] = h;
  }
};
function grow(a, size) {
  const b = new a.constructor(size);
  b.set(a);
  return b;
}
function pgImportSink(_store, unit, clientId, createdAt, onDuplicate) {
  if (!Number.isSafeInteger(createdAt))
    throw new TypeError("createdAt must be an integer");
  const { client } = unit;
  const copy = new CopyIn(client, `copy ${STAGE} (line, customer_id, external_customer_ref, policy_number, product_code, amount) from stdin with (format csv)`);
  let staged = 0;
  return {
    insert(rows) {
      copy.check();
      if (rows.count > 0)
        copy.write(csvOf(rows));
      staged += rows.count;
    },
    ready() {
      return copy.ready();
    },
    async finish() {
      if (!await copy.end())
        return 0;
      await client.query("set local work_mem = 65536");
      const base = Number((await client.query("select coalesce(max(id), 0) as id from policies")).rows[0].id);
      const merged = await client.query(`insert into policies (client_id, policy_number, customer_id, external_customer_ref, product_code, collection_amount, status, created_at, updated_at)
         select $1, f.policy_number, f.customer_id, f.external_customer_ref, f.product_code, f.amount, 'active', $2, $2
         from (select distinct on (policy_number) * from ${STAGE} order by policy_number, line) f
         where not exists (select 1 from policies p where p.client_id = $1 and p.policy_number = f.policy_number)
         order by f.line`, [clientId, createdAt]);
      const inserted = merged.rowCount ?? 0;
      if (inserted === staged)
        return inserted;
      for await (const rows of unit.rows(`select s.line, s.policy_number, case when p.id > ? then f.first_line end
         from ${STAGE} s
         join (select policy_number, min(line) as first_line from ${STAGE} group by policy_number) f on f.policy_number = s.policy_number
         join policies p on p.client_id = ? and p.policy_number = s.policy_number
         where s.line <> f.first_line or p.id <= ?
         order by s.line`, [base, clientId, base], { raw: true, batch: DUPLICATE_BATCH })) {
        for (const [line, policyNumber, firstLine] of rows)
          onDuplicate({ line, policyNumber, firstLine });
      }
      return inserted;
    }
  };
}
function csvOf(rows) {
  const { count, bytes, offsets, amounts, lines } = rows;
  let size = 0;
  for (let r = 0; r < count; r++)
    size += offsets[r * 5 + 4] - offsets[r * 5] + 26;
  const out = Buffer.allocUnsafe(size);
  const src = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  for (let r = 0; r < count; r++) {
    at += out.write(`${lines[r]},`, at, "latin1");
    at += src.copy(out, at, offsets[r * 5], offsets[r * 5 + 4]);
    at += out.write(`,${amounts[r]}
`, at, "latin1");
  }
  return out.subarray(0, at);
}
export {
  PolicyNumbers,
  inPgPolicyImport
};
