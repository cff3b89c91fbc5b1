/** Human rendering of a settlement statement, shared by the settlement commands. */
import type { Backend, Settlement } from '../../../backend/types.js';
import { settlementFigures, VAT_RATE } from '../../../domain/fees.js';
import { applyRate } from '../../../domain/money.js';
import { money } from '../../output/format.js';
import type { Ui } from '../../output/ui.js';

export function showSettlement(ui: Ui, s: Settlement): void {
  // A regenerated statement: the period's net, less what was already paid for the period, is due.
  const regenerated = (s.previously_paid ?? 0) !== 0 || s.supersedes != null;
  const periodNet = s.net_amount + (s.previously_paid ?? 0);
  // Money right-aligned so the statement reads as a sum.
  const width = Math.max(
    ...[s.total_collections, s.distribution_fee, s.collections_fee, s.total_fees, s.vat, s.net_amount, ...(regenerated ? [periodNet, s.previously_paid] : [])].map((c) => ui.money(c).length),
  );
  const m = (cents: number) => ui.money(cents).padStart(width);
  const pairs: Array<[string, string | number | null]> = [
    ['settlement_number', s.settlement_number],
    ['id', s.id],
    ['period_month', s.period_month],
    ['status', s.status],
    // A server that implements only the spec may leave out premia's extra fields (shown as -).
    ['collections', s.collections_count == null ? null : ui.count(s.collections_count)],
    ['total_collections', m(s.total_collections)],
    ['distribution_fee', m(s.distribution_fee)],
    ['collections_fee', m(s.collections_fee)],
    ['total_fees', m(s.total_fees)],
    ['vat', m(s.vat)],
    ...(regenerated
      ? ([
          ['period_net', m(periodNet)],
          ['previously_paid', m(s.previously_paid)],
        ] as Array<[string, string]>)
      : []),
    ['net_amount', m(s.net_amount)],
    ['payment_date', s.payment_date],
    ['payment_reference', s.payment_reference],
    ['created_at', s.created_at],
  ];
  if (s.paid_on != null) pairs.push(['paid_on', s.paid_on], ['paid_reference', s.paid_reference]);
  if (s.disputed_on != null) pairs.push(['disputed_on', s.disputed_on], ['dispute_reason', s.dispute_reason]);
  if (s.supersedes != null) pairs.push(['supersedes', s.supersedes]);
  if (s.superseded_by != null) pairs.push(['superseded_by', s.superseded_by]);
  ui.keyValues(pairs);
}

/** `--json` prints the API body; otherwise the statement. */
/** The statement as it is now; null when the service cannot say (a warning's read that fails changes nothing). */
export async function settlementNow(b: Backend, ref: string): Promise<Settlement | null> {
  try {
    return await b.getSettlement(ref);
  } catch {
    return null;
  }
}

export function printSettlement(ui: Ui, s: Settlement): void {
  if (ui.json) ui.printJson(s);
  else showSettlement(ui, s);
}

/**
 * The statement's figures against the spec's fee rule, each rule applied to the statement's own
 * figures (a cent either way is left alone): the fees from its total, total_fees from its two
 * fees, the VAT from its total_fees, the net from its total, fees and VAT. The spec does not
 * state the rounding, so a server that rounds half to even (.NET's Math.Round) or truncates may
 * differ from premia's half-up by a cent in each fee, two in their sum, and more in the net
 * computed from premia's own figures: never a sign of a wrong statement while each rule holds.
 */
export function feeRuleWarnings(s: Settlement): string[] {
  const out: string[] = [];
  // The figures already said to be off the rule (not said again below).
  const saidOff = new Set<string>();
  const own = [s.distribution_fee, s.collections_fee, s.total_fees, s.vat, s.previously_paid ?? 0];
  if (Number.isSafeInteger(s.total_collections) && s.total_collections >= 0 && own.every((v) => Number.isSafeInteger(v))) {
    const rule = settlementFigures(s.total_collections);
    const fees = s.distribution_fee + s.collections_fee;
    const expected = {
      distribution_fee: rule.distribution_fee,
      collections_fee: rule.collections_fee,
      total_fees: fees,
      vat: applyRate(s.total_fees, VAT_RATE),
      net_amount: s.total_collections - s.total_fees - s.vat - (s.previously_paid ?? 0),
    };
    const off = (Object.keys(expected) as Array<keyof typeof expected>).filter((k) => Math.abs(s[k] - expected[k]) > 1);
    for (const k of off) saidOff.add(k);
    if (off.length > 0) {
      const shown = off.map((k) => `${k} ${money(s[k])} (the rule gives ${money(expected[k])})`).join(', ');
      out.push(`the statement's figures do not follow the fee rule (25 % + 3.5 % of ${money(s.total_collections)}, 15 % VAT on the fees): ${shown}. Check them with the service before paying.`);
    }
  }
  // The spec's rules 3 and 5 leave nothing to round: a statement whose figures do not add up to
  // the cent is wrong whatever its rounding (each figure may still be within a cent of the rule).
  // A figure already said to be off the rule is not said again.
  const sums = [s.total_collections, s.distribution_fee, s.collections_fee, s.total_fees, s.vat, s.net_amount, s.previously_paid ?? 0];
  if (sums.every((v) => Number.isSafeInteger(v))) {
    const paid = s.previously_paid ?? 0;
    const wrong: string[] = [];
    const fees = s.distribution_fee + s.collections_fee;
    if (s.total_fees !== fees && !saidOff.has('total_fees')) wrong.push(`total_fees ${money(s.total_fees)} is not distribution_fee + collections_fee (${money(fees)})`);
    const net = s.total_collections - s.total_fees - s.vat - paid;
    if (s.net_amount !== net && !saidOff.has('net_amount')) {
      wrong.push(`net_amount ${money(s.net_amount)} is not total_collections − total_fees − vat${paid !== 0 ? ' − previously_paid' : ''} (${money(net)})`);
    }
    if (wrong.length > 0) out.push(`the statement does not add up: ${wrong.join('; ')}. Check it with the service before paying.`);
  }
  return out;
}
