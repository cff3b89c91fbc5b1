import type { KeyRole } from '../../../backend/types.js';
import { usageError } from '../../../domain/errors.js';
import { verb, type CommandDeps } from '../../command.js';

interface Flags {
  client?: string;
  operator?: boolean;
}

export interface CreateOptions extends CommandDeps {
  /** The client the key acts for; null: an operator key of the store's own client (Local). */
  client: string | null;
  role: KeyRole;
}

export function createOptions(deps: CommandDeps, flags: Flags): CreateOptions {
  const operator = flags.operator === true;
  if (flags.client === undefined && !operator) {
    throw usageError("Say whose key it is: --client NAME for a client's key, or --operator for an operator key (with --client NAME it acts for that client).");
  }
  return { ...deps, client: flags.client === undefined ? null : String(flags.client), role: operator ? 'operator' : 'client' };
}

export async function createRun({ ui, admin, client, role }: CreateOptions): Promise<number> {
  const created = await (await admin()).keys.create(client, role);
  if (ui.json) ui.printJson(created);
  else {
    ui.line(created.key);
    ui.status(
      created.role === 'operator'
        ? `Created operator key ${created.id} (acts for client ${created.client}).`
        : `Created key ${created.id} for ${created.new_client ? 'the new client' : 'client'} ${created.client}.`,
    );
    ui.status('Keep it secret and store it now: it is not shown again (only its last 4 characters are kept).');
  }
  return 0;
}

export default verb(createOptions, createRun);
