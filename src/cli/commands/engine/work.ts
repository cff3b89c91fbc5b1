import { validationError } from '../../../domain/errors.js';
import { printable } from '../../../domain/identifiers.js';
import { isIsoDate, whyNotADate } from '../../../domain/period.js';
import { redactDbUrl } from '../../../lib/db-url.js';
import { verb, type CommandDeps } from '../../command.js';
import { catchCtrlC } from '../../interrupt.js';

interface Flags {
  until?: string;
}

export interface WorkOptions extends CommandDeps {
  until?: string;
}

export function workOptions(deps: CommandDeps, flags: Flags): WorkOptions {
  const until = flags.until?.trim();
  // A wrong value, worded as every date premia reads (3000-01-01 is past the last date, not misspelt).
  if (until !== undefined && !isIsoDate(until)) throw validationError(`--until '${printable(until, 40)}' ${whyNotADate(until).phrase}.`);
  return { ...deps, until };
}

export async function workRun({ ctx, ui, admin, until }: WorkOptions): Promise<number> {
  const a = await admin();
  let by = 'Ctrl-C';
  const ctrlC = catchCtrlC(ctx, () =>
    ui.status(by === 'Ctrl-C' ? 'Ctrl-C: stopping after the shard in progress (press Ctrl-C again to quit at once).' : `${by}: stopping after the shard in progress.`),
  );
  // A service manager stops a worker with SIGTERM: the same stop as Ctrl-C, said as what it is.
  const term = () => {
    by = 'SIGTERM';
    ctx.signals.emit('SIGINT');
  };
  ctx.signals.on('SIGTERM', term);
  const start = () => ui.status(`Working on the days of ${redactDbUrl(a.storePath)}${until ? ` until ${until}` : ''}; Ctrl-C stops after the shard in progress.`);
  let lived = 0;
  try {
    lived = await a.engine.work({ until, signal: ctrlC.signal, onStart: start, onShard: () => lived++ });
  } finally {
    ctrlC.release();
    ctx.signals.removeListener('SIGTERM', term);
  }
  if (ui.json) ui.printJson({ shards: lived, stopped: ctrlC.signal.aborted });
  else ui.status(`Lived ${lived} ${lived === 1 ? 'shard' : 'shards'}${ctrlC.signal.aborted ? `; stopped by ${by}` : ''}.`);
  return ctrlC.signal.aborted ? 130 : 0;
}

export default verb<Flags, WorkOptions>(workOptions, workRun);
