/**
 * Bulk policy import (spec 4.2). The file is streamed through the CSV reader; each row is
 * validated as it arrives; valid rows are inserted in batches inside ONE transaction, so an
 * interrupted import leaves nothing behind and a file that is not the expected CSV at all is
 * rolled back whole. Row problems are reported ({row, policy_number, field, code, message})
 * and the row skipped. `failed` counts rows; a row with several bad fields has several errors.
 */
import { PremiaError } from '../../domain/errors.js';
import { checkIdentifier, checkProductCode, printable } from '../../domain/identifiers.js';
import { parsePremium } from '../../domain/money.js';
import { CsvFormatError, CsvReader, trimCell } from '../../lib/csv-reader.js';
import {
  existingPolicyNumbers,
  hasAnyPolicy,
  insertPoliciesBulk,
  POLICY_BULK_WIDTH,
} from '../../store/repos/policies.js';
import type { ImportOptions, ImportResult, ImportRowError, Upload } from '../types.js';
import type { LocalContext } from './context.js';
import { stamp } from './world.js';

export const POLICY_CSV_HEADER = ['customer_id', 'external_customer_ref', 'policy_number', 'product_code', 'collection_amount'] as const;

const BATCH_ROWS = 2000;
const PROGRESS_EVERY = 20_000;

export async function importPolicies(ctx: LocalContext, file: Upload, options: ImportOptions = {}): Promise<ImportResult> {
  return ctx.store.withConnection(async (raw, statements) => {
    raw.exec('begin immediate');
    try {
      const result = await runImport(ctx, file, options, statements);
      raw.exec('commit');
      return result;
    } catch (e) {
      if (raw.inTransaction) raw.exec('rollback');
      throw e;
    }
  });
}

async function runImport(
  ctx: LocalContext,
  file: Upload,
  options: ImportOptions,
  statements: Parameters<typeof insertPoliciesBulk>[0],
): Promise<ImportResult> {
  const clientId = ctx.clientId;
  const world = await readWorldRaw(statements);
  const now = stamp(world.today, ctx.now());
  const checkStore = hasAnyPolicy(statements, clientId);

  const errors: ImportRowError[] = [];
  const firstRowOf = new Map<string, number>(); // policy_number → row of its first valid occurrence
  let imported = 0;
  let failed = 0;
  let rows = 0;
  let header: string[] | null = null;

  // The batch: flat insert parameters, plus the row and number of each pending row.
  let flat: unknown[] = [];
  let pendingRows: number[] = [];
  let pendingNumbers: string[] = [];

  const flush = (): void => {
    if (pendingNumbers.length === 0) return;
    if (checkStore) {
      const existing = existingPolicyNumbers(statements, clientId, pendingNumbers);
      if (existing.size > 0) {
        const keep: unknown[] = [];
        for (let i = 0; i < pendingNumbers.length; i++) {
          const number = pendingNumbers[i]!;
          if (existing.has(number)) {
            failed++;
            errors.push({
              row: pendingRows[i]!,
              policy_number: number,
              field: 'policy_number',
              code: 'DUPLICATE_POLICY',
              message: `policy ${number} already exists; update it instead of importing it again`,
            });
          } else {
            for (let c = 0; c < POLICY_BULK_WIDTH; c++) keep.push(flat[i * POLICY_BULK_WIDTH + c]);
          }
        }
        flat = keep;
      }
    }
    insertPoliciesBulk(statements, flat);
    imported += flat.length / POLICY_BULK_WIDTH;
    flat = [];
    pendingRows = [];
    pendingNumbers = [];
  };

  const onRecord = (fields: string[], line: number, problem: string | null): void => {
    if (header === null) {
      header = fields.map((f) => trimCell(f));
      const wrong = headerProblem(header);
      if (wrong) throw invalidFile(file.name, wrong);
      return;
    }
    rows++;
    const rowErrors = validateRow(fields, line, problem);
    if (rowErrors !== null) {
      failed++;
      for (const e of rowErrors) errors.push(e);
      return;
    }
    const customerId = trimCell(fields[0]!);
    const externalRef = trimCell(fields[1]!);
    const policyNumber = trimCell(fields[2]!);
    const productCode = trimCell(fields[3]!);
    const amount = parsePremium(trimCell(fields[4]!)) as number;
    const first = firstRowOf.get(policyNumber);
    if (first !== undefined) {
      failed++;
      errors.push({
        row: line,
        policy_number: policyNumber,
        field: 'policy_number',
        code: 'DUPLICATE_IN_FILE',
        message: `policy ${policyNumber} already appears on row ${first} of this file`,
      });
      return;
    }
    firstRowOf.set(policyNumber, line);
    flat.push(
      clientId,
      policyNumber,
      customerId,
      externalRef,
      productCode,
      amount,
      'active',
      now,
      now,
    );
    pendingRows.push(line);
    pendingNumbers.push(policyNumber);
    if (pendingNumbers.length >= BATCH_ROWS) flush();
  };

  const reader = new CsvReader({ onRecord });
  let nextProgress = PROGRESS_EVERY;
  try {
    for await (const chunk of file.stream) {
      reader.push(chunk);
      if (options.onProgress && rows >= nextProgress) {
        options.onProgress({ bytes: reader.bytesIn, rows });
        nextProgress = rows + PROGRESS_EVERY;
      }
    }
    reader.end();
  } catch (e) {
    if (e instanceof CsvFormatError) throw invalidFile(file.name, e.message);
    throw e;
  }
  if (header === null) throw invalidFile(file.name, 'the file is empty; expected a header line and policy rows');
  flush();
  options.onProgress?.({ bytes: reader.bytesIn, rows });
  errors.sort((a, b) => a.row - b.row);
  return { imported, failed, errors };
}

/** Why the header is not the spec's, or null when it is (names compared without case). */
function headerProblem(found: string[]): string | null {
  const expected = POLICY_CSV_HEADER.join(',');
  const same = found.length === POLICY_CSV_HEADER.length && found.every((f, i) => f.toLowerCase() === POLICY_CSV_HEADER[i]);
  if (same) return null;
  const foundText = printable(found.join(','), 200);
  const sameSet =
    found.length === POLICY_CSV_HEADER.length &&
    [...found].map((f) => f.toLowerCase()).sort().join(',') === [...POLICY_CSV_HEADER].sort().join(',');
  const hint = sameSet ? ' The columns are right but in the wrong order.' : '';
  return `line 1: the header must be '${expected}'; found '${foundText}'.${hint}`;
}

/** Validate one data row. Returns null when it is valid, else every problem found. */
function validateRow(fields: string[], line: number, problem: string | null): ImportRowError[] | null {
  if (fields.length !== POLICY_CSV_HEADER.length) {
    const policyNumber = fields.length > 2 ? numberForError(trimCell(fields[2]!)) : null;
    return [
      {
        row: line,
        policy_number: policyNumber,
        field: 'row',
        code: 'WRONG_FIELD_COUNT',
        message: `expected ${POLICY_CSV_HEADER.length} fields, found ${fields.length}`,
      },
    ];
  }
  const customerId = trimCell(fields[0]!);
  const externalRef = trimCell(fields[1]!);
  const policyNumber = trimCell(fields[2]!);
  const productCode = trimCell(fields[3]!);
  const amountText = trimCell(fields[4]!);
  const p1 = checkIdentifier(customerId, 'customer_id');
  const p2 = checkIdentifier(externalRef, 'external_customer_ref');
  const p3 = checkIdentifier(policyNumber, 'policy_number');
  const p4 = checkProductCode(productCode);
  const amount = parsePremium(amountText);
  if (p1 === null && p2 === null && p3 === null && p4 === null && typeof amount === 'number' && problem === null) return null;

  const number = numberForError(policyNumber);
  const out: ImportRowError[] = [];
  const add = (field: string, code: string, message: string) => out.push({ row: line, policy_number: number, field, code, message });
  if (problem !== null) add('row', 'MALFORMED_ROW', problem);
  if (p1) add('customer_id', p1.code, p1.message);
  if (p2) add('external_customer_ref', p2.code, p2.message);
  if (p3) add('policy_number', p3.code, p3.message);
  if (p4) add('product_code', p4.code, p4.message);
  if (typeof amount !== 'number') add('collection_amount', amount.code, `collection_amount ${amount.message}`);
  return out;
}

/** The policy_number to echo in an error: null when empty, cut and made printable when odd. */
function numberForError(value: string): string | null {
  if (value === '') return null;
  return printable(value, 64);
}

function invalidFile(name: string, reason: string): PremiaError {
  const sentence = /[.!?]$/.test(reason) ? reason : `${reason}.`;
  return new PremiaError('INVALID_FILE', `${name} is not a policy CSV file: ${sentence} Nothing was imported.`, {
    details: [{ field: 'file', code: 'INVALID_FILE', message: reason }],
  });
}

async function readWorldRaw(statements: Parameters<typeof insertPoliciesBulk>[0]) {
  // Inside withConnection the kysely connection is held by us, so read the meta table directly.
  const rows = statements.get('select key, value from meta').all() as { key: string; value: string }[];
  const meta = new Map(rows.map((r) => [r.key, r.value]));
  return { today: meta.get('clock_date')! };
}
