/** An account whose activity was imported from a bank transactions CSV. */
import type { ImportedRow } from './ports.js';
import type { AccountEvent, AccountSource, Credit, DayActivity } from './types.js';

export type { ImportedRow };

export class ImportedAccount implements AccountSource {
  readonly kind = 'imported' as const;
  readonly startDay: number;
  private readonly byDay = new Map<number, ImportedRow[]>();
  private readonly sortedCredits: Credit[] = [];

  /** `rows` in file order (their order within a day is the order debits post). */
  constructor(rows: ImportedRow[]) {
    let start = Number.POSITIVE_INFINITY;
    for (const row of rows) {
      let list = this.byDay.get(row.day);
      if (!list) this.byDay.set(row.day, (list = []));
      list.push(row);
      if (row.day < start) start = row.day;
      if (row.amount > 0) this.sortedCredits.push({ day: row.day, amount: row.amount });
    }
    this.sortedCredits.sort((a, b) => a.day - b.day);
    this.startDay = Number.isFinite(start) ? start : 0;
  }

  dayActivity(day: number, out: DayActivity): void {
    out.clear();
    const rows = this.byDay.get(day);
    if (!rows) return;
    for (const row of rows) {
      if (row.amount > 0) out.addCredit(row.amount, row.description);
      else if (row.amount < 0) out.addDebit(-row.amount, row.description);
      else out.addEvent(row.description as AccountEvent);
    }
  }

  credits(from: number, to: number): Credit[] {
    return this.sortedCredits.filter((c) => c.day >= from && c.day <= to);
  }

  events(): Array<{ event: AccountEvent; day: number }> {
    const out: Array<{ event: AccountEvent; day: number }> = [];
    for (const [day, rows] of this.byDay) {
      for (const row of rows) if (row.amount === 0) out.push({ event: row.description as AccountEvent, day });
    }
    return out;
  }
}
