/**
 * Local mode on a store that serves several clients acts for the store's own client, Local, unless
 * --as-client names another. An operator who reads such a store's month for a client that did not
 * run it (the store's own, without --as-client, or the one named) gets that client's month:
 * nothing (an empty report, a summary of zeros, "never executed"). Said so, with the clients whose
 * month it is and how to act for them, so the month is not taken for one nobody ran.
 */
import { PremiaError } from '../domain/errors.js';
import type { Period } from '../domain/period.js';
import type { CommandDeps } from './command.js';
import { nameList } from './confirm.js';

/** `--as-client NAME` as a shell takes it. */
const asClientOption = (name: string) => `--as-client ${/^[A-Za-z0-9._-]+$/.test(name) ? name : `"${name.replace(/(["\\$`])/g, '\\$1')}"`}`;

/**
 * When this command, in local mode, acts for a client with no collections in `period` (the
 * store's own without --as-client, else the one named) and other clients of the store have some:
 * what to say about them; else null.
 */
export async function otherClientsNote(deps: CommandDeps, period: Period): Promise<string | null> {
  const b = await deps.backend();
  if (b.mode !== 'local') return null;
  const acting = deps.globals.asClient?.trim();
  const ran = await (await deps.admin()).clients.withCollections(period);
  const others = ran.filter((c) => (acting === undefined ? !c.own : c.name !== acting));
  const named = others.filter((c) => !c.own).map((c) => c.name);
  const does = (n: number) => (n === 1 ? 'does' : 'do');
  const theirs = named.length === 0 ? '' : `its ${named.length === 1 ? 'client' : 'clients'} ${nameList(named)}`;
  if (acting === undefined) {
    if (named.length === 0) return null;
    return (
      `this store's own client has no collections for ${period}, but ${theirs} ${does(named.length)}: ` +
      `local mode acts for the store's own client unless --as-client names another (${asClientOption(named[0]!)}).`
    );
  }
  const own = others.some((c) => c.own);
  if (!own && named.length === 0) return null;
  const head = `client '${acting}' has no collections for ${period}, but`;
  if (named.length === 0) return `${head} this store's own client does: local mode acts for it without --as-client.`;
  if (!own) return `${head} ${theirs} ${does(named.length)} (${asClientOption(named[0]!)}).`;
  return `${head} this store's own client does (without --as-client), and so ${does(named.length)} ${theirs} (${asClientOption(named[0]!)}).`;
}

/**
 * After an advance in local mode, whose days and figures are those of the client acted for (the
 * store's own without --as-client): the other clients of the store with collections in `periods`
 * (the advance lived their days too), and how to see their figures; null when there are none.
 * An operator of a service's store read "0.00 collected" of a month its clients collected in.
 */
export async function advanceFiguresNote(deps: CommandDeps, periods: readonly Period[]): Promise<string | null> {
  if (periods.length === 0 || (await deps.backend()).mode !== 'local') return null;
  const acting = deps.globals.asClient?.trim();
  const admin = await deps.admin();
  const others = new Map<string, boolean>();
  for (const period of periods) {
    for (const c of await admin.clients.withCollections(period)) if (acting === undefined ? !c.own : c.name !== acting) others.set(c.name, c.own);
  }
  if (others.size === 0) return null;
  const own = [...others.values()].some((o) => o);
  const named = [...others].filter(([, o]) => !o).map(([name]) => name);
  const whose = acting === undefined ? "the store's own client" : `client '${acting}'`;
  const who = [own ? "this store's own client" : '', named.length === 0 ? '' : `its ${named.length === 1 ? 'client' : 'clients'} ${nameList(named)}`].filter((w) => w !== '').join(' and ');
  const last = periods[periods.length - 1]!;
  const how = named.length > 0 ? `premia ${asClientOption(named[0]!)} reports summary --period ${last}` : `premia reports summary --period ${last}`;
  return `those figures are for ${whose} only; the advance lived the days of ${who} too (${periods.join(', ')}): '${how}' shows theirs.`;
}

/**
 * `error` (NO_COLLECTIONS) with the note on the store's other clients, when there is one: added
 * to its words for the store's own client; for a client named with --as-client, whose answers
 * are those its API key gets from the service (the note is none of them), said beside it as a
 * warning (not with --json, whose stderr is the error body).
 */
export async function withOtherClients(deps: CommandDeps, period: Period, error: unknown): Promise<unknown> {
  if (!(error instanceof PremiaError) || error.code !== 'NO_COLLECTIONS') return error;
  const note = await otherClientsNote(deps, period).catch(() => null);
  if (note === null) return error;
  if (!noteInAnswer(deps)) {
    if (!deps.ui.json) deps.ui.warn(note);
    return error;
  }
  return new PremiaError(error.code, `${error.message} ${capitalised(note)}`, { details: error.details, cause: error });
}

/**
 * Whether the note goes into a refusal's own words: for the store's own client only. Acting for
 * a client named with --as-client, local mode answers as that client's key does through the
 * service, which knows nothing of the store's other clients.
 */
export const noteInAnswer = (deps: Pick<CommandDeps, 'globals'>): boolean => deps.globals.asClient === undefined;

/** The note as a sentence of its own. */
export const capitalised = (note: string): string => `${note.charAt(0).toUpperCase()}${note.slice(1)}`;
