/**
 * Customer ids are compared exactly (identifiers.ts): bank rows for c100001 are not the statement
 * of the policies' customer C100001, nor rows for 123 that of customer 00123 (a spreadsheet that
 * took 00123 for a number wrote 123). Such rows are stored for a customer of their own, and the
 * policies' customer is collected from a generated account: invented money. A bank import (and
 * a policy import, the other way round) finds these look-alike ids so that they are said, never
 * taken in silence. The names (case twins, case_mismatches) date from the first kind.
 *
 * One pass over each side: the named ids (a statement's customers) are kept by their twin key
 * (lower case; for an id of digits alone, without its leading zeros), and each policy customer
 * id is looked up there once. Never a comparison of every pair.
 */
import { PremiaError } from './errors.js';
import { count, plural } from './words.js';

/** A customer id of bank rows that no policy names, and the policy customer id it differs from only in letter case or leading zeros. */
export interface CaseMismatch {
  /** The bank rows' spelling. */
  customer_id: string;
  /** The spelling of a policy's customer id. */
  policy_customer_id: string;
  /** The file line of its first row, when the rows come from the file being imported. */
  row?: number;
}

/** The mismatches an import answers with: how many customers, and the first of them. */
export interface CaseMismatches {
  /** How many customer ids of bank rows are such a mismatch. */
  total: number;
  /** The first CASE_MISMATCHES_LISTED of them (by row, or by customer id). */
  first: CaseMismatch[];
}

const CASE_MISMATCHES_LISTED = 10;

const DIGITS = /^[0-9]+$/;
const LEADING_ZEROS = /^0+(?=[0-9])/;

/**
 * What two look-alike customer ids share: the id in lower case (ids are ASCII, so this is one to
 * one on letters and leaves the rest), and an id of digits alone without its leading zeros.
 */
function twinKey(id: string): string {
  const lower = id.toLowerCase();
  return DIGITS.test(lower) ? lower.replace(LEADING_ZEROS, '') : lower;
}
/** How many a sentence names. */
const NAMED = 5;

/**
 * The named ids with no policy of their own whose twin key is a policy customer id's: give it
 * the named ids, then each policy customer id once (`policy`), then read `mismatches`.
 */
export class CaseTwins {
  /** The named ids by their twin key (usually one each). */
  private readonly byKey = new Map<string, string | string[]>();
  /** Named ids a policy names exactly. */
  private readonly exact = new Set<string>();
  /** Named id → the first policy customer id found that differs from it only in case or leading zeros. */
  private readonly twins = new Map<string, string>();

  constructor(named: Iterable<string>) {
    for (const id of named) {
      const key = twinKey(id);
      const there = this.byKey.get(key);
      if (there === undefined) this.byKey.set(key, id);
      else if (typeof there === 'string') this.byKey.set(key, [there, id]);
      else there.push(id);
    }
  }

  /** Whether any id was named (none: no policy needs to be read). */
  get empty(): boolean {
    return this.byKey.size === 0;
  }

  policy(policyCustomerId: string): void {
    const there = this.byKey.get(twinKey(policyCustomerId));
    if (there === undefined) return;
    if (typeof there === 'string') this.match(there, policyCustomerId);
    else for (const id of there) this.match(id, policyCustomerId);
  }

  private match(id: string, policyCustomerId: string): void {
    if (id === policyCustomerId) this.exact.add(id);
    else if (!this.twins.has(id)) this.twins.set(id, policyCustomerId);
  }

  /** The named ids no policy names, with the policy customer id each differs from only in case or leading zeros. */
  mismatches(): Map<string, string> {
    for (const id of this.exact) this.twins.delete(id);
    return this.twins;
  }
}

/**
 * The named ids no policy names, each with the policy customer id it differs from only in case or
 * leading zeros;
 * the policies' customer ids (`policyIds`, in batches) are read only when some id is named.
 */
export async function findCaseTwins(named: Iterable<string>, policyIds: () => AsyncIterable<readonly string[]>): Promise<Map<string, string>> {
  const twins = new CaseTwins(named);
  if (twins.empty) return new Map();
  for await (const ids of policyIds()) for (const id of ids) twins.policy(id);
  return twins.mismatches();
}

/** The answer's form of `found` (id → policy spelling), ordered by `rowOf` when given, else by id. */
export function caseMismatches(found: ReadonlyMap<string, string>, rowOf?: (customerId: string) => number): CaseMismatches | undefined {
  if (found.size === 0) return undefined;
  const all: CaseMismatch[] = [...found].map(([customer_id, policy_customer_id]) =>
    rowOf ? { row: rowOf(customer_id), customer_id, policy_customer_id } : { customer_id, policy_customer_id },
  );
  all.sort((a, b) => (a.row ?? 0) - (b.row ?? 0) || (a.customer_id < b.customer_id ? -1 : a.customer_id > b.customer_id ? 1 : 0));
  return { total: all.length, first: all.slice(0, CASE_MISMATCHES_LISTED) };
}

/**
 * "2 customer ids of bank.csv have no policy but differ only in letter case from a policy's
 * customer id (customer ids are case-sensitive): c100001 (row 2) where a policy has C100001;
 * c100002 (row 5) where a policy has C100002": the first few named, and how many more. `source`
 * names where the ids are ("bank.csv", "the bank rows stored").
 */
export function describeCaseMismatches(m: CaseMismatches, source: string): string {
  const named = m.first.slice(0, NAMED).map((x) => `${x.customer_id}${x.row === undefined ? '' : ` (row ${x.row})`} where a policy has ${x.policy_customer_id}`);
  const more = m.total - named.length;
  const have = m.total === 1 ? 'has' : 'have';
  // Judged on those listed: the kinds of the others are not known here.
  const inCase = m.first.filter((x) => x.customer_id.toLowerCase() === x.policy_customer_id.toLowerCase()).length;
  const how =
    inCase === m.first.length
      ? "only in letter case from a policy's customer id (customer ids are case-sensitive)"
      : inCase === 0
        ? "only in leading zeros from a policy's customer id (customer ids are compared exactly; a spreadsheet drops a number's leading zeros)"
        : "only in letter case or leading zeros from a policy's customer id (customer ids are compared exactly; a spreadsheet drops a number's leading zeros)";
  return `${plural(m.total, 'customer id')} of ${source} ${have} no policy but ${m.total === 1 ? 'differs' : 'differ'} ${how}: ${named.join('; ')}${more > 0 ? `; and ${count(more)} more` : ''}`;
}

/**
 * A bank import refused for its case mismatches (asked with ImportOptions customerCase
 * 'refuse'): nothing was stored. INVALID_FILE (exit 2); the details list the first of them.
 */
export class CaseMismatchRefused extends PremiaError {
  constructor(
    readonly mismatches: CaseMismatches,
    readonly source: string,
  ) {
    super(
      'INVALID_FILE',
      `Nothing was imported: ${describeCaseMismatches(mismatches, source)}. Imported as they are, their rows would be customers of their own, ` +
        "and the policies' customers would be collected from generated accounts. Correct the customer ids in the file and import it again.",
      { details: mismatches.first.map((m) => ({ ...m })) },
    );
  }
}

/** Whether an answer's case_mismatches is premia's (another server's answer may hold anything there). */
export function isCaseMismatches(value: unknown): value is CaseMismatches {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Partial<CaseMismatches>;
  return (
    typeof m.total === 'number' &&
    m.total > 0 &&
    Array.isArray(m.first) &&
    m.first.every((x) => typeof x === 'object' && x !== null && typeof x.customer_id === 'string' && typeof x.policy_customer_id === 'string')
  );
}
