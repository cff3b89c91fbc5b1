import type { CommandEnv } from '../action.js';

export default async function create({ ctx, opts, ui, backend }: CommandEnv): Promise<number> {
  const created = await ctx.operator().createKey(await backend(), String(opts.client));
  if (ui.json) ui.printJson(created);
  else {
    ui.line(created.key);
    ui.status(`Created key ${created.id} for client ${created.client}.`);
    ui.status('Keep it secret and store it now: it is not shown again (only its last 4 characters are kept).');
  }
  return 0;
}
