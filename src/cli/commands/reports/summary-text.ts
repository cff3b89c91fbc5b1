/**
 * `premia reports summary` on a terminal: the month's figures as text, with a bar chart of the
 * cumulative share collected by day. `fancy` (stdout a colour terminal: not piped, no NO_COLOR,
 * no --no-color, TERM not dumb) draws the bars with Unicode blocks; otherwise every character is
 * plain ASCII. Money has thousands separators here (human output only; never in --json).
 */
import { periodStateNote } from '../../../domain/period-state.js';
import { count } from '../../../domain/words.js';
import { percentOf } from '../../output/format.js';
import { moneyText } from '../../output/table.js';
import type { SummaryFigures } from '../../../simulation/month-figures.js';

export interface TextStyle {
  /** Unicode block bars (else plain ASCII). */
  fancy: boolean;
  /** Headings (bold on a colour terminal, else the text as it is). */
  heading: (text: string) => string;
}

/** Width of a 100% bar, in characters. */
export const BAR_WIDTH = 40;

/** 123456789 → "1,234,567.89" (cents; human output only). */
export const groupedMoney = (cents: number): string => moneyText(cents, true);

/** 1234567 → "1,234,567". */
export const groupedCount = count;

/**
 * What to say of a month with no debit attempted: "yet" only while its last day has not run (a
 * closed month, or one never run whose last day has passed, will see none).
 */
export function noAttemptsText(s: SummaryFigures): string {
  const st = s.period_state;
  return st !== null && st.as_of >= st.closes_on ? `No debit was attempted in ${s.period_month}.` : 'No debit has been attempted yet.';
}

/** What the income-pattern table says of a month without collections (it has no row). */
export function noCollectionsText(s: SummaryFigures): string {
  return `${s.period_month} has no collections.`;
}

/**
 * Why a month has no settlement statement, and whether `settlements create` can make one now:
 * only for a closed period with collections (it refuses an open one, PERIOD_OPEN, and one with
 * none, NO_COLLECTIONS). An older server's report, without the period's state, gets the command.
 */
export function noSettlementText(s: SummaryFigures): { none: 'none' | 'none yet'; reason: string | null } {
  const st = s.period_state;
  const p = s.period_month;
  if (st?.state === 'not_run') return { none: 'none', reason: `${p} has no collections to settle` };
  if (st?.state === 'open') return { none: 'none yet', reason: `one can be made once ${p} has closed (its last day, ${st.closes_on}, has run)` };
  return { none: 'none yet', reason: null };
}

/** A bar of `rate` × BAR_WIDTH characters, padded to BAR_WIDTH. */
export function bar(rate: number, fancy: boolean): string {
  const cells = Math.max(0, Math.min(1, rate)) * BAR_WIDTH;
  // Only the whole of what is due fills the bar, as only it is shown as 100.0%.
  if (!fancy) {
    const full = Math.min(Math.round(cells), rate < 1 ? BAR_WIDTH - 1 : BAR_WIDTH);
    return '#'.repeat(full) + ' '.repeat(BAR_WIDTH - full);
  }
  let full = Math.floor(cells);
  let eighths = Math.round((cells - full) * 8);
  if (eighths === 8) {
    full++;
    eighths = 0;
  }
  if (rate < 1 && full === BAR_WIDTH) {
    full = BAR_WIDTH - 1;
    eighths = 7;
  }
  const part = eighths === 0 ? '' : ' ▏▎▍▌▋▊▉'[eighths]!;
  return '█'.repeat(full) + part + ' '.repeat(BAR_WIDTH - full - part.length);
}

interface Col<T> {
  header: string;
  value: (row: T) => string;
  right?: boolean;
}

/** A plain table: columns two spaces apart, numbers right-aligned, no trailing blanks. */
function table<T>(columns: Col<T>[], rows: T[], style: TextStyle): string[] {
  const cells = rows.map((r) => columns.map((c) => c.value(r)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (columns[i]!.right ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [style.heading(line(columns.map((c) => c.header))), ...cells.map(line)];
}

export function renderSummaryText(s: SummaryFigures, style: TextStyle): string {
  const out: string[] = [];
  const dash = style.fancy ? '—' : '-';
  const state = s.period_state === null ? '' : ` ${dash} ${s.period_state.state === 'closed' ? 'closed, final' : s.period_state.state.replace('_', ' ')}`;
  out.push(style.heading(`Collections ${s.period_month}${state}`));
  const note = s.period_state === null ? null : periodStateNote(s.period_month, s.period_state);
  if (note !== null) out.push(note);
  out.push(`Collected  ${groupedMoney(s.collected)} of ${groupedMoney(s.due)} due (${percentOf(s.collected, s.due)}); shortfall ${groupedMoney(s.shortfall)}`);
  const st = s.by_status;
  out.push(
    `Policies   ${groupedCount(s.policies)}: ${groupedCount(st.PAID_FULL)} paid in full, ${groupedCount(st.PAID_PARTIAL)} partly paid, ` +
      `${groupedCount(st.UNPAID)} unpaid, ${groupedCount(st.CANCELLED)} cancelled`,
  );
  out.push(`Attempts   ${groupedCount(s.attempts)}, ${groupedCount(s.failed_attempts)} failed`);

  out.push('', style.heading('Collected by day (cumulative share of what is due)'));
  if (s.by_day.length === 0) out.push(noAttemptsText(s));
  const edge = style.fancy ? '│' : '|';
  const amounts = s.by_day.map((d) => (d.collected === 0 ? '' : `+${groupedMoney(d.collected)}`));
  const amountWidth = Math.max(0, ...amounts.map((a) => a.length));
  s.by_day.forEach((d, i) => {
    const line = `${d.date.slice(5)} ${edge}${bar(d.cumulative_rate, style.fancy)}${edge} ${percentOf(d.amount_collected, s.due).padStart(6)}  ${amounts[i]!.padStart(amountWidth)}`;
    out.push(line.trimEnd());
  });

  out.push('', style.heading('By income pattern'));
  if (s.by_income_pattern === null) out.push(`Income patterns ${s.patterns_note ?? 'not analysed'}.`);
  else if (s.by_income_pattern.length === 0) out.push(noCollectionsText(s));
  else {
    out.push(
      ...table(
        [
          { header: 'income pattern', value: (p) => p.pattern },
          { header: 'policies', value: (p) => groupedCount(p.policies), right: true },
          { header: 'paid in full', value: (p) => groupedCount(p.paid_full), right: true },
          { header: 'due', value: (p) => groupedMoney(p.due), right: true },
          { header: 'collected', value: (p) => groupedMoney(p.collected), right: true },
          { header: 'share', value: (p) => percentOf(p.collected, p.due), right: true },
          { header: 'failed attempts', value: (p) => groupedCount(p.failed_attempts), right: true },
        ],
        s.by_income_pattern,
        style,
      ),
    );
  }

  out.push('', style.heading('Failures by reason'));
  if (s.failures_by_reason.length === 0) out.push('No debit failed.');
  else {
    out.push(
      ...table(
        [
          { header: 'reason', value: (f) => f.reason },
          { header: 'failed attempts', value: (f) => groupedCount(f.attempts), right: true },
          { header: 'amount asked', value: (f) => groupedMoney(f.failed_amount), right: true },
          { header: 'policies not paid in full', value: (f) => groupedCount(f.policies), right: true },
        ],
        s.failures_by_reason,
        style,
      ),
    );
  }

  out.push('');
  const t = s.settlement;
  if (t === null) {
    const none = noSettlementText(s);
    out.push(
      none.reason === null
        ? `${style.heading('Settlement')}: none made for ${s.period_month} yet (premia settlements create --period ${s.period_month}).`
        : `${style.heading('Settlement')}: ${none.none}: ${none.reason}.`,
    );
  }
  else {
    out.push(style.heading(`Settlement ${t.settlement_number}`) + ` (${t.status}; EFT on ${t.payment_date}, reference ${t.payment_reference})`);
    const pairs: Array<[string, number]> = [
      ['total collections', t.total_collections],
      ['distribution fee', t.distribution_fee],
      ['collections fee', t.collections_fee],
      ['VAT on fees', t.vat],
      ...(t.previously_paid === 0 ? [] : [['previously paid', t.previously_paid] as [string, number]]),
      ['net amount', t.net_amount],
    ];
    const kw = Math.max(...pairs.map(([k]) => k.length));
    const vw = Math.max(...pairs.map(([, v]) => groupedMoney(v).length));
    for (const [k, v] of pairs) out.push(`  ${k.padEnd(kw)}  ${groupedMoney(v).padStart(vw)}`);
  }
  return `${out.join('\n')}\n`;
}
