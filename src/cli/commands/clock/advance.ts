import type { AdvanceTarget } from '../../../backend/types.js';
import { usageError } from '../../../domain/errors.js';
import { count, money } from '../../output/format.js';
import { startProgress } from '../../output/progress.js';
import type { CommandEnv } from '../action.js';

export default async function advance({ opts, ui, backend }: CommandEnv): Promise<number> {
  const given = ['days', 'to', 'toMonthEnd'].filter((k) => opts[k] !== undefined && opts[k] !== false);
  if (given.length !== 1) throw usageError('Say how far to advance with exactly one of --days N, --to YYYY-MM-DD or --to-month-end.');
  const target: AdvanceTarget = {};
  if (opts.days !== undefined) {
    const days = Number(opts.days);
    if (!/^\d+$/.test(String(opts.days)) || days > 3660) throw usageError('--days must be a whole number from 0 to 3660.');
    target.days = days;
  } else if (opts.to !== undefined) target.to = opts.to as string;
  else target.to_month_end = true;

  const b = await backend();
  const progress = await startProgress(ui, 'Advancing the clock…');
  let collected = 0;
  let result;
  try {
    result = await b.advanceClock(target, {
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
