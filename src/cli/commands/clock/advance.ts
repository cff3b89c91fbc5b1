import type { AdvancePreview, AdvanceResult, AdvanceTarget, Backend, ClockState } from '../../../backend/types.js';
import { advanceTargetDate, daysBetween, periodsClosedBetween } from '../../../domain/advance.js';
import { addDays, periodOf, type IsoDate, type Period } from '../../../domain/period.js';
import { PremiaError, usageError } from '../../../domain/errors.js';
import { checkDateOption, checkWholeNumberOption, MAX_ADVANCE_DAYS, MIN_ADVANCE_DAYS, validateAdvanceRequest } from '../../../domain/requests.js';
import { askOrCancel, confirmMode, nameList, needsYes, neverRunNeedsYes, othersNeverRunNeedsYes, periodList, stopped, unlessUnsupported } from '../../confirm.js';
import { catchCtrlC } from '../../interrupt.js';
import { money, plural } from '../../output/format.js';
import { SILENT, startProgress } from '../../output/progress.js';
import { advanceLine } from '../../output/live.js';
import type { Ui } from '../../output/ui.js';
import { advanceQuestion, notQueued, plainAdvanceQuestion, queuesThem } from '../../questions.js';
import { verb, type CommandDeps } from '../../command.js';
import { keyedOnce, repeatedAnswerNote, replayedNow, type KeyedOutcome } from '../../keyed-write.js';
import { OPERATIONS } from '../../../backend/operations.js';
import { advanceFiguresNote } from '../../other-clients.js';

interface Flags {
  days?: string;
  to?: string;
  toMonthEnd?: boolean;
  dryRun?: boolean;
}

export interface AdvanceOptions extends CommandDeps {
  target: AdvanceTarget;
  /** Say what the advance would do, and change nothing. */
  dryRun: boolean;
}

export function advanceOptions(deps: CommandDeps, flags: Flags): AdvanceOptions {
  const given = [flags.days, flags.to, flags.toMonthEnd].filter((v) => v !== undefined && v !== false);
  if (given.length !== 1) throw usageError('Say how far to advance with exactly one of --days N, --to YYYY-MM-DD or --to-month-end.');
  const raw: Record<string, unknown> = {};
  if (flags.days !== undefined) {
    // The option named, and what it was given, whichever way it is wrong (3661 as -1, not the request's field).
    raw.days = checkWholeNumberOption(String(flags.days), '--days', MIN_ADVANCE_DAYS, MAX_ADVANCE_DAYS, ' (ten years)');
  } else if (flags.to !== undefined) {
    // `--to "$DATE"` with DATE unset: the service's words for a missing field name no option.
    if (flags.to.trim() === '') throw usageError('--to is empty; give the last day to live, written YYYY-MM-DD (e.g. 2026-11-30).');
    raw.to = checkDateOption(flags.to, '--to');
  }
  else raw.to_month_end = true;
  // Checked as the service checks POST /clock/advance, so a problem reads the same in both modes.
  return { ...deps, target: validateAdvanceRequest(raw), dryRun: flags.dryRun === true };
}

export async function advanceRun(opts: AdvanceOptions): Promise<number> {
  const { ctx, ui, backend, target } = opts;
  const b = await backend();
  if (opts.dryRun) {
    printPreview(ui, await b.previewAdvance(target));
    return 0;
  }
  // Unattended, the service judges the close again once this advance's turn has come (another
  // may move the clock while it waits; an Idempotency-Key's first use is checked too).
  const unattended = confirmMode(opts) === 'unattended';
  const key = opts.globals.idempotencyKey;
  // What a rerun's --idempotency-key will do, read (once) before anything is asked or refused:
  // the earlier answer repeated, or a refusal (the key another request's), acts on nothing. The
  // request as it is sent (unattended, judged by the store: safe_close).
  const keyed = keyedOnce(b, key, 1, OPERATIONS.advanceClock, [unattended ? { ...target, safe_close: true } : target]);
  // What is run: after a question, the date it named (see confirmAdvance). A rerun its key answers
  // without acting is asked nothing: asked first, it was asked about closing the period the clock
  // would close now, then answered with the earlier run's advance. The key's record is read
  // whenever a key is given (after the advance it would be this run's as much as an earlier
  // one's): a cron job's retry that repeats an answer says so, as one by hand does.
  const outcome = key === undefined ? null : await keyed.outcome();
  const run = outcome !== null ? target : await confirmAdvance(opts, b, target, keyed.outcome);

  // Never "Advancing the clock…" for an advance that will only repeat an earlier answer, or be
  // refused for its key (another request's): no day is about to be lived.
  const progress =
    outcome === null ? await startProgress(ui, 'Advancing the clock…') : outcome.kind === 'replay' ? await startProgress(ui, `Repeating the earlier advance of idempotency key '${key}'…`) : SILENT;
  const remote = b.mode === 'remote';
  const ctrlC = catchCtrlC(ctx, () => {
    progress.stop();
    ui.status(remote ? 'Ctrl-C: no longer waiting for the service.' : 'Ctrl-C: stopping after the day in progress (press Ctrl-C again to quit at once).');
  });
  let collected = 0;
  /** The days committed so far (local mode says them as they commit), for a failure's note. */
  const committed: { first: string | null; last: string | null; count: number } = { first: null, last: null, count: 0 };
  let result: AdvanceResult;
  try {
    result = await b.advanceClock(unattended ? { ...run, safe_close: true } : run, {
      onWait: (h) => progress.update(waitingFor(h), true),
      signal: ctrlC.signal,
      onDay: (day, index, total) => {
        collected += day.collected;
        committed.first ??= day.date;
        committed.last = day.date;
        committed.count = index;
        progress.update(advanceLine(index, total, day.date, day.attempts, collected));
      },
    });
  } catch (e) {
    const unsafe = unsafeClose(e);
    if (unsafe) {
      progress.stop();
      throw unsafe;
    }
    // Refused for its key before any day (another request's, or a run of it still going): no
    // "stopped" with days to account for.
    if (e instanceof PremiaError && (e.code === 'IDEMPOTENCY_KEY_REUSED' || e.code === 'IDEMPOTENCY_IN_PROGRESS') && committed.count === 0) {
      progress.stop();
      throw e;
    }
    if (ctrlC.signal.aborted && e instanceof PremiaError && e.code === 'CANCELLED') {
      throw stopped(
        "Stopped by Ctrl-C: premia stopped waiting for the service, which may still finish the advance; 'premia clock' shows the date it has reached.",
      );
    }
    progress.fail('Advancing the clock stopped; the store is at the end of the last whole day.');
    // Days did commit: where the clock is, and how to finish this advance (run again, --days
    // would count from there: a cron job's retry would go too far).
    const { first, last, count } = committed;
    const to = first === null ? null : advanceTargetDate(addDays(first, -1), run);
    if (to !== null && last !== null && last < to && !ui.json) {
      // Its right to advance lost, another advance may have moved the clock since.
      const lost = e instanceof PremiaError && (e.details ?? []).some((d) => (d as { code?: string }).code === 'ADVANCE_CLAIM_LOST');
      ctx.stderr.write(
        lost
          ? `premia: ${plural(count, 'day')} of this advance committed before it stopped, the last ${last}. Another advance may have gone on since: ` +
            `if 'premia clock' still shows ${last}, run 'premia clock advance --to ${to}' to finish this one.\n`
          : remote
            ? // Days seen in the service's progress: it may have lived more before the answer stopped coming.
              `premia: at least ${plural(count, 'day')} of this advance committed (the last seen ${last}); the service may have lived more. ` +
              `'premia clock' shows where the clock is.${finishWith(to, 'where it is')}\n`
            : `premia: ${plural(count, 'day')} of this advance committed before it stopped: the clock is at ${last}.${finishWith(to, last)}\n`,
      );
    }
    throw e;
  } finally {
    ctrlC.release();
  }
  progress.stop();
  if (ui.json) ui.printJson(result);
  else if (result.days.length > 0) {
    ui.table(
      [
        { header: 'date', value: (d) => d.date },
        { header: 'attempts', value: (d) => d.attempts, align: 'right' },
        { header: 'succeeded', value: (d) => d.succeeded, align: 'right' },
        { header: 'failed', value: (d) => d.failed, align: 'right' },
        { header: 'collected', value: (d) => d.collected, money: true },
        { header: 'closed', value: (d) => (d.closed_period ? `${d.closed_period}${d.lapsed_policies ? ` (${d.lapsed_policies} lapsed)` : ''}` : '') },
      ],
      result.days,
    );
  }
  const total = result.days.reduce((s, d) => s + d.collected, 0);
  if (ctrlC.signal.aborted) {
    const end = advanceTargetDate(result.from, run);
    const planned = daysBetween(result.from, end);
    const lived = result.days.length;
    // Run again, --days would count from where the clock stopped and go past this advance's end
    // (--to and --to-month-end, run again, end where this one would have).
    const finish = target.days !== undefined && result.to < end ? finishWith(end, result.to) : '';
    throw stopped(
      lived === 0
        ? `Stopped by Ctrl-C before the first day: no day lived; the clock is still at ${result.to}.`
        : `Stopped by Ctrl-C after ${result.to}: ${lived} of ${plural(planned, 'day')} lived, ${money(total)} collected; the clock is at ${result.to}.${finish}`,
    );
  }
  // Already there (--days 0, --to today, or an overlapping advance that got there first): "Clock
  // moved from X to X" read as if something had happened.
  if (!ui.json && result.days.length === 0 && result.from === result.to) ui.status(`The clock is already at ${result.to}: no day to live; nothing changed.`);
  else if (!ui.json) {
    ui.status(`Clock moved from ${result.from} to ${result.to}: ${plural(result.days.length, 'day')} lived, ${money(total)} collected.`);
    // (Best effort: the advance is done. Not for a replay known as one: it lived nothing now.)
    const lived = outcome?.kind === 'replay' ? [] : [...new Set(result.days.map((d) => periodOf(d.date)))];
    const others = await advanceFiguresNote(opts, lived).catch(() => null);
    if (others !== null) ui.note(others);
  }
  // A rerun with --idempotency-key is answered with the first run's result: known so from the
  // key's record (read before the advance), or once the clock has moved on since (a server that
  // cannot say), that read as if these days were lived now and the clock stood at their end.
  if (key !== undefined) {
    // (Best effort: the advance is done, whatever reading the clock now answers.)
    // (Known from the record read before, or from the advance's own answer.)
    const replayed = outcome?.kind === 'replay' || replayedNow(b, OPERATIONS.advanceClock);
    const now = outcome !== null || replayed || !ui.json ? await clockOf(b).catch(() => null) : null;
    if (replayed || (now !== null && now.date > result.to)) {
      const nothing = now === null ? 'no day was lived now' : `no day was lived now, and the clock is at ${now.date}`;
      // Its --to already reached: the same --to would live nothing; days from where the clock is would.
      const reached = now !== null && target.to !== undefined && now.date >= target.to;
      const command = `premia clock advance ${reached ? '--days N' : targetOptions(target)}`;
      ui.warn(repeatedAnswerNote(key, nothing, { command, does: now === null ? 'advances the clock' : 'advances it from there' }));
    }
  }
  return 0;
}

/** The options of `clock advance` that ask for `target`. */
function targetOptions(target: AdvanceTarget): string {
  return target.days !== undefined ? `--days ${target.days}` : target.to !== undefined ? `--to ${target.to}` : '--to-month-end';
}

/**
 * On a terminal, say what closes and ask; unattended, refuse without --yes to close more than one
 * period, or one that was never run (no collections queued: its premiums could never be collected).
 * The target to run: once a question named the date the advance ends on, that date (`--to`), so
 * that another advance run meanwhile (a cron job's, while the question waited) cannot carry
 * `--days N` or `--to-month-end` past it, into days and periods that were never asked about. With
 * --idempotency-key the target stays as given: a rerun is known by its request.
 */
async function confirmAdvance(env: CommandDeps, b: Backend, target: AdvanceTarget, keyed: () => Promise<KeyedOutcome | null>): Promise<AdvanceTarget> {
  const mode = confirmMode(env);
  const asked = (to: IsoDate): AdvanceTarget => (env.globals.idempotencyKey === undefined ? { to } : target);
  if (mode === 'yes') return target;
  if (mode === 'unattended') {
    // Before the first collections run nothing is final (`clock set` can still move the clock back).
    const clock = await clockOf(b);
    if (clock === null) return target; // a server without the clock: the advance says so itself
    const closes = periodsClosedBetween(clock.date, advanceTargetDate(clock.date, target));
    if (!clock.locked || closes.length === 0) return target;
    // (Not when the key will answer without acting: a rerun repeating the earlier advance, or refused.)
    if (closes.length > 1) {
      if ((await keyed()) !== null) return target;
      throw needsYes(closes);
    }
    // With an idempotency key this may be a cron job's rerun, which the store answers with the
    // first run's result (a rerun of --to-month-end on the 30th is not a new month's advance):
    // the service judges the close (safe_close) only when the key is new, as it runs it.
    if (env.globals.idempotencyKey !== undefined) return target;
    // One collection is enough to know the period was run (the preview would count them all).
    let run: boolean;
    try {
      run = (await b.listCollections({ period_month: closes[0]!, limit: 1 })).data.length > 0;
    } catch (e) {
      if (e instanceof PremiaError && e.code === 'NOT_SUPPORTED') return target; // a server without the list: the dates alone
      throw e;
    }
    // The clock is the store's, the check this client's: a client with no active policy (an
    // operator's own, with the books under other clients) has nothing a missed run could lose.
    if (!run && (await b.listPolicies({ status: 'active', limit: 1 })).data.length > 0) throw neverRunNeedsYes(closes[0]!);
    // The store's other clients are judged by the store itself, as the advance runs (safe_close):
    // no preview of the whole period's figures for that (counts over the period's collections,
    // slow at a million policies).
    return target;
  }
  const preview = await previewOf(b, target);
  if (preview === null) {
    // A server without the preview: the dates alone.
    const clock = await clockOf(b);
    if (clock === null) return target;
    const to = advanceTargetDate(clock.date, target);
    if (!clock.locked || to <= clock.date || periodsClosedBetween(clock.date, to).length === 0) return target;
    await askOrCancel(env, plainAdvanceQuestion(clock.date, to, daysBetween(clock.date, to)));
    return asked(to);
  }
  if (!preview.locked || preview.periods_closed.length === 0) return target;
  await askOrCancel(env, advanceQuestion(preview));
  return asked(preview.to);
}

/** The refusal of an unattended advance the service judged unsafe to close (safe_close), as the CLI words it; null for any other error. */
function unsafeClose(e: unknown): PremiaError | null {
  if (!(e instanceof PremiaError) || e.code !== 'CONFLICT') return null;
  const d = (e.details ?? [])[0] as { field?: string; code?: string; periods?: Period[]; clients?: string[]; own?: boolean } | undefined;
  if (d?.field !== 'safe_close' || !Array.isArray(d.periods) || d.periods.length === 0) return null;
  if (d.code === 'SEVERAL_PERIODS') return needsYes(d.periods);
  if (d.own === true) return neverRunNeedsYes(d.periods[0]!);
  return othersNeverRunNeedsYes(d.periods[0]!, d.clients ?? []);
}

/** The advance's preview, or null from a server that does not offer it. */
const previewOf = (b: Backend, target: AdvanceTarget): Promise<AdvancePreview | null> => unlessUnsupported(() => b.previewAdvance(target));

/** The clock, or null from a server that does not offer it. */
const clockOf = (b: Backend): Promise<ClockState | null> => unlessUnsupported(() => b.getClock());

function printPreview(ui: Ui, p: AdvancePreview): void {
  if (ui.json) {
    ui.printJson(p);
    return;
  }
  const periods = p.periods_closed.map((c) => c.period_month);
  const d = p.planned_debits;
  ui.keyValues([
    ['from', p.from],
    ['to', p.to],
    ['days', p.days],
    ['periods closed', periods.length === 0 ? 'none' : periods.length === 1 ? periods[0] : `${periods.length} (${periodList(periods)})`],
    ['planned debits', d.count === 0 ? 'none yet' : `${ui.count(d.count)} for ${ui.money(d.amount)} (${d.first_date === d.last_date ? d.first_date : `${d.first_date} to ${d.last_date}`})`],
    ['locked', p.locked ? 'yes (a collections run exists: closed periods are final)' : 'no (no collections run yet: clock set can still move the clock back)'],
  ]);
  if (p.periods_closed.length > 0) {
    ui.line();
    ui.table(
      [
        { header: 'period', value: (c) => c.period_month },
        { header: 'last day', value: (c) => c.last_day },
        { header: 'collections', value: (c) => ui.count(c.collections), align: 'right' },
        { header: 'not fully paid', value: (c) => ui.count(c.open), align: 'right' },
        { header: 'nothing collected', value: (c) => ui.count(c.nothing_collected), align: 'right' },
        { header: 'still owed', value: (c) => c.amount_remaining, money: true },
      ],
      p.periods_closed,
    );
    for (const c of p.periods_closed) {
      const n = c.policies_not_queued ?? 0; // a server of an earlier version does not say
      if (n > 0) ui.line(`${c.period_month}: ${notQueued(n)}: ${queuesThem(c.period_month, n)}`);
    }
    for (const c of p.periods_closed) {
      const others = c.other_clients_not_run ?? []; // a server of an earlier version does not say
      if (others.length > 0) ui.line(`${c.period_month}, the store's other clients with active policies and no collections queued: ${nameList(others)}`);
    }
  }
  ui.status(`Dry run: nothing changed. Without --dry-run this lives ${plural(p.days, 'day')}${periods.length > 0 ? ` and closes ${periodList(periods)}` : ''}.`);
}

export default verb(advanceOptions, advanceRun);

/** What an advance waiting for another says: who holds the store (pid 0: not known), and how long a silent holder keeps it, where the store says. */
function waitingFor(h: { from: string; to: string; host: string; pid: number; givenUpAfterS?: number; otherPidNamespace?: boolean }): string {
  const where = h.host === '?' ? '' : ` on ${h.host}${h.otherPidNamespace === true ? ' in another PID namespace' : ''}`;
  const who = h.pid === 0 ? '' : ` (${h.from} to ${h.to}, process ${h.pid}${where})`;
  const bound = h.givenUpAfterS === undefined ? '' : `; one whose process stopped answering (killed, frozen, its machine lost) is given up ${plural(h.givenUpAfterS, 'second')} after its last word`;
  return `Waiting for another clock advance${who} to finish${bound}…`;
}

/** How to finish an advance stopped at `at` before its end `to`: run again, --days would count from `at` and go past it. */
function finishWith(to: string, at: string): string {
  return ` To finish this advance, run 'premia clock advance --to ${to}' (--days would count from ${at}).`;
}
