/**
 * The simulated bank's commands: import transactions, show an account, set the seed.
 *
 * Import rules (besides the CSV and field rules): once a collections run exists, rows dated on
 * or before the clock's date are refused (days already lived cannot change), and so are rows
 * for a generated customer holding collections (the engine has read that history); a row equal
 * to one stored by an earlier import is refused (a statement imported twice). Rows for a customer
 * no policy names are stored (a statement may come before its policies); but where that
 * customer's id differs only in letter case or leading zeros from a policy's customer id (c100001,
 * C100001; 123, 00123) the
 * answer lists them (case_mismatches), or, asked to refuse (customerCase 'refuse', the CLI
 * without --yes), nothing is stored.
 */
import { importStopped, invalidCsvFile, RowErrors, stoppable, amountSplitHint } from './row-errors.js';
import { BANK_CSV_HEADER } from '../../domain/csv-headers.js';
import { PremiaError, validationError } from '../../domain/errors.js';
import { apiKeyProblem, checkIdentifier, firstUnseen, holdsApiKey, moreCharactersThan, overlongCharacter, printable } from '../../domain/identifiers.js';
import { formatCents, MAX_ACCOUNT_TURNOVER, parseSignedAmount } from '../../domain/money.js';
import { dayNumber, fromDayNumber, isIsoDate, periodOf, whyNotADate } from '../../domain/period.js';
import { eventNamed, isAccountEvent, ACCOUNT_EVENTS, type FailureReason } from '../../bank/types.js';
import type { LedgerObserver } from '../../bank/ledger.js';
import { bareCrHint, CsvFormatError, CsvReader, emptyColumnsRowHint, isBlankRecord, isHeaderOf, trimCell, wrongHeaderHint } from '../../lib/csv-reader.js';
import { redactKeysIn } from '../../lib/key-text.js';
import { getAllMeta, setMeta } from '../../store/repos/meta.js';
import type {
  AccountState,
  BankAccountView,
  BankImportResult,
  BankImportRowError,
  BankTransactionView,
  ClockState,
  ImportOptions,
  Upload,
} from '../types.js';
import { readCustomerBankInputs, withBankImport, type BankImportUnit } from '../../store/repos/bank.js';
import { CaseMismatchRefused, caseMismatches, findCaseTwins, type CaseMismatches } from '../../domain/customer-case.js';
import { epochFor } from '../../bank/simulated.js';
import { CustomerMap } from '../../domain/customer.js';
import { openAccount } from './accounts.js';
import { incomeView } from './collections.js';
import type { LocalContext } from './context.js';
import { readWorld, refuseWhileAdvancing } from './world.js';

const DESCRIPTION_MAX = 200;
/** Code points in one character of a description: a letter and 30 accents, the most Unicode's stream-safe text puts on one. */
const CHARACTER_MAX = 31;
const RECENT = 25;

/** Why a bank row's description is refused (a phrase after "description"), or null. */
function checkDescription(description: string): string | null {
  if (holdsApiKey(description)) return 'holds an API key (pmk_ and 40 letters and digits), a secret never stored as data; write the description without it';
  const bad = firstUnseen(description);
  if (bad) return `holds an unprintable or invisible character (${bad}); write it on one line of visible text`;
  // Counted in characters as a person counts them (an emoji is one, a letter and its accent one), not UTF-16 units.
  if (moreCharactersThan(description, DESCRIPTION_MAX)) return `is longer than ${DESCRIPTION_MAX} characters`;
  const overlong = overlongCharacter(description, CHARACTER_MAX, DESCRIPTION_MAX);
  if (overlong > 0) return `has a character of more than ${CHARACTER_MAX} code points (character ${overlong}: a letter under dozens of accents); write it as plain text`;
  return null;
}

/** The answer of an import refused whole for rows it could not read, thrown so that the unit rolls back. */
class Unreadable extends Error {
  constructor(readonly result: BankImportResult) {
    super('a bank statement with unreadable rows is not imported');
  }
}

/**
 * A statement is imported whole or not at all when any row cannot be read (a bad date, amount,
 * field count, ...): its balances run on from row to row, so storing the rest would leave every
 * later balance wrong, and the missing row could no longer be added once the clock passed its
 * day. Rows that are read but may not be stored (already imported, on a day already lived, of a
 * generated account in use, past the account's total: DUPLICATE_TRANSACTION, DATE_IN_PAST,
 * ACCOUNT_IN_USE, the account total's AMOUNT_OUT_OF_RANGE) are skipped, and the rest stored.
 */
export async function importBankTransactions(ctx: LocalContext, file: Upload, options: ImportOptions = {}): Promise<BankImportResult> {
  try {
    return await importStatement(ctx, file, options);
  } catch (e) {
    if (e instanceof Unreadable) return e.result;
    throw e;
  }
}

async function importStatement(ctx: LocalContext, file: Upload, options: ImportOptions): Promise<BankImportResult> {
  return withBankImport(ctx.store, ctx.clientId, async (unit) => {
    const { locked, today, imported, collecting } = unit;
    const errors = new RowErrors<BankImportRowError>();
    /** The errors of rows that could not be read: they refuse the file whole, so its answer lists them first. */
    const unreadableErrors = new RowErrors<BankImportRowError>();
    let header: string[] | null = null;
    let imported_ = 0;
    let failed = 0;
    let unreadable = 0;
    let rows = 0;
    /** What each customer's statement moves in all, with this file's rows so far. */
    const turnover = new Map<string, number>();
    /** The line of each customer's first row stored (for the customer ids that only a policy's differ from in case). */
    const firstRow = new Map<string, number>();
    const reader = new CsvReader({
      onRecord: (fields, line, problem) => {
        if (isBlankRecord(fields)) return;
        if (header === null) {
          header = fields.map((f) => trimCell(f));
          const ok = isHeaderOf(header, BANK_CSV_HEADER);
          if (!ok) {
            const hint = wrongHeaderHint(header, BANK_CSV_HEADER);
            throw invalidBankFile(file.name, `line ${line}: the header must be '${BANK_CSV_HEADER.join(',')}'; found '${printable(header.join(','), 200)}'${hint && `.${hint}`}`);
          }
          return;
        }
        rows++;
        const unreadableBefore = unreadable;
        const rowErrors: BankImportRowError[] = [];
        const customer = fields.length > 0 ? trimCell(fields[0]!) : '';
        const add = (field: string, code: string, message: string) =>
          // Redacted: the import's answer is a 200 body, which the service's error-body redaction does not see.
          rowErrors.push({ row: line, customer_id: customer === '' ? null : printable(redactKeysIn(customer), 64), field, code, message: redactKeysIn(message) });
        if (fields.length !== 4) {
          add('row', 'WRONG_FIELD_COUNT', `expected 4 fields, found ${fields.length}${bareCrHint(fields) || emptyColumnsRowHint(fields, BANK_CSV_HEADER) || fieldCountHint(fields)}`);
          unreadable++;
        } else if (isHeaderOf(fields, BANK_CSV_HEADER)) {
          // Statements joined into one file (cat a.csv b.csv): where two overlap, their common rows
          // would count twice, equal rows of one file being separate transactions.
          add(
            'row',
            'MALFORMED_ROW',
            'this row is the header again (statements joined into one file?); import each statement as a file of its own, or remove the line if the rows before and after do not overlap',
          );
          unreadable++;
        } else {
          if (problem) add('row', 'MALFORMED_ROW', problem);
          const idProblem = checkIdentifier(customer, 'customer_id') ?? apiKeyProblem(customer, 'customer_id');
          if (idProblem) add('customer_id', idProblem.code, idProblem.message);
          const date = trimCell(fields[1]!);
          if (date === '') add('date', 'REQUIRED', 'date is empty');
          else if (!isIsoDate(date)) add('date', 'INVALID_DATE', `date '${printable(date, 40)}' ${whyNotADate(date).phrase}`);
          const amount = parseSignedAmount(trimCell(fields[2]!));
          if (typeof amount !== 'number') add('amount', amount.code, `amount ${amount.message}`);
          const description = trimCell(fields[3]!);
          const descriptionProblem = checkDescription(description);
          if (descriptionProblem) add('description', 'INVALID_FORMAT', `description ${descriptionProblem}`);
          // The event the description names, in any letter case (`account_closed` is the event
          // mistyped, not a description): said so, with money or without.
          const event = eventNamed(description);
          if (typeof amount === 'number' && amount === 0 && !isAccountEvent(description)) {
            add(
              'amount',
              'INVALID_AMOUNT',
              `amount 0 is only for event rows (${ACCOUNT_EVENTS.join(', ')}); '${printable(description, 40)}' is not one` +
                (event !== null ? ` (event names are written in capitals: ${event})` : ''),
            );
          }
          // The reverse too: a statement line saying the account closed is no deposit for premia
          // to debit, and which of the two the file meant is not premia's guess.
          if (typeof amount === 'number' && amount !== 0 && event !== null) {
            add('amount', 'INVALID_AMOUNT', `an event row (${event}) must have amount 0, not ${formatCents(amount)}: the event is not money; write the account's own movement on a row of its own`);
          }
          // Nothing more is stored once a row could not be read: the import is refused whole.
          if (rowErrors.length > 0) unreadable++;
          if (rowErrors.length === 0 && locked) {
            if (date <= today) add('date', 'DATE_IN_PAST', `${date} is on or before the clock's date ${today}; days already lived cannot change`);
            else if (!imported.has(customer) && collecting.has(customer)) {
              add('customer_id', 'ACCOUNT_IN_USE', `premia is collecting from the generated account of ${customer}; its history cannot be replaced`);
            }
          }
          // A row the store already held before this import (the same statement imported twice)
          // would count the money twice. Rows repeated within one file are kept: two equal
          // purchases on one day are ordinary; each stored row answers for one of them.
          if (rowErrors.length === 0 && imported.has(customer) && unit.storedBefore(customer, date, amount as number, description)) {
            add('row', 'DUPLICATE_TRANSACTION', `${customer} already has this transaction on ${date} from an earlier import; a statement is imported once`);
          }
          if (rowErrors.length === 0) {
            // An account's money stays countable to the cent: what its statement moves in all is bounded.
            const moved = (turnover.get(customer) ?? unit.turnoverBefore(customer)) + Math.abs(amount as number);
            if (moved > MAX_ACCOUNT_TURNOVER) {
              add(
                'amount',
                'AMOUNT_OUT_OF_RANGE',
                `${customer}'s statement would move more than ${formatCents(MAX_ACCOUNT_TURNOVER)} in all with this row; premia counts an account's money to the cent up to that`,
              );
            } else {
              if (!turnover.has(customer)) firstRow.set(customer, line);
              turnover.set(customer, moved);
              if (unreadable === 0) unit.insert(customer, date, amount as number, description);
              imported_++;
              return;
            }
          }
        }
        failed++;
        for (const e of rowErrors) (unreadable > unreadableBefore ? unreadableErrors : errors).push(e);
      },
    });
    try {
      for await (const chunk of stoppable(file.stream, options.signal)) {
        if (options.signal?.aborted) throw importStopped();
        reader.push(chunk);
        options.onProgress?.({ bytes: reader.bytesIn, rows });
        await unit.ready?.();
      }
      reader.end();
    } catch (e) {
      if (e instanceof CsvFormatError) throw invalidBankFile(file.name, e.message);
      throw e;
    }
    if (header === null) throw invalidBankFile(file.name, 'the file is empty; expected a header line and transaction rows');
    // Past 10,000 errors the rows it cannot read are still named: the first by row could all be
    // rows stored before (a statement imported again with a typo at its end).
    if (unreadable > 0) throw new Unreadable({ imported: 0, failed, ...unreadableErrors.resultBefore(errors) });
    const mismatches = await caseMismatchesOf(unit, firstRow);
    // Thrown inside the unit: what was inserted is rolled back.
    if (mismatches && options.customerCase === 'refuse') throw new CaseMismatchRefused(mismatches, file.name);
    return { imported: imported_, failed, ...errors.result(), ...(mismatches && { case_mismatches: mismatches }) };
  }, { signal: options.signal, error: importStopped });
}

/**
 * The customers of the rows stored that no policy names but whose ids differ only in letter case
 * from a policy's customer id (C100001's policies, c100001's rows), each with its first row; or
 * undefined. One read of the client's policies' customer ids, each looked up once by its lower
 * case among the statement's customers: linear in both.
 */
async function caseMismatchesOf(unit: BankImportUnit, firstRow: ReadonlyMap<string, number>): Promise<CaseMismatches | undefined> {
  return caseMismatches(await findCaseTwins(firstRow.keys(), () => unit.policyCustomerIds()), (id) => firstRow.get(id)!);
}

/**
 * For a row of more than 4 fields whose fields past the amount are not all empty: most likely a
 * description holding a comma, written without the double quotes that keep it one field (or an
 * amount with thousands separators or a decimal comma); for a row of 3, a description left out. What to add to the
 * message, or ''.
 */
function fieldCountHint(fields: readonly string[]): string {
  const extra = fields.length - BANK_CSV_HEADER.length;
  // Three fields that read as customer, date and amount: the description column left out.
  if (extra === -1 && isIsoDate(trimCell(fields[1]!)) && typeof parseSignedAmount(trimCell(fields[2]!)) === 'number') {
    return `: the description is missing; a row without one still ends with its comma (${printable(fields.map((f) => trimCell(f)).join(','), 60)},)`;
  }
  if (extra <= 0) return '';
  // An amount with thousands separators or a decimal comma and no quotes (1,234.00, 149,50) is split as well.
  const split = amountSplitHint(fields, BANK_CSV_HEADER.length, 2, 'amount');
  if (split !== '') return split;
  // Only where the fields before the description read as a date and an amount: else the comma is elsewhere.
  if (!isIsoDate(trimCell(fields[1]!)) || typeof parseSignedAmount(trimCell(fields[2]!)) !== 'number') return '';
  const text = fields.slice(3).join(',').trim();
  return `: a comma separates fields, so a description that holds one must be in double quotes (if the description is '${printable(text, 60)}', write "${printable(text.replaceAll('"', '""'), 60)}")`;
}

function invalidBankFile(name: string, reason: string): PremiaError {
  return invalidCsvFile(name, 'a bank transactions CSV file', reason);
}

/**
 * Balance, recent movements and the income pattern the engine detects, as of the clock, for a
 * customer the client knows (a policy names it, or it has imported bank rows); any other
 * customer is NOT_FOUND.
 */
export async function showBankAccount(ctx: LocalContext, customerId: string): Promise<BankAccountView> {
  const problem = checkIdentifier(customerId, 'customer_id');
  if (problem) throw validationError(`${problem.message}.`, [{ field: 'customer_id', ...problem }]);
  const world = await readWorld(ctx.store.db);
  const today = dayNumber(world.today);
  const entries: BankTransactionView[] = [];
  const labels: string[] = [];
  let labelIndex = 0;
  const observer: LedgerObserver = {
    credit: (day, amount, text, balance) => entries.push({ date: fromDayNumber(day), amount, description: text, outcome: 'posted', balance }),
    premiaDebit: (day, amount, reason: FailureReason | null, balance) =>
      entries.push({
        date: fromDayNumber(day),
        amount: -amount,
        description: `PREMIA DEBIT ${labels[labelIndex++] ?? ''}${reason ? ` (FAILED: ${reason})` : ''}`.trim(),
        outcome: reason ? 'declined' : 'posted',
        balance,
      }),
    debit: (day, amount, text, posted, balance) => entries.push({ date: fromDayNumber(day), amount: -amount, description: text, outcome: posted ? 'posted' : 'declined', balance }),
  };
  // A customer is known to this client by a policy (any status: collections imply one) or by
  // bank rows it imported. Anyone else is not found: a generated account would be invented.
  const inputs = await readCustomerBankInputs(ctx.store, ctx.clientId, customerId);
  if (!inputs.known) {
    throw new PremiaError(
      'NOT_FOUND',
      `Customer '${customerId}' is not known: no policy of this client names it and no bank transactions were imported for it. Check the customer_id.`,
    );
  }
  for (const a of inputs.attempts.get(ctx.clientId, customerId) ?? []) labels.push(a.policyNumber);
  const account = openAccount(
    {
      seed: world.seed,
      calendar: inputs.calendar,
      epochDay: inputs.epoch ? dayNumber(inputs.epoch) : epochFor(periodOf(world.today)),
      imported: inputs.imported,
      snapshots: new CustomerMap(),
      attempts: inputs.attempts,
    },
    ctx.clientId,
    customerId,
    today,
    observer,
  );
  const blocked = account.blockedOn(today);
  const state: AccountState =
    blocked === 'ACCOUNT_CLOSED' ? 'closed' : blocked === 'ACCOUNT_FROZEN' ? 'frozen' : blocked === 'PAYMENT_STOPPED' ? 'payment_stopped' : 'open';
  return {
    customer_id: customerId,
    source: account.sourceKind,
    as_of: world.today,
    balance: account.balance,
    state,
    recent_transactions: entries.slice(-RECENT),
    income: incomeView(account.analysis, today + 1, account.calendar),
  };
}

export async function seedBank(ctx: LocalContext, seed: number): Promise<ClockState> {
  if (!Number.isInteger(seed) || seed < 0 || seed > 999_999_999) {
    throw validationError(`The seed must be a whole number from 0 to 999999999; got ${String(seed)}.`, [
      { field: 'seed', code: 'INVALID_VALUE', message: 'a whole number from 0 to 999999999' },
    ]);
  }
  return ctx.store.transaction(async (trx) => {
    const world = await readWorld(trx);
    if (world.locked) {
      throw new PremiaError(
        'SEED_LOCKED',
        `A collections run exists, so the bank's seed (${world.seed}) can no longer change: generated accounts have been used.`,
      );
    }
    await refuseWhileAdvancing(ctx.store, trx, await getAllMeta(trx), "the bank's seed");
    await setMeta(trx, 'seed', String(seed));
    return { date: world.today, locked: false, seed };
  });
}
