import type { StoreCopyReport } from '../../../backend/types.js';
import { usageError, validationError } from '../../../domain/errors.js';
import { resolve } from 'node:path';
import { foreignUrlProblem, isStoreFile, keyAsStoreProblem, redactDbUrl } from '../../../lib/db-url.js';
import { checkCopyStoreFile, checkNotSqliteCompanion, checkStoreDirectory, terminalText } from '../../context.js';
import { verb, type CommandDeps } from '../../command.js';
import { confirmMode, declined } from '../../confirm.js';
import { moneyText } from '../../output/table.js';
import { catchCtrlC } from '../../interrupt.js';

interface Flags {
  from?: string;
  to?: string;
}

export interface CopyOptions extends CommandDeps {
  from: string;
  to: string;
}

export function copyOptions(deps: CommandDeps, flags: Flags): CopyOptions {
  const from = String(flags.from ?? '').trim();
  const to = String(flags.to ?? '').trim();
  if (from === '' || to === '') throw usageError('Name both stores: premia db copy --from ./premia.db --to postgres://user@host/db.');
  for (const [value, option] of [[from, '--from'], [to, '--to']] as const) {
    const foreign = foreignUrlProblem(value, option) ?? keyAsStoreProblem(value, option);
    if (foreign !== null) throw validationError(foreign.message, [foreign.detail]);
  }
  // A file is relative to where premia runs (as --db is); a URL is taken as written.
  const place = (store: string) => (isStoreFile(store) ? resolve(deps.ctx.cwd, store) : store);
  return { ...deps, from: place(from), to: place(to) };
}

const rowsText = (n: string | number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

function money(cents: string | null, group: boolean): string {
  if (cents === null) return '-';
  const n = Number(cents);
  return Number.isSafeInteger(n) ? moneyText(n, group) : cents;
}

export async function copyRun({ ctx, ui, globals, from, to }: CopyOptions): Promise<number> {
  const mode = confirmMode({ ctx, globals });
  if (isStoreFile(to)) await checkStoreDirectory(to, '--to');
  for (const [store, option] of [[from, '--from'], [to, '--to']] as const) {
    if (!isStoreFile(store)) continue;
    await checkNotSqliteCompanion(store, option);
    await checkCopyStoreFile(store, option);
  }
  ui.status(`Copying ${redactDbUrl(from)} to ${redactDbUrl(to)}…`);
  // Ctrl-C rolls the copy back at its next batch and says so (exit 130); a second quits at once.
  const ctrlC = catchCtrlC(ctx, () => undefined);
  let report: StoreCopyReport;
  try {
    report = await ctx.copyStore({
      from,
      to,
      replace: globals.yes === true,
      confirm: async ({ target, tables }) => {
        const list = tables.map((t) => `${t.table} (${rowsText(t.rows)} ${t.rows === 1 ? 'row' : 'rows'})`).join(', ');
        ctx.stderr.write(`${terminalText(ctx, `${target} is not empty: the copy replaces all it holds: ${list}.`)}\n`);
        // --yes allows the replacement; on a terminal premia still asks, since it cannot be undone.
        if (mode !== 'unattended' && ctx.stdinIsTTY && ctx.stderrIsTTY) {
          const question = terminalText(ctx, `Replace everything in ${target} with the copy of ${redactDbUrl(from)}?`);
          if (!(await ctx.prompter.confirm(question, { colour: ui.colour }))) throw declined();
        }
      },
      onTable: (table, rows) => {
        if (ui.interactive) ui.status(`  ${table}: ${rowsText(rows)} rows`, ui.err.dim);
      },
      signal: ctrlC.signal,
      onWait: () => {
        if (!globals.quiet) ctx.stderr.write('Waiting for another premia process to finish writing to the store; nothing has changed yet.\n');
      },
    });
  } finally {
    ctrlC.release();
  }
  if (ui.json) ui.printJson(report);
  else {
    const group = ui.group;
    ui.table(
      [
        { header: 'table', value: (r: StoreCopyReport['tables'][number]) => r.table },
        { header: 'rows (source)', value: (r) => (group ? rowsText(r.from.rows) : r.from.rows), align: 'right' },
        { header: 'rows (copy)', value: (r) => (group ? rowsText(r.to.rows) : r.to.rows), align: 'right' },
        { header: 'money (source)', value: (r) => money(r.from.money, group), align: 'right' },
        { header: 'money (copy)', value: (r) => money(r.to.money, group), align: 'right' },
        { header: 'check', value: (r) => (r.same ? 'same' : 'DIFFERS') },
      ],
      report.tables,
    );
  }
  const rows = report.tables.reduce((s, t) => s + BigInt(t.from.rows), 0n);
  if (!report.identical) {
    const bad = report.tables.filter((t) => !t.same).map((t) => t.table);
    ctx.stderr.write(`${terminalText(ctx, `premia: the copy differs from its source in ${bad.join(', ')}; it was rolled back and ${report.to} is unchanged.`)}\n`);
    return 1;
  }
  const replaced = report.replaced.length > 0 ? ` (replacing what it held: ${report.replaced.map((t) => t.table).join(', ')})` : '';
  ui.status(`Copied ${report.from} to ${report.to}${replaced}: ${report.tables.length} tables, ${rowsText(rows.toString())} rows; counts and money totals identical.`);
  return 0;
}

export default verb(copyOptions, copyRun);
