/**
 * Whether a period's collections report is final: the state of the period as the report was
 * read. The spec's report has no room for it (the CSV is exactly its 13 columns), so it travels
 * beside the report: a field `period_state` of the JSON report, the response header
 * `Premia-Period-State` of GET /reports/collections (CSV and JSON), and a note on a terminal.
 *
 *   closed   the period's last day has run and it has collections: the report is final
 *   open     it has collections and its last day has not run: results still change
 *   not_run  it has no collections (never executed; if its last day has run, never will be)
 *
 * `as_of` is the last day whose results the report holds: the clock's date, but never after the
 * period's last day, so the report of a closed period stays byte-identical as the clock moves on.
 */
import { isIsoDate, lastDay, type IsoDate, type Period } from './period.js';

export const PERIOD_STATES = ['open', 'closed', 'not_run'] as const;
export type PeriodStateName = (typeof PERIOD_STATES)[number];

export interface PeriodState {
  state: PeriodStateName;
  as_of: IsoDate;
  /** The period's last day: once it has run, the period is closed. */
  closes_on: IsoDate;
  /** Collections not final yet (UNPAID or PAID_PARTIAL while the period is open); 0 otherwise. */
  open_collections: number;
}

/** The response header that carries a report's PeriodState. */
export const PERIOD_STATE_HEADER = 'premia-period-state';

export function periodStateOf(period: Period, today: IsoDate, collections: number, openCollections: number): PeriodState {
  const closes_on = lastDay(period);
  const closed = today >= closes_on;
  return {
    state: collections === 0 ? 'not_run' : closed ? 'closed' : 'open',
    as_of: closed ? closes_on : today,
    closes_on,
    open_collections: collections === 0 || closed ? 0 : openCollections,
  };
}

/** `open; as_of=2026-11-10; closes_on=2026-11-30; open_collections=275` */
export function formatPeriodStateHeader(s: PeriodState): string {
  return `${s.state}; as_of=${s.as_of}; closes_on=${s.closes_on}; open_collections=${s.open_collections}`;
}

/** The header's PeriodState, or null when it is absent or not one premia writes. */
export function parsePeriodStateHeader(value: string | string[] | undefined): PeriodState | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string') return null;
  const [state, ...params] = text.split(';').map((p) => p.trim());
  if (!(PERIOD_STATES as readonly string[]).includes(state ?? '')) return null;
  const fields = new Map(params.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)] as const));
  const asOf = fields.get('as_of');
  const closesOn = fields.get('closes_on');
  const open = fields.get('open_collections');
  if (!isIsoDate(asOf) || !isIsoDate(closesOn) || open === undefined || !/^\d{1,15}$/.test(open)) return null;
  return { state: state as PeriodStateName, as_of: asOf, closes_on: closesOn, open_collections: Number(open) };
}

/** What a person reading the report should know, or null when it is final. */
export function periodStateNote(period: Period, s: PeriodState): string | null {
  if (s.state === 'closed') return null;
  if (s.state === 'not_run') {
    return s.as_of >= s.closes_on
      ? `${period} was never run: it has no collections, and its last day ${s.closes_on} has passed.`
      : `${period} has not been run: it has no collections (the clock is at ${s.as_of}).`;
  }
  const n = s.open_collections;
  // Not "still being collected": an account closed or a policy lapsed ends the debits before the close.
  const still =
    n === 0
      ? 'every one of its collections is paid in full or cancelled, but more may be queued'
      : `${n === 1 ? '1 collection is' : `${n.toLocaleString('en-US')} collections are`} not paid in full yet`;
  return `${period} is open: the clock is at ${s.as_of}; ${still} (the report is final once ${s.closes_on} has run).`;
}
