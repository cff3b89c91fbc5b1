/**
 * `premia profiles`: the profiles `premia login` saved, each with its service, client and key
 * (redacted: its last 4 characters), and which one the commands use now (the same rule as every
 * command: --profile, PREMIA_PROFILE, else "default" when saved; none in local mode). Reads the
 * config file only: no service is asked.
 */
import { configPath, readConfig, redactKey } from '../../config.js';
import { verb, type CommandDeps } from '../../command.js';
import { listOutput, printList, type ListFlags, type ListOutput } from '../../output/list.js';
import { PROFILE_LIST, type ProfileRow } from '../list-fields.js';

export interface ProfilesOptions extends CommandDeps {
  output: ListOutput;
}

export async function profilesRun({ ctx, globals, ui, output }: ProfilesOptions): Promise<number> {
  const path = configPath(ctx.env);
  const config = path === null ? { profiles: {} } : await readConfig(path);
  const names = Object.keys(config.profiles).sort();
  const current = names.length === 0 ? null : (await ctx.target(globals)).profile;
  const rows: ProfileRow[] = names.map((name) => {
    const p = config.profiles[name]!;
    return { name, current: name === current, base_url: p.base_url, client: p.client ?? null, api_key: redactKey(p.api_key) ?? '…' };
  });
  if (!ui.json && output.format === 'table' && rows.length === 0) {
    ui.status(`No saved profiles${path ? ` in ${path}` : ''}; save one with 'premia login --base-url URL'.`);
    return 0;
  }
  printList(ui, PROFILE_LIST, output, rows, { current, profiles: rows });
  if (!ui.json && output.format === 'table' && current === null) {
    ui.status(`None is in use: the commands run in local mode${globals.db !== undefined || ctx.env.PREMIA_DB ? ' (--db or PREMIA_DB)' : ''}.`);
  }
  return 0;
}

export default verb<ListFlags, ProfilesOptions>((deps, flags) => ({ ...deps, output: listOutput(flags, deps.globals, PROFILE_LIST) }), profilesRun);
