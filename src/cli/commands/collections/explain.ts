import { verb, type CommandDeps } from '../../command.js';
import { showCollection } from './show.js';

export interface ExplainOptions extends CommandDeps {
  /** A collection id. */
  id: string;
}

export async function explainRun({ ui, backend, id }: ExplainOptions): Promise<number> {
  const e = await (await backend()).explainCollection(id);
  if (ui.json) {
    ui.printJson(e);
    return 0;
  }
  showCollection(ui, e.collection);
  ui.line();
  ui.line(`Strategy: ${e.strategy}`);
  ui.line(`Income: ${e.income.description}`);
  if (e.income.next_income_dates.length > 0) ui.line(`Next income expected: ${e.income.next_income_dates.join(', ')}`);
  ui.line();
  // Not "yet": in a closed period none will come (the summary says which; the plan, what is next).
  if (e.attempts.length === 0) ui.line('No attempts.');
  for (const a of e.attempts) {
    const outcome = a.outcome === 'SUCCESS' ? 'collected' : `FAILED (${a.failure_reason})`;
    ui.line(`${a.date}  ${ui.money(a.amount).padStart(10)}  ${outcome}`);
    ui.line(`            why: ${a.why}`);
  }
  for (const p of e.plan) ui.line(`Plan: ${p}`);
  ui.line();
  ui.line(e.summary);
  return 0;
}

export default verb<unknown, ExplainOptions>((deps, _flags, [id]) => ({ ...deps, id: id! }), explainRun);
