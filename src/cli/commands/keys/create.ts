import type { KeyRole } from '../../../backend/types.js';
import { PremiaError, usageError } from '../../../domain/errors.js';
import { verb, type CommandDeps } from '../../command.js';
import { askOrCancel, confirmMode } from '../../confirm.js';

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

export async function createRun(deps: CreateOptions): Promise<number> {
  const { ui, admin, client, role } = deps;
  const keys = (await admin()).keys;
  let created;
  try {
    created = await keys.create(client, role, { closeName: confirmMode(deps) === 'yes' });
  } catch (e) {
    // A name one typo from an existing client's: at a terminal, asked; elsewhere refused (--yes makes it).
    const near = closeClient(e);
    if (near === null || confirmMode(deps) !== 'ask') throw e;
    await askOrCancel(deps, {
      details: [`There is no client '${client}', but there is a client '${near}': a key for a new client sees none of its data.`],
      question: `Make a new client '${client}'?`,
    });
    created = await keys.create(client, role, { closeName: true });
  }
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

/** The existing client named by a CLOSE_CLIENT refusal, or null. */
function closeClient(e: unknown): string | null {
  if (!(e instanceof PremiaError)) return null;
  const detail = e.details?.find((d) => d.code === 'CLOSE_CLIENT');
  return typeof detail?.existing === 'string' ? detail.existing : null;
}

export default verb(createOptions, createRun);
