import type { AdvanceTarget } from '../../../backend/types.js';
import { usageError, validationError } from '../../../domain/errors.js';
import { MAX_ADVANCE_DAYS, MIN_ADVANCE_DAYS, validateAdvanceRequest } from '../../../domain/requests.js';
import { count, money } from '../../output/format.js';
import { startProgress } from '../../output/progress.js';
import type { CommandEnv } from '../action.js';

export default async function advance({ opts, ui, backend }: CommandEnv): Promise<number> {
  const given = ['days', 'to', 'toMonthEnd'].filter((k) => opts[k] !== undefined && opts[k] !== false);
  if (given.length !== 1) throw usageError('Say how far to advance with exactly one of --days N, --to YYYY-MM-DD or --to-month-end.');
  const raw: Record<string, unknown> = {};
  if (opts.days !== undefined) {
    const text = String(opts.days);
    if (!/^\d{1,9}$/.test(text)) {
      throw validationError(`--days must be a whole number from ${MIN_ADVANCE_DAYS} to ${MAX_ADVANCE_DAYS} (ten years); got '${text.slice(0, 40)}'.`);
    }
    raw.days = Number(opts.days);
  } else if (opts.to !== undefined) raw.to = opts.to;
  else raw.to_month_end = true;
  // Checked as the service checks POST /clock/advance, so a problem reads the same in both modes.
  const target: AdvanceTarget = validateAdvanceRequest(raw);

  const b = await backend();
  const progress = await startProgress(ui, 'Advancing the clock…');
  let collected = 0;
  let result;
  try {
    result = await b.advanceClock(target, {
      onWait: (h) => progress.update(`Waiting for another clock advance (${h.from} to ${h.to}, process ${h.pid}) to finish…`),
      onDay: (day, index, total) => {
        collected += day.collected;
        progress.update(`Day ${index} of ${total} (${day.date}): ${count(day.attempts)} attempts, ${money(collected)} collected so far`);
      },
    });
  } catch (e) {
    progress.fail('Advancing the clock stopped; the store is at the end of the last whole day.');
    throw e;
  }
  progress.stop();
  if (ui.json) {
    ui.printJson(result);
    return 0;
  }
  if (result.days.length > 0) {
    ui.table(
      [
        { header: 'date', value: (d) => d.date },
        { header: 'attempts', value: (d) => d.attempts, align: 'right' },
        { header: 'succeeded', value: (d) => d.succeeded, align: 'right' },
        { header: 'failed', value: (d) => d.failed, align: 'right' },
        { header: 'collected', value: (d) => money(d.collected), align: 'right' },
        { header: 'closed', value: (d) => (d.closed_period ? `${d.closed_period}${d.lapsed_policies ? ` (${d.lapsed_policies} lapsed)` : ''}` : '') },
      ],
      result.days,
    );
  }
  const total = result.days.reduce((s, d) => s + d.collected, 0);
  ui.status(`Clock moved from ${result.from} to ${result.to}: ${result.days.length} days lived, ${money(total)} collected.`);
  return 0;
}
