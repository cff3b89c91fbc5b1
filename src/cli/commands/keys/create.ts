import type { KeyCreation, KeyRole, ReplayedApiKey } from '../../../backend/types.js';
import { PremiaError, usageError } from '../../../domain/errors.js';
import { checkGivenKey } from '../../../domain/idempotency.js';
import { keyCreationClaim } from '../../local-idempotency.js';
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
  const { ui, admin, client, role, globals, ctx } = deps;
  const a = await admin();
  const keys = a.keys;
  // --idempotency-key: made at most once; a rerun is told of the key made before, never given its secret.
  const given = globals.idempotencyKey === undefined ? null : checkGivenKey(globals.idempotencyKey);
  const make = async (closeName: boolean): Promise<KeyCreation> =>
    given === null
      ? { created: await keys.create(client, role, { closeName }) }
      : keys.createOnce(client, role, keyCreationClaim(given, a.idempotency, client, role, ctx.now), { closeName });
  let made: KeyCreation;
  try {
    made = await make(confirmMode(deps) === 'yes');
  } catch (e) {
    // A name one typo from an existing client's: at a terminal, asked; elsewhere refused (--yes makes it).
    const near = closeClient(e);
    if (near === null || confirmMode(deps) !== 'ask') throw e;
    await askOrCancel(deps, {
      details: [`There is no client '${client}', but there is a client '${near}': a key for a new client sees none of its data.`],
      question: `Make a new client '${client}'?`,
    });
    made = await make(true);
  }
  if ('replayed' in made) {
    // Exit 0 as every replay: the request was done, by the earlier run. Nothing on stdout, where the key would be.
    ui.warn(replayedNote(made.replayed, given!));
    if (ui.json) ui.printJson({ ...made.replayed, replayed: true });
    return 0;
  }
  const created = made.created;
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

/**
 * What a rerun with the same idempotency key says instead of printing a key: which key the
 * earlier run made, that no second one was made, and that its secret cannot be shown again.
 */
function replayedNote(k: ReplayedApiKey, idempotencyKey: string): string {
  const which = k.role === 'operator' ? `operator key ${k.id} (${k.key}, acts for client ${k.client})` : `key ${k.id} (${k.key}) for client ${k.client}`;
  const made = `${which} was created on ${k.created_at} by an earlier run with idempotency key '${idempotencyKey}'; no new key was created.`;
  const secret = 'Its secret was shown only to that run and premia keeps only a hash of it, so it cannot be shown again';
  if (k.revoked_at !== null) return `${made} It has been revoked since (on ${k.revoked_at}). ${secret}: for a working key, run 'premia keys create' with a new idempotency key.`;
  return `${made} ${secret}: if it was lost, revoke it ('premia keys revoke ${k.id}') and create another with a new idempotency key.`;
}

/** The existing client named by a CLOSE_CLIENT refusal, or null. */
function closeClient(e: unknown): string | null {
  if (!(e instanceof PremiaError)) return null;
  const detail = e.details?.find((d) => d.code === 'CLOSE_CLIENT');
  return typeof detail?.existing === 'string' ? detail.existing : null;
}

export default verb(createOptions, createRun);
