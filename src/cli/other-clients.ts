/**
 * Local mode on a store that serves several clients acts for the store's own client, Local, unless
 * --as-client names another. An operator who reads such a store's month without --as-client gets
 * Local's (nothing, when the books are the other clients'): an empty report, a summary of zeros,
 * "never executed". Said so, with the clients whose month it is, so the month is not taken for
 * one nobody ran.
 */
import { PremiaError } from '../domain/errors.js';
import type { Period } from '../domain/period.js';
import type { CommandDeps } from './command.js';
import { nameList } from './confirm.js';

/**
 * When this command acts for the store's own client in local mode (no --as-client) and other
 * clients of the store have collections in `period`: what to say about them; else null.
 */
export async function otherClientsNote(deps: CommandDeps, period: Period): Promise<string | null> {
  if (deps.globals.asClient !== undefined) return null;
  const b = await deps.backend();
  if (b.mode !== 'local') return null;
  const others = (await (await deps.admin()).clients.othersWithCollections(period)).map((c) => c.name);
  if (others.length === 0) return null;
  const first = others[0]!;
  const quoted = /^[A-Za-z0-9._-]+$/.test(first) ? first : `"${first.replace(/(["\\$`])/g, '\\$1')}"`;
  return (
    `this store's own client has no collections for ${period}, but its ${others.length === 1 ? 'client' : 'clients'} ${nameList(others)} ` +
    `${others.length === 1 ? 'does' : 'do'}: local mode acts for the store's own client unless --as-client names another (--as-client ${quoted}).`
  );
}

/** `error` (NO_COLLECTIONS) with the note on the store's other clients added, when there is one. */
export async function withOtherClients(deps: CommandDeps, period: Period, error: unknown): Promise<unknown> {
  if (!(error instanceof PremiaError) || error.code !== 'NO_COLLECTIONS') return error;
  const note = await otherClientsNote(deps, period).catch(() => null);
  if (note === null) return error;
  return new PremiaError(error.code, `${error.message} ${capitalised(note)}`, { details: error.details, cause: error });
}

/** The note as a sentence of its own. */
export const capitalised = (note: string): string => `${note.charAt(0).toUpperCase()}${note.slice(1)}`;
