import { usageError } from '../../../domain/errors.js';
import type { CommandEnv } from '../action.js';

export default async function create({ opts, ui, admin }: CommandEnv): Promise<number> {
  const operator = opts.operator === true;
  if (opts.client === undefined && !operator) {
    throw usageError("Say whose key it is: --client NAME for a client's key, or --operator for an operator key (with --client NAME it acts for that client).");
  }
  const created = await (await admin()).keys.create(opts.client === undefined ? null : String(opts.client), operator ? 'operator' : 'client');
  if (ui.json) ui.printJson(created);
  else {
    ui.line(created.key);
    ui.status(
      created.role === 'operator'
        ? `Created operator key ${created.id} (acts for client ${created.client}).`
        : `Created key ${created.id} for client ${created.client}.`,
    );
    ui.status('Keep it secret and store it now: it is not shown again (only its last 4 characters are kept).');
  }
  return 0;
}
